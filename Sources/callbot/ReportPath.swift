import ArgumentParser
import Foundation

/// The `--report` option's check, for every command that writes a JSON report.
enum ReportPath {
    /// Throws unless the folder `path` would be written into exists (nil passes): a run that
    /// ends with nowhere to write its report would lose it.
    static func check(_ path: String?, _ option: String = "--report") throws {
        guard let path else { return }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("\(option) \(path): the folder \(directory) does not exist")
        }
    }
}
