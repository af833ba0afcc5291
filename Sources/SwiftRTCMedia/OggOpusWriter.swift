import SwiftRTCCodecs
import SwiftRTCRTP

/// Records Opus ``EncodedFrame``s to an Ogg Opus file (RFC 7845): a first page holding only
/// `OpusHead`, a page holding `OpusTags`, then audio pages of up to `pageDuration`, each
/// with the granule position (48 kHz samples, pre-skip included) after its last packet and a
/// CRC; the last page carries end-of-stream. Packets are laid end to end by their TOC
/// durations (a gap in RTP timestamps, e.g. from loss or DTX, is not kept as silence).
///
/// Crash-safe as far as Ogg goes: pages are written whole as they fill, so a killed process
/// leaves a file that plays up to the last page (at most `pageDuration` is lost).
///
/// With ``SilenceTrimming``, pass each packet's decoded PCM to ``write(_:pcm:)``: a
/// ``VoiceActivityDetector`` decides speech, leading silence is not written, and trailing
/// silence (held in memory, up to `maximumHeldSilence`, beyond which it is written as inner
/// silence) is dropped on close.
public final class OggOpusWriter {
    public let head: OpusHead
    private let file: MediaOutputFile
    private let serialNumber: UInt32
    private let pageSamples: Int
    private var sequenceNumber: UInt32 = 0
    private var granule: Int64
    private var pagePackets: [[UInt8]] = []
    private var pageSegments = 0
    private var pageStartGranule: Int64
    private var trimming: (settings: SilenceTrimming, detector: VoiceActivityDetector, gate: LeadingSilenceGate<[UInt8]>)?
    private var heldSilence: [(packet: [UInt8], samples: Int)] = []
    private var heldSilenceSamples = 0
    private static let maximumHeldSilence = 30 * AudioFrame.sampleRate

    /// Creates (truncating) `path` and writes the two header pages.
    public init(path: String, head: OpusHead, trimming: SilenceTrimming? = nil, pageDuration: Duration = .milliseconds(500), vendor: String = "SwiftRTC") throws(MediaFileError) {
        guard head.channels == 1 || head.channels == 2 else { throw .unusable(format: "Ogg Opus", reason: "only mono or stereo, got \(head.channels) channels") }
        self.head = head
        file = try MediaOutputFile(path: path)
        serialNumber = UInt32.random(in: 1...UInt32.max)
        pageSamples = max(1, Int(pageDuration.components.seconds) * AudioFrame.sampleRate + Int(pageDuration.components.attoseconds / 20_833_333_333_333))
        granule = 0
        pageStartGranule = 0
        if let trimming {
            self.trimming = (trimming, VoiceActivityDetector(), LeadingSilenceGate(preRollSamples: trimming.preRollMilliseconds * AudioFrame.sampleRate / 1000))
        }
        var tags = [UInt8]()
        tags.appendASCII("OpusTags"); tags.appendLE32(UInt32(vendor.utf8.count)); tags.appendASCII(vendor); tags.appendLE32(0)
        try writePage(packets: [head.packet], flags: .beginningOfStream, granule: 0)
        try writePage(packets: [tags], flags: [], granule: 0)
    }

    /// Appends an Opus packet. With trimming on, `pcm` (the packet's decoded audio) decides
    /// whether it is speech; without `pcm` it counts as speech.
    public func write(_ frame: EncodedFrame, pcm: AudioFrame? = nil) throws(MediaFileError) {
        guard file.isOpen else { throw .unusable(format: "Ogg Opus", reason: "writer is closed") }
        guard frame.codec == .opus, let samples = OpusPacket.sampleCount(frame.data) else {
            throw .unusable(format: "Ogg Opus", reason: "not a valid Opus packet (\(frame.codec.rawValue), \(frame.data.count) bytes)")
        }
        guard var trimming else { return try append(frame.data, samples: samples) }
        let speech = pcm.map { trimming.detector.isSpeech($0) } ?? true
        let released = trimming.gate.admit(frame.data, samples: samples, isSpeech: speech)
        self.trimming = trimming
        guard trimming.gate.hasStarted else { return }
        if speech || heldSilenceSamples > Self.maximumHeldSilence {
            for held in heldSilence { try append(held.packet, samples: held.samples) }
            heldSilence = []; heldSilenceSamples = 0
        }
        if speech {
            for packet in released { try append(packet, samples: OpusPacket.sampleCount(packet) ?? 0) }
        } else {
            heldSilence.append((frame.data, samples)); heldSilenceSamples += samples
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
            pagePackets = []; pageSegments = 0; pageStartGranule = granule
        }
        pagePackets.append(packet)
        pageSegments += segments
        granule += Int64(samples)
    }

    private func writePage(packets: [[UInt8]], flags: OggPage.Flags, granule: Int64) throws(MediaFileError) {
        let page = OggPage(flags: flags, granulePosition: packets.isEmpty ? -1 : granule, serialNumber: serialNumber, sequenceNumber: sequenceNumber,
                           segmentTable: packets.flatMap { OggPage.lacing(forPacketOfLength: $0.count) }, body: packets.flatMap { $0 })
        try file.append(page.serialized)
        sequenceNumber += 1
    }
}
