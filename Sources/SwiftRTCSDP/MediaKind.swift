/// The media type of an m= line (RFC 8866 §5.14).
public struct MediaKind: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The name as written.
    public var rawValue: String
    /// Creates a kind.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `audio`.
    public static let audio = MediaKind(rawValue: "audio")
    /// `video`.
    public static let video = MediaKind(rawValue: "video")
    /// `application` (data channels).
    public static let application = MediaKind(rawValue: "application")

    /// The name.
    public var description: String { rawValue }
}
