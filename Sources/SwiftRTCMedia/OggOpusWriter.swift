import SwiftRTCCodecs
import SwiftRTCCore

/// Records Opus ``EncodedFrame``s to an Ogg Opus file (RFC 7845): a first page holding only
/// `OpusHead`, a page holding `OpusTags`, then audio pages of up to `pageDuration`, each
/// with the granule position (48 kHz samples, pre-skip included) after its last packet and a
/// CRC; the last page carries end-of-stream. Packets are laid end to end by their TOC
/// durations; a gap in the RTP timestamps (loss, DTX) of up to 10 s is filled with empty
/// Opus frames that decoders conceal, so the file keeps the stream's timing; a frame that
/// starts before the previous one ended is skipped.
///
/// Crash-safe as far as Ogg goes: pages are written whole as they fill, so a killed process
/// leaves a file that plays up to the last page (at most `pageDuration` is lost).
///
/// With ``SilenceTrimming``, pass each packet's decoded PCM to ``write(_:pcm:)``: a
/// ``VoiceActivityDetector`` decides speech, leading silence is not written, and trailing
/// silence (held in memory, up to `maximumHeldSilence`, beyond which it is written as inner
/// silence) is dropped on close.
public final class OggOpusWriter {
    /// The stream's identification header.
    public let head: OpusHead
    private let file: MediaOutputFile
    private let serialNumber: UInt32
    private let pageSamples: Int
    private var sequenceNumber: UInt32 = 0
    private var granule: Int64
    private var pagePackets: [[UInt8]] = []
    private var pageSegments = 0
    private var pageStartGranule: Int64
    private var trimming:
        (settings: SilenceTrimming, detector: VoiceActivityDetector, gate: LeadingSilenceGate<[UInt8]>)?
    private var heldSilence: [(packet: [UInt8], samples: Int)] = []
    private var heldSilenceSamples = 0
    private static let maximumHeldSilence = 30 * AudioFrame.sampleRate
    /// Longest timestamp gap filled with concealment packets; a longer jump is taken as a
    /// restart of the stream and closed up.
    private static let maximumFilledGap: Int64 = 10 * 48_000
    private var nextTimestamp: UInt32?

    /// Frames not written because their timestamp lay before the previous frame's end.
    public private(set) var skippedFrames = 0

    /// Creates (truncating) `path` and writes the two header pages.
    public init(
        path: String,
        head: OpusHead,
        trimming: SilenceTrimming? = nil,
        pageDuration: Duration = .milliseconds(500),
        vendor: String = "SwiftRTC"
    ) throws(MediaFileError) {
        guard head.channels == 1 || head.channels == 2 else {
            throw .unusable(format: "Ogg Opus", reason: "only mono or stereo, got \(head.channels) channels")
        }
        self.head = head
        file = try MediaOutputFile(path: path)
        serialNumber = UInt32.random(in: 1...UInt32.max)
        pageSamples = max(
            1,
            Int(pageDuration.components.seconds) * AudioFrame.sampleRate
                + Int(pageDuration.components.attoseconds / 20_833_333_333_333)
        )
        granule = 0
        pageStartGranule = 0
        if let trimming {
            self.trimming = (
                trimming, VoiceActivityDetector(),
                LeadingSilenceGate(preRollSamples: trimming.preRollMilliseconds * AudioFrame.sampleRate / 1000)
            )
        }
        var tags = [UInt8]()
        tags.appendASCII("OpusTags")
        tags.appendLE32(UInt32(vendor.utf8.count))
        tags.appendASCII(vendor)
        tags.appendLE32(0)
        try writePage(packets: [head.packet], flags: .beginningOfStream, granule: 0)
        try writePage(packets: [tags], flags: [], granule: 0)
    }

    /// Appends an Opus packet. With trimming on, `pcm` (the packet's decoded audio) decides
    /// whether it is speech; without `pcm` it counts as speech.
    public func write(_ frame: EncodedFrame, pcm: AudioFrame? = nil) throws(MediaFileError) {
        guard file.isOpen else { throw .unusable(format: "Ogg Opus", reason: "writer is closed") }
        guard frame.codec == .opus, let samples = OpusPacket.sampleCount(frame.data) else {
            throw .unusable(
                format: "Ogg Opus",
                reason: "not a valid Opus packet (\(frame.codec.rawValue), \(frame.data.count) bytes)"
            )
        }
        if let expected = nextTimestamp {
            let gap = RTPTimestamp.distance(from: expected, to: frame.timestamp)
            guard gap >= 0 else {
                skippedFrames += 1
                return
            }
            if gap <= Self.maximumFilledGap {
                for (packet, fill) in Self.gapFillers(samples: Int(gap), stereo: head.channels == 2) {
                    try admit(packet, samples: fill, speech: false)
                }
            }
        }
        nextTimestamp = frame.timestamp &+ UInt32(samples)
        var speech = true
        if var trimming, let pcm {
            speech = trimming.detector.isSpeech(pcm)
            self.trimming = trimming
        }
        try admit(frame.data, samples: samples, speech: speech)
    }

    /// Packets that fill a gap of `samples` in the RTP timestamps (lost packets, DTX): Opus
    /// packets of one CELT frame of zero bytes (a TOC byte alone, RFC 6716 section 3.2.1),
    /// which decoders conceal like a lost frame. They are 20, 10, 5 and 2.5 ms long, so a gap
    /// is filled to the nearest 2.5 ms below it.
    static func gapFillers(samples: Int, stereo: Bool) -> [(packet: [UInt8], samples: Int)] {
        var fillers: [(packet: [UInt8], samples: Int)] = []
        var remaining = samples
        // CELT fullband, code 0: config 31 (20 ms), 30 (10 ms), 29 (5 ms), 28 (2.5 ms).
        for (config, length) in [(31, 960), (30, 480), (29, 240), (28, 120)] {
            while remaining >= length {
                fillers.append(([UInt8(config << 3) | (stereo ? 0x04 : 0)], length))
                remaining -= length
            }
        }
        return fillers
    }

    private func admit(_ packet: [UInt8], samples: Int, speech: Bool) throws(MediaFileError) {
        guard var trimming else { return try append(packet, samples: samples) }
        let released = trimming.gate.admit(packet, samples: samples, isSpeech: speech)
        self.trimming = trimming
        guard trimming.gate.hasStarted else { return }
        if speech || heldSilenceSamples > Self.maximumHeldSilence {
            for held in heldSilence { try append(held.packet, samples: held.samples) }
            heldSilence = []
            heldSilenceSamples = 0
        }
        if speech {
            for packet in released { try append(packet, samples: OpusPacket.sampleCount(packet) ?? 0) }
        } else {
            heldSilence.append((packet, samples))
            heldSilenceSamples += samples
        }
    }

    /// Writes the last page (end of stream) and closes the file.
    public func close() throws(MediaFileError) {
        guard file.isOpen else { return }
        if let trimming {
            var kept = 0
            for held in heldSilence where kept < trimming.settings.postRollMilliseconds * AudioFrame.sampleRate / 1000 {
                try append(held.packet, samples: held.samples)
                kept += held.samples
            }
            heldSilence = []
        }
        try writePage(packets: pagePackets, flags: .endOfStream, granule: granule)
        pagePackets = []
        try file.close()
    }

    deinit { try? close() }

    private func append(_ packet: [UInt8], samples: Int) throws(MediaFileError) {
        let segments = packet.count / 255 + 1
        if !pagePackets.isEmpty, granule - pageStartGranule >= Int64(pageSamples) || pageSegments + segments > 255 {
            try writePage(packets: pagePackets, flags: [], granule: granule)
            pagePackets = []
            pageSegments = 0
            pageStartGranule = granule
        }
        pagePackets.append(packet)
        pageSegments += segments
        granule += Int64(samples)
    }

    private func writePage(packets: [[UInt8]], flags: OggPage.Flags, granule: Int64) throws(MediaFileError) {
        let page = OggPage(
            flags: flags,
            granulePosition: packets.isEmpty ? -1 : granule,
            serialNumber: serialNumber,
            sequenceNumber: sequenceNumber,
            segmentTable: packets.flatMap { OggPage.lacing(forPacketOfLength: $0.count) },
            body: packets.flatMap { $0 }
        )
        try file.append(page.serialized)
        sequenceNumber += 1
    }
}
