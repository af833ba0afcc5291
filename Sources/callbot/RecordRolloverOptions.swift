import ArgumentParser
import SwiftRTCPeer

/// `--record-rollover-seconds S --record-rollover-megabytes MB`: a long recording goes on in
/// a new file (`NAME-part2.webm`, ...) after S seconds or at MB megabytes of media, whichever
/// comes first, so that a day-long recording is not one file a crash could damage whole.
struct RecordRolloverOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Go on in a new file (NAME-part2.webm, ...) after S seconds of a --record recording (a file with video ends before a keyframe).",
            valueName: "S"
        )
    )
    var recordRolloverSeconds: Int?

    @Option(
        help: ArgumentHelp("Go on in a new file once a --record file holds MB megabytes of media.", valueName: "MB")
    )
    var recordRolloverMegabytes: Int?

    /// The rollover asked for; nil without either option.
    var rollover: MediaRecorder.Rollover? {
        guard recordRolloverSeconds != nil || recordRolloverMegabytes != nil else { return nil }
        return MediaRecorder.Rollover(
            duration: recordRolloverSeconds.map { .seconds($0) },
            bytes: recordRolloverMegabytes.map { $0 * 1_000_000 }
        )
    }

    /// Checks the ranges, and that there is a recording (`record`: the `--record` folder) to split.
    func check(record: String?) throws {
        if rollover != nil && record == nil {
            throw ValidationError(
                "--record-rollover-seconds and --record-rollover-megabytes split recordings: add --record DIR"
            )
        }
        guard (1...7 * 86_400).contains(recordRolloverSeconds ?? 1) else {
            throw ValidationError("--record-rollover-seconds takes 1 to 604800 (a week)")
        }
        guard (1...1_000_000).contains(recordRolloverMegabytes ?? 1) else {
            throw ValidationError("--record-rollover-megabytes takes 1 to 1000000")
        }
    }
}
