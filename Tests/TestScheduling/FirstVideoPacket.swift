import Foundation

/// Whether the first video packet of the media file at `path` is a keyframe, as ffprobe reads
/// it: what a recording (or each part of one) must begin with to play on its own.
public func beginsWithKeyframe(_ path: String) async throws -> Bool {
    try await runToEnd(
        URL(fileURLWithPath: "/usr/bin/ffprobe"),
        [
            "-v", "error", "-select_streams", "v", "-read_intervals", "%+#1", "-show_entries", "packet=flags",
            "-of", "csv=p=0", path,
        ]
    ).stdout.hasPrefix("K")
}
