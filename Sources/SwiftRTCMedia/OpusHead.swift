import SwiftRTCCore

/// The identification header of an Ogg Opus stream (RFC 7845 section 5.1):
///
/// ```
/// "OpusHead" | version (1) | channels (1) | pre-skip (2, LE) | input sample rate (4, LE)
/// | output gain (2, LE, Q7.8 dB) | channel mapping family (1) | [mapping table]
/// ```
public struct OpusHead: Sendable, Hashable {
    /// 1 or 2.
    public var channels: Int
    /// Samples (at 48 kHz) to drop from the start of the decoded audio.
    public var preSkip: Int
    /// Sample rate of the original input (informational).
    public var inputSampleRate: Int
    /// Gain to apply on output, in 1/256 dB.
    public var outputGain: Int16

    /// A header for a mono or stereo stream (RFC 7845 recommends a pre-skip of at least 3840 for
    /// streams cut from a longer one; 312 is libopus's encoder delay at 48 kHz).
    public init(channels: Int, preSkip: Int = 312, inputSampleRate: Int = 48_000, outputGain: Int16 = 0) {
        self.channels = channels
        self.preSkip = preSkip
        self.inputSampleRate = inputSampleRate
        self.outputGain = outputGain
    }

    /// The 19-byte header packet (mapping family 0: mono or stereo).
    public var packet: [UInt8] {
        var bytes = [UInt8]()
        bytes.appendASCII("OpusHead")
        bytes.append(1)
        bytes.append(UInt8(channels))
        bytes.appendLE16(UInt16(preSkip))
        bytes.appendLE32(UInt32(inputSampleRate))
        bytes.appendLE16(UInt16(bitPattern: outputGain))
        bytes.append(0)
        return bytes
    }

    init(parsing packet: [UInt8], offset: Int) throws(MediaFileError) {
        var cursor = ByteCursor(packet, format: "Ogg Opus")
        guard packet.count >= 8, try cursor.ascii(8, "magic") == "OpusHead" else {
            throw .badMagic(format: "Ogg Opus", expected: "an \"OpusHead\" packet first")
        }
        let version = try cursor.u8("OpusHead version")
        guard version & 0xF0 == 0 else {
            throw .invalidField(format: "Ogg Opus", offset: offset, field: "OpusHead version", value: "\(version)")
        }
        channels = Int(try cursor.u8("channel count"))
        preSkip = Int(try cursor.le16("pre-skip"))
        inputSampleRate = Int(try cursor.le32("input sample rate"))
        outputGain = Int16(bitPattern: try cursor.le16("output gain"))
        let family = try cursor.u8("channel mapping family")
        guard family == 0, channels == 1 || channels == 2 else {
            throw .invalidField(
                format: "Ogg Opus",
                offset: offset,
                field: "channels/mapping family (only mono or stereo, family 0)",
                value: "\(channels)/\(family)"
            )
        }
    }
}
