/// The simulcast layer of a publisher's video a subscriber receives (Janus's VideoRoom
/// `substream` and `temporal`, the SDKs' `onLayerChanged`): each 0 (the smallest, the fewest
/// frames) to 2 (the largest, all frames).
public struct ConferenceLayer: Sendable, Hashable {
    /// The spatial layer: which of the publisher's encodings (0 the smallest picture).
    public var substream: Int?
    /// The temporal layer: how many of that encoding's frames (0 the fewest).
    public var temporal: Int?

    /// A layer of `substream` and `temporal`.
    public init(substream: Int?, temporal: Int? = nil) {
        self.substream = substream
        self.temporal = temporal
    }

    /// The highest layer Janus knows (three encodings of three temporal layers).
    public static let highest = 2

    /// `value` within 0...``highest``.
    static func clamped(_ value: Int) -> Int { min(max(value, 0), highest) }
}
