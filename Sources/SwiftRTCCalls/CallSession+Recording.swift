import Foundation
import SwiftRTCMedia
import SwiftRTCPeer
import SwiftRTCSignaling

extension CallSession {
    /// Starts recording the call into `directory`, which must exist, and tells the other
    /// participants (their ``CallSessionEvent/remoteRecordingChanged(user:active:option:)``).
    ///
    /// ``RecordingOption`` says what goes into which files. They are named
    /// `call-YYYYMMDD-HHMMSS-<user>.webm` or `.ogg` (the UTC time the recording started on this
    /// side, the user id with only ASCII letters, digits, `-` and `_` kept: nothing else from
    /// the network, never the session id) and lie directly in `directory`; an existing file
    /// is never replaced (the next is `...-2.ogg`), so recording again in the same call keeps
    /// the first recording. With `trimming`, leading and trailing silence is left out of each
    /// file (voice activity on its audio). With `rollover`, each file goes on in a new one
    /// (`...-part2.webm`, ...) at the size or after the time chosen, so that a day-long
    /// recording is a series of files of which a crash can damage only the last.
    public func startRecording(
        _ option: RecordingOption,
        directory: URL,
        trimming: SilenceTrimming? = nil,
        rollover: MediaRecorder.Rollover? = nil
    ) async throws(CallError) {
        guard state != .closed, recorder == nil else { throw .invalidState(operation: "startRecording", state: state) }
        let folder: RecordingFolder
        do { folder = try RecordingFolder(directory) } catch { throw .recording(error.description) }
        let recorder = CallRecorder(
            option: option,
            folder: folder,
            name: CallRecorder.recordingName(startedAt: Date()),
            localUser: currentUser,
            localAudio: localAudioTrack,
            videoCall: conferenceType == .video,
            trimming: trimming,
            rollover: rollover
        ) { [weak self] reason in
            Task { await self?.emit(.recordingFailed(reason: reason)) }
        }
        self.recorder = recorder
        for link in links.values {
            for receiver in link.receivers { recorder.add(user: link.user, receiver: receiver) }
        }
        await message(to: connectedParticipants, .recording(.init(active: true, option: option)))
    }

    /// Whether this side is recording, and how.
    public var recordingOption: RecordingOption? { recorder?.option }

    /// Stops recording, tells the others, and returns the files written since the start (or
    /// since participants left: theirs are in ``recordedFiles`` already).
    @discardableResult
    public func stopRecording() async -> [URL] {
        guard let recorder else { return [] }
        self.recorder = nil
        await message(to: connectedParticipants, .recording(.init(active: false, option: recorder.option)))
        let files = await recorder.finish()
        recordedFiles += files
        return files
    }
}
