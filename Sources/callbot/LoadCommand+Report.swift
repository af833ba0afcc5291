import ArgumentParser
import Foundation
import SwiftRTC

extension LoadCommand {
    /// The report of a run: what the calls measured (`results`), what the process cost, and
    /// the run's settings.
    func makeReport(
        results: [LoadCallResult],
        bots: Int,
        servers: Int,
        baseline: Int?,
        peakOpenFiles: () -> Int,
        openFileLimit: Int,
        started: ContinuousClock.Instant
    ) -> LoadReport {
        var report = LoadReport()
        report.bots = bots
        report.groupSize = groupSize
        report.servers = servers
        report.audioOnly = media == .audioOnly
        report.callsAttempted = results.count
        report.callsConnected = results.count(where: \.connected)
        report.callsFailed = report.callsAttempted - report.callsConnected
        report.callsDecodedAudio = results.count(where: \.decodedAudio)
        for result in results { if let failure = result.failure { report.failures[failure, default: 0] += 1 } }
        report.loginMs = LoadReport.Percentiles(results.flatMap(\.loginMs))
        report.setupMs = LoadReport.Percentiles(results.compactMap(\.setupMs))
        report.packetsSent = results.reduce(0) { $0 + $1.packetsSent }
        report.packetsReceived = results.reduce(0) { $0 + $1.packetsReceived }
        report.packetsLost = results.reduce(0) { $0 + $1.packetsLost }
        let expected = report.packetsReceived + report.packetsLost
        report.lossFraction = expected > 0 ? Double(report.packetsLost) / Double(expected) : nil
        report.audioFramesDecoded = results.reduce(0) { $0 + $1.audioFramesDecoded }
        report.videoFramesDecoded = results.reduce(0) { $0 + $1.videoFramesDecoded }
        report.cpuSeconds = ProcessResources.cpuSeconds()
        let calls = Double(report.callsConnected)
        report.cpuSecondsPerCall = calls > 0 ? report.cpuSeconds / calls : nil
        let megabyte = 1_048_576.0
        let peak = ProcessResources.peakResidentBytes()
        report.peakRssMB = peak.map { Double($0) / megabyte }
        report.baselineRssMB = baseline.map { Double($0) / megabyte }
        if let peak, let baseline, calls > 0 {
            report.rssMBPerCall = Double(max(0, peak - baseline)) / megabyte / calls
        }
        report.peakOpenFiles = peakOpenFiles()
        report.openFileLimit = openFileLimit
        report.callDurationS = duration
        report.rampS = ramp
        report.wallS = LoadCall.milliseconds(ContinuousClock.now - started) / 1000
        return report
    }

    /// Prints the report's summary line, writes it to `--report` as JSON, and fails unless
    /// the run passed.
    func finish(_ report: LoadReport) throws {
        printLine(report.summary)
        if let path = self.report {
            do { try report.json().write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
                log("error: cannot write the report to \(path): \(error.localizedDescription)")
                throw ExitCode.failure
            }
        }
        guard report.passed else { throw ExitCode.failure }
    }
}
