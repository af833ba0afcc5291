import SwiftRTCCore

/// The Opus TOC byte (RFC 6716 §3.1): configuration, stereo flag and frame count code.
/// ```
///  0 1 2 3 4 5 6 7
/// +-+-+-+-+-+-+-+-+
/// | config  |s| c |
/// +-+-+-+-+-+-+-+-+
/// ```
public struct OpusTOC: Sendable, Hashable {
    /// The 5-bit configuration (mode, bandwidth, frame size).
    public var configuration: UInt8
    /// The s bit: stereo.
    public var isStereo: Bool
    /// Frames in the packet (code 0: 1, 1-2: 2, 3: the count byte).
    public var frameCount: Int
    /// One frame's duration in microseconds (2500 to 60000).
    public var frameDurationMicroseconds: Int

    /// Reads the TOC (and, for code 3, the frame count byte) of an Opus packet.
    @inlinable
    public init(parsing packet: UnsafeRawBufferPointer) throws(RTPError) {
        guard packet.count >= 1 else { throw .truncated(what: "Opus TOC", offset: 0, needed: 1, available: 0) }
        let toc = packet.u8(0)
        configuration = toc >> 3
        isStereo = toc & 4 != 0
        switch toc & 3 {
        case 0: frameCount = 1
        case 1, 2: frameCount = 2
        default:
            guard packet.count >= 2 else {
                throw .truncated(what: "Opus frame count byte", offset: 1, needed: 1, available: 0)
            }
            frameCount = Int(packet.u8(1) & 0x3F)
            guard frameCount >= 1 else { throw .invalidField(what: "Opus frame count", offset: 1, value: 0) }
        }
        let c = Int(configuration)
        switch c {
        case 0...11: frameDurationMicroseconds = [10_000, 20_000, 40_000, 60_000][c % 4]  // SILK
        case 12...15: frameDurationMicroseconds = [10_000, 20_000][c % 2]  // hybrid
        default: frameDurationMicroseconds = [2_500, 5_000, 10_000, 20_000][c % 4]  // CELT
        }
    }

    /// The packet's duration in samples at 48 kHz (the RTP timestamp increment, RFC 7587 §4.1).
    public var samples: Int { frameCount * frameDurationMicroseconds * 48 / 1000 }
}
