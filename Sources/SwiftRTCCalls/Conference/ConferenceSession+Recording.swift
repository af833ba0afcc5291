import Foundation
import SwiftRTCPeer

/// Recording each subscribed publisher into a WebM file of its own (``ConferenceSession/Options/recording``):
/// a publisher's recording starts once a track of each kind it publishes has arrived, and
/// ends a moment after it leaves (what it sent played out) or when the session does.
extension ConferenceSession {
    /// A subscribed publisher's track arrived: kept for its recording, which starts once
    /// every kind it publishes is here.
    func keepForRecording(_ track: MediaStreamTrack, of publisher: Int64) {
        guard options.recording != nil, recorders[publisher] == nil else { return }
        var tracks = arrivedTracks[publisher, default: []]
        guard !tracks.contains(where: { $0.kind == track.kind }) else { return }
        tracks.append(track)
        arrivedTracks[publisher] = tracks
        let kinds = Set(publishers[publisher]?.streamKinds.filter { $0 == "audio" || $0 == "video" } ?? [])
        if tracks.count >= max(1, kinds.count) { startRecording(publisher) }
    }

    func startRecording(_ publisher: Int64) {
        guard let folder = options.recording, let tracks = arrivedTracks.removeValue(forKey: publisher) else { return }
        do {
            let base = RecordingFolder.safeName(displays[publisher] ?? "publisher") + "-\(publisher)"
            let file = try folder.createFile(base: base, extension: "webm")
            recorders[publisher] = try MediaRecorder(tracks: tracks, reservedFile: file)
        } catch {
            emit(.recordingFailed(publisher: publisher, reason: "\(error)"))
        }
    }

    /// How long a publisher's recording goes on after it left: what its streams delivered
    /// before is still in the receivers' playout buffers (at most 0.5 s, and a lost packet's
    /// wait of 0.25 s), video longer than audio, and goes into the file. Cut at once, the
    /// last half second of video was missing.
    static let recordingDrain = Duration.seconds(1)

    /// A publisher left: its recording ends once what it sent has been played out
    /// (``recordingDrain``), or at once when another publisher takes its streams.
    func finishRecording(_ publisher: Int64) {
        guard recorders[publisher] != nil || arrivedTracks[publisher] != nil else { return }
        // Not kept: it ends in a second, and a session that ends first stops every recording.
        Task { [weak self] in
            try? await Task.sleep(for: Self.recordingDrain)
            await self?.stopRecording(publisher)
        }
    }

    /// Ends a publisher's recording (it left, or the session ends): its files are complete.
    func stopRecording(_ publisher: Int64) async {
        arrivedTracks[publisher] = nil
        guard let recorder = recorders.removeValue(forKey: publisher) else { return }
        do {
            emit(.recordingFinished(publisher: publisher, files: try await recorder.stop()))
        } catch {
            emit(.recordingFailed(publisher: publisher, reason: "\(error)"))
        }
    }

    func stopAllRecordings() async {
        for publisher in recorders.keys.sorted() { await stopRecording(publisher) }
        arrivedTracks = [:]
    }
}
