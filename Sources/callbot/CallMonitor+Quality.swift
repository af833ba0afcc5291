import SwiftRTC

extension CallMonitor {
    /// The call-quality figures of the bot report (its fields are listed in DESIGN.md, "Interop
    /// contract") from W3C stats: loss, repair (NACK, RTX, PLI/FIR, Opus FEC), freezes,
    /// concealment and jitter buffer delay. Each comes from the W3C member named below: `video`
    /// from the inbound (`videoIn`: what this side received and asked for) and outbound
    /// (`videoOut`: what the peer asked of this side) RTP stream stats; `concealment_rate` is
    /// `concealedSamples / totalSamplesReceived`, `jitter_buffer_ms` is
    /// `jitterBufferDelay / jitterBufferEmittedCount` in ms.
    static func fillQuality(
        _ report: inout BotReport,
        audioIn: StatsReport.Stats?,
        videoIn: StatsReport.Stats?,
        videoOut: StatsReport.Stats?
    ) {
        func int(_ stats: StatsReport.Stats?, _ name: String) -> Int? { stats?.number(name).map { Int($0) } }
        report.video.framesSent = int(videoOut, "framesSent")
        report.video.freezeMaxMs = videoIn?.number("maxFreezeDuration").map { Int(($0 * 1000).rounded()) }
        report.video.freezeCount = int(videoIn, "freezeCount")
        report.video.totalFreezesDurationMs = videoIn?.number("totalFreezesDuration").map { Int(($0 * 1000).rounded()) }
        report.video.packetsLost = int(videoIn, "packetsLost")
        report.video.nackSent = int(videoIn, "nackCount")
        report.video.nackReceived = int(videoOut, "nackCount")
        report.video.retransmittedPacketsSent = int(videoOut, "retransmittedPacketsSent")
        report.video.pliSent = int(videoIn, "pliCount")
        report.video.pliReceived = int(videoOut, "pliCount")
        report.video.firSent = int(videoIn, "firCount")
        report.video.firReceived = int(videoOut, "firCount")
        report.audio.packetsLost = int(audioIn, "packetsLost")
        report.audio.fecRecovered = int(audioIn, "fecPacketsReceived")
        if let samples = audioIn?.number("totalSamplesReceived"), samples > 0 {
            report.audio.concealmentRate = (audioIn?.number("concealedSamples") ?? 0) / samples
        }
        if let emitted = audioIn?.number("jitterBufferEmittedCount"), emitted > 0 {
            report.audio.jitterBufferMs = (audioIn?.number("jitterBufferDelay") ?? 0) / emitted * 1000
        }
    }
}
