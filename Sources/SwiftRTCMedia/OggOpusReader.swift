import SwiftRTCCore

/// Plays an Ogg Opus file (RFC 7845) as Opus ``EncodedFrame``s, without decoding: reads the
/// `OpusHead` and `OpusTags` headers, then yields each audio packet with an RTP timestamp in
/// 48 kHz samples: the PCM position of its first sample on the granule scale (0 for a file
/// that starts at the beginning), i.e. including the ``OpusHead/preSkip`` samples a decoder
/// drops. Packet durations come from
/// the TOC byte; the granule position of each page is checked against them.
public struct OggOpusReader: MediaSource, Sendable {
    /// The stream's identification header.
    public let head: OpusHead
    /// The encoder's vendor string from `OpusTags`.
    public let vendor: String
    /// `TAG=value` comments from `OpusTags`.
    public let comments: [String]
    /// Granule position of the last page read (end of the audio so far, pre-skip included).
    public private(set) var granulePosition: Int64 = 0
    private var pages: OggPageReader
    private var position: Int64 = 0
    private var pending: [(packet: [UInt8], samples: Int, granule: Int64, offset: Int)] = []
    private var hasStart = false

    /// Opens `path` and reads the `OpusHead` and `OpusTags` packets.
    public init(path: String) throws(MediaFileError) {
        pages = try OggPageReader(path: path)
        guard let (headPacket, _, headOffset) = try pages.readPacket() else {
            throw .badMagic(format: "Ogg", expected: "\"OggS\"")
        }
        head = try OpusHead(parsing: headPacket, offset: headOffset)
        guard let (tagsPacket, _, tagsOffset) = try pages.readPacket() else {
            throw .truncated(format: "Ogg Opus", offset: headOffset, expected: "an \"OpusTags\" packet")
        }
        var tags = ByteCursor(tagsPacket, format: "Ogg Opus")
        guard tagsPacket.count >= 8, try tags.ascii(8, "magic") == "OpusTags" else {
            throw .invalidField(
                format: "Ogg Opus",
                offset: tagsOffset,
                field: "second packet (expected OpusTags)",
                value: String(decoding: tagsPacket.prefix(8), as: UTF8.self)
            )
        }
        let vendorLength = Int(try tags.le32("vendor length"))
        vendor = String(decoding: try tags.bytes(vendorLength, "vendor string"), as: UTF8.self)
        let count = Int(try tags.le32("comment count"))
        guard count <= tags.remaining / 4 else {
            throw .invalidField(format: "Ogg Opus", offset: tagsOffset, field: "comment count", value: "\(count)")
        }
        var comments: [String] = []
        for _ in 0..<count {
            let length = Int(try tags.le32("comment length"))
            comments.append(String(decoding: try tags.bytes(length, "comment"), as: UTF8.self))
        }
        self.comments = comments
    }

    /// The next audio packet, `nil` at the end of the stream.
    public mutating func readFrame() throws(MediaFileError) -> EncodedFrame? {
        if !hasStart { try findStart() }
        let next: (packet: [UInt8], samples: Int, granule: Int64, offset: Int)
        if !pending.isEmpty {
            next = pending.removeFirst()
        } else {
            guard let (packet, granule, offset) = try pages.readPacket() else { return nil }
            next = (packet, try Self.samples(packet, offset: offset), granule, offset)
        }
        let frame = EncodedFrame(
            codec: .opus,
            data: next.packet,
            timestamp: UInt32(truncatingIfNeeded: position),
            isKeyframe: true
        )
        position += Int64(next.samples)
        if next.granule >= 0 {
            // A page may end early (end trimming on the last page, RFC 7845 section 4.5), never late.
            guard next.granule <= position else {
                throw .invalidField(
                    format: "Ogg Opus",
                    offset: next.offset,
                    field: "granule position (beyond the packets' end at \(position))",
                    value: "\(next.granule)"
                )
            }
            granulePosition = next.granule
        }
        return frame
    }

    /// Reads the packets of the first audio page: its granule position minus their durations
    /// is where the stream starts (0 for a file from the beginning; more for one cut from a
    /// live stream or remuxed with an offset).
    private mutating func findStart() throws(MediaFileError) {
        hasStart = true
        var total: Int64 = 0
        while let (packet, granule, offset) = try pages.readPacket() {
            let samples = try Self.samples(packet, offset: offset)
            pending.append((packet, samples, granule, offset))
            total += Int64(samples)
            if granule >= 0 {
                position = max(0, granule - total)
                return
            }
        }
    }

    private static func samples(_ packet: [UInt8], offset: Int) throws(MediaFileError) -> Int {
        guard let samples = OpusPacket.sampleCount(packet) else {
            throw .invalidField(
                format: "Ogg Opus",
                offset: offset,
                field: "Opus packet TOC",
                value: packet.first.map { "0x" + String($0, radix: 16) } ?? "empty packet"
            )
        }
        return samples
    }
}
