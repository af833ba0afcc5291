import SwiftRTCCore

/// `ssrc-audio-level` (RFC 6464): voice activity and the level in -dBov (0 loudest, 127 silence).
/// ```
///  0 1 2 3 4 5 6 7
/// +-+-+-+-+-+-+-+-+
/// |V|    level    |
/// +-+-+-+-+-+-+-+-+
/// ```
public struct AudioLevel: RTPHeaderExtension, Sendable, Hashable {
    /// The URI that `a=extmap` names this extension by.
    public static let uri = "urn:ietf:params:rtp-hdrext:ssrc-audio-level"
    /// V: whether the packet holds voice.
    public var voiceActivity: Bool
    /// The level in -dBov, 0...127.
    public var level: UInt8

    /// Creates the value from its fields.
    public init(voiceActivity: Bool, level: UInt8) {
        self.voiceActivity = voiceActivity
        self.level = min(level, 127)
    }

    @inlinable
    public init(parsing data: UnsafeRawBufferPointer) throws(RTPError) {
        try Self.require(data, 1, "ssrc-audio-level")
        let byte = data.u8(0)
        voiceActivity = byte & 0x80 != 0
        level = byte & 0x7F
    }

    public var encodedLength: Int { 1 }
    public func encode(into buffer: UnsafeMutableRawBufferPointer) {
        buffer.put8((voiceActivity ? 0x80 : 0) | level, at: 0)
    }
}
