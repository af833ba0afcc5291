import ArgumentParser
import SwiftRTC

/// `callbot info`: the SwiftRTC version and the C libraries it runs on.
struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print SwiftRTC's version and the versions of the C libraries underneath."
    )

    @OptionGroup var global: GlobalOptions

    func run() throws {
        global.apply()
        print("SwiftRTC \(SwiftRTCInfo.version)")
        for line in SwiftRTCInfo.libraryVersions { print("  \(line)") }
    }
}
