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

/// `o=<username> <sess-id> <sess-version> <nettype> <addrtype> <unicast-address>` (RFC 8866 §5.2).
public struct Origin: Sendable, Hashable, Codable {
    /// `-` in WebRTC.
    public var username: String
    /// The session id (JSEP: a random 62-bit number).
    public var sessionId: UInt64
    /// Incremented whenever the description changes.
    public var sessionVersion: UInt64
    /// `IN`.
    public var networkType: String
    /// `IP4` or `IP6`.
    public var addressType: String
    /// An address or host name (`127.0.0.1`, `0.0.0.0`).
    public var address: String

    /// Creates an origin.
    public init(username: String = "-", sessionId: UInt64, sessionVersion: UInt64,
                networkType: String = "IN", addressType: String = "IP4", address: String = "127.0.0.1") {
        self.username = username
        self.sessionId = sessionId
        self.sessionVersion = sessionVersion
        self.networkType = networkType
        self.addressType = addressType
        self.address = address
    }
}

/// `c=<nettype> <addrtype> <connection-address>` (RFC 8866 §5.7).
public struct ConnectionData: Sendable, Hashable, Codable {
    /// `IN`.
    public var networkType: String
    /// `IP4` or `IP6`.
    public var addressType: String
    /// The address (with `/ttl` or `/count` for multicast, as written).
    public var address: String

    /// Creates connection data.
    public init(networkType: String = "IN", addressType: String = "IP4", address: String = "0.0.0.0") {
        self.networkType = networkType
        self.addressType = addressType
        self.address = address
    }

    var sdpValue: String { "\(networkType) \(addressType) \(address)" }
}

/// `b=<bwtype>:<bandwidth>` (RFC 8866 §5.8): `AS`, `TIAS`, `CT`...
public struct Bandwidth: Sendable, Hashable, Codable {
    /// The bandwidth type as written.
    public var type: String
    /// The value (kbit/s for AS and CT, bit/s for TIAS).
    public var value: UInt64
    /// Creates a bandwidth line.
    public init(type: String, value: UInt64) {
        self.type = type
        self.value = value
    }
}

/// `t=<start-time> <stop-time>` (RFC 8866 §5.9).
public struct Timing: Sendable, Hashable, Codable {
    /// NTP start time, 0 for unbounded.
    public var start: UInt64
    /// NTP stop time, 0 for unbounded.
    public var stop: UInt64
    /// Creates a timing line.
    public init(start: UInt64, stop: UInt64) {
        self.start = start
        self.stop = stop
    }
}

/// A line of an RFC 8866 type SwiftRTC does not model (`u=`, `e=`, `p=`, `r=`, `z=`, `k=`).
public struct SDPOtherLine: Sendable, Hashable, Codable {
    /// The one-letter type.
    public var type: String
    /// Everything after `=`.
    public var value: String
    /// Creates a line.
    public init(type: String, value: String) {
        self.type = type
        self.value = value
    }
}
