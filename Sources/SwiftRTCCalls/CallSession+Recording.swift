import Foundation
import SwiftRTCSignaling

extension CallSession {
    /// Starts recording the call into `directory` (see ``RecordingOption`` for what goes into
    /// which files) and tells the other participants (their
    /// ``CallSessionEvent/remoteRecordingChanged(user:active:option:)``).
    public func startRecording(_ option: RecordingOption, directory: URL) async throws(CallError) {
        guard state != .closed, recorder == nil else { throw .invalidState(operation: "startRecording", state: state) }
        let recorder = CallRecorder(option: option, directory: directory, sessionID: id, localUser: currentUser,
                                    localAudio: localAudioTrack, videoCall: conferenceType == .video)
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
