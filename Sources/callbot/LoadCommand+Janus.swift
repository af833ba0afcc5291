import ArgumentParser
import Foundation
import SwiftRTC

extension LoadCommand {
    /// `--janus`: fills `room` with `bots` publishers, prints the report's line and writes it.
    func fill(room: Int64, of url: URL, bots: Int) async throws {
        let load = ConferenceLoad(
            url: url,
            room: room,
            bots: bots,
            video: media == .video,
            duration: Seconds.duration(duration),
            ramp: Seconds.duration(ramp),
            trust: try tls.trust()
        )
        let report = await load.run()
        let line = try report.line()
        printLine(line)
        if let path = self.report {
            do { try Data((line + "\n").utf8).write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
                log("error: cannot write the report to \(path): \(error.localizedDescription)")
                throw ExitCode.failure
            }
        }
        guard report.passed else { throw ExitCode.failure }
    }
}
