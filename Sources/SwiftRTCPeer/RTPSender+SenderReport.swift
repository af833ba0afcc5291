import SwiftRTCRTP

extension RTPSender.Counters {
    /// The RTCP sender report of the stream these counters count (RFC 3550 §6.4.1), made at
    /// wall-clock time `ntp` and monotonic time `now` (seconds); nil before its first packet.
    ///
    /// The RTP time is the last packet's timestamp advanced by the time since it was sent, at
    /// `clockRate`. Like the timestamps, the SR's packet and octet counts are 32 bits and wrap
    /// in a long call (the octet count after 4 GiB, some four hours of 2.5 Mbit/s video): they
    /// are the 64-bit counters modulo 2^32, as RFC 3550 has them.
    func senderReport(
        ssrc: UInt32,
        clockRate: UInt32,
        ntp: UInt64,
        now: Double,
        reports: [ReceptionReport]
    ) -> SenderReport? {
        guard packetsSent > 0, let sentAt = lastSendTime else { return nil }
        let elapsed = ((now - sentAt) * Double(clockRate)).rounded()
        return SenderReport(
            ssrc: ssrc,
            ntpTimestamp: ntp,
            rtpTimestamp: lastRTPTimestamp &+ UInt32(truncatingIfNeeded: Int64(exactly: elapsed) ?? 0),
            packetCount: UInt32(truncatingIfNeeded: packetsSent),
            octetCount: UInt32(truncatingIfNeeded: bytesSent),
            reports: reports
        )
    }
}
