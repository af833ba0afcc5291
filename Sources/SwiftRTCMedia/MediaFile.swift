import Foundation

/// Whole-file loading for the WAV and raw PCM readers, which convert the file's audio to
/// 48 kHz in one go (audio files a bot plays are small); the frame-by-frame formats read
/// through ``MediaInputFile``, and writers write through ``MediaOutputFile``.
enum MediaFile {
    static func readAll(_ path: String) throws(MediaFileError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .io(path: path, operation: "read", errno: errno == 0 ? ENOENT : errno)
        }
        return [UInt8](data)
    }
}
