import ArgumentParser
import SwiftRTC

/// `--max-audio-kbps`, `--max-video-kbps`: bandwidth caps as the call SDKs offer them. The
/// encoders stay under them whatever the bandwidth estimate, and the local description asks
/// the peer for no more (`b=AS`, `b=TIAS`).
struct BandwidthOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The most audio may use, in kbit/s (6 to 510).", valueName: "KBPS"))
    var maxAudioKbps: Int?

    @Option(help: ArgumentHelp("The most video may use, in kbit/s (30 to 50000).", valueName: "KBPS"))
    var maxVideoKbps: Int?

    /// The caps Opus and VP8 can honour.
    static let audioRange = 6...510
    static let videoRange = 30...50_000

    func validate() throws {
        if let maxAudioKbps, !Self.audioRange.contains(maxAudioKbps) {
            throw ValidationError("--max-audio-kbps \(maxAudioKbps) is out of range: Opus takes 6 to 510 kbit/s")
        }
        if let maxVideoKbps, !Self.videoRange.contains(maxVideoKbps) {
            throw ValidationError("--max-video-kbps \(maxVideoKbps) is out of range: give 30 to 50000 kbit/s")
        }
    }

    /// `configuration` with the caps.
    func apply(to configuration: PeerConnection.Configuration) -> PeerConnection.Configuration {
        var capped = configuration
        capped.maxAudioBitrateKbps = maxAudioKbps
        capped.maxVideoBitrateKbps = maxVideoKbps
        return capped
    }
}
