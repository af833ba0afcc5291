/// A publisher in a conference room: someone whose streams can be subscribed to.
public struct ConferencePublisher: Sendable, Hashable {
    /// Janus's id of the publisher (its feed).
    public var id: Int64
    /// The display name it joined with, if any.
    public var display: String?
    /// The kinds of its streams (`audio`, `video`, `data`), in its order.
    public var streamKinds: [String]

    /// A publisher with `id`, `display` and streams of `streamKinds`.
    public init(id: Int64, display: String?, streamKinds: [String]) {
        self.id = id
        self.display = display
        self.streamKinds = streamKinds
    }
}
