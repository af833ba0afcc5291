/// A session description (RFC 8866) with everything WebRTC uses, as parsed from or written to
/// SDP text. Session-level attributes are reached directly (`description.iceUfrag`) through
/// `attributes`; `resolved(_:)` gives a media section with the session level inherited.
///
///     let offer = try SessionDescription(parsing: text)
///     for media in offer.media { print(media.mid ?? "-", media.kind, media.codecs.count) }
///     let text = offer.sdp   // canonical CRLF SDP
@dynamicMemberLookup
public struct SessionDescription: Sendable, Hashable, Codable {
    /// `v=`: always 0.
    public var version: Int = 0
    /// `o=`.
    public var origin: Origin
    /// `s=` (`-` in WebRTC).
    public var sessionName: String = "-"
    /// `i=`.
    public var information: String?
    /// `c=` at session level.
    public var connection: ConnectionData?
    /// `b=` lines at session level.
    public var bandwidths: [Bandwidth] = []
    /// `t=` lines (WebRTC writes `t=0 0`).
    public var timing: [Timing] = [Timing(start: 0, stop: 0)]
    /// Lines of the other RFC 8866 types (`u`, `e`, `p`, `r`, `z`, `k`), kept and written back.
    public var otherLines: [SDPOtherLine] = []
    /// Session-level `a=` lines.
    public var attributes = SDPAttributes()
    /// The media sections (`m=` and what follows), in order.
    public var media: [MediaDescription] = []

    /// Creates a description; add media and attributes after.
    public init(origin: Origin) {
        self.origin = origin
    }

    /// Reaches the session-level attributes (`description.groups`, `description.fingerprints`).
    public subscript<T>(dynamicMember keyPath: WritableKeyPath<SDPAttributes, T>) -> T {
        get { attributes[keyPath: keyPath] }
        set { attributes[keyPath: keyPath] = newValue }
    }

    /// Reaches the read-only properties of the attributes (`description.ssrcNumbers`).
    public subscript<T>(dynamicMember keyPath: KeyPath<SDPAttributes, T>) -> T {
        attributes[keyPath: keyPath]
    }

    /// The BUNDLE groups (`a=group:BUNDLE`).
    public var bundleGroups: [[String]] {
        attributes.groups.filter { $0.semantics.uppercased() == "BUNDLE" }.map(\.mids)
    }

    /// The media section with this mid.
    public func media(mid: String) -> MediaDescription? {
        media.first { $0.mid == mid }
    }

    /// `media` with what it inherits from the session level filled in (RFC 8866 §5, JSEP
    /// §5.8): connection data, ICE credentials and options, ice-lite, fingerprints, setup,
    /// direction (default sendrecv), session-level header extensions, extmap-allow-mixed.
    public func resolved(_ media: MediaDescription) -> MediaDescription {
        var m = media
        let s = attributes
        if m.connection == nil { m.connection = connection }
        if m.iceUfrag == nil { m.iceUfrag = s.iceUfrag }
        if m.icePwd == nil { m.icePwd = s.icePwd }
        if m.iceOptions.isEmpty { m.iceOptions = s.iceOptions }
        if s.iceLite { m.iceLite = true }
        if m.fingerprints.isEmpty { m.fingerprints = s.fingerprints }
        if m.setup == nil { m.setup = s.setup }
        if m.direction == nil { m.direction = s.direction ?? .sendrecv }
        for ext in s.extensions where !m.extensions.contains(where: { $0.id == ext.id }) { m.extensions.append(ext) }
        if s.extmapAllowMixed { m.extmapAllowMixed = true }
        return m
    }
}
