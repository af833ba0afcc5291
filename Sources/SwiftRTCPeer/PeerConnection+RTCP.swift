import SwiftRTCCore
import SwiftRTCRTP

extension PeerConnection {
    /// RTCP interval (RFC 3550 §6.2 with the WebRTC minimum): reports about every second.
    static let reportInterval = Duration.seconds(1)

    /// The RTCP task: every second an SR per sending stream (or one RR) with report blocks
    /// for every received stream and an SDES CNAME. (NACK, PLI, FIR and congestion feedback:
    /// ``FeedbackTicker``.)
    func runRTCP() async {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1500, alignment: 16)
        defer { buffer.deallocate() }
        while !Task.isCancelled, !isClosed {
            try? await Task.sleep(for: Self.reportInterval)
            guard let transport, dtlsState == .connected else { continue }
            if let length = try? RTCPPacket.writeCompound(makeReports(now: NTPTime.monotonicSeconds()), into: buffer) {
                _ = transport.sendRTCP(buffer, length: length)
            }
        }
    }

    /// One compound packet: SR for each sending stream (the first carries the report
    /// blocks) or an RR, then SDES with the CNAME of every sending SSRC.
    func makeReports(now: Double) -> [RTCPPacket] {
        var blocks: [ReceptionReport] = []
        for transceiver in transceiverList {
            if let block = transceiver.receiver.makeReceptionReport(now: now) { blocks.append(block) }
        }
        var packets: [RTCPPacket] = []
        let ntp = NTPTime.now()
        var chunks: [SourceDescription.Chunk] = []
        for sender in transceiverList.flatMap(\.sender.simulcastSenders) {
            guard let parameters = sender.parameters else { continue }
            guard
                let report = sender.counters.withLock({ $0 }).senderReport(
                    ssrc: sender.ssrc,
                    clockRate: parameters.clockRate,
                    ntp: ntp,
                    now: now,
                    reports: packets.isEmpty ? Array(blocks.prefix(31)) : []
                )
            else { continue }
            packets.append(.senderReport(report))
            chunks.append(
                SourceDescription.Chunk(
                    source: sender.ssrc,
                    items: [SourceDescription.Item(type: SourceDescription.Item.cname, text: cname)]
                )
            )
        }
        if packets.isEmpty {
            let ssrc = transceiverList.first?.sender.ssrc ?? 1
            packets.append(.receiverReport(ReceiverReport(ssrc: ssrc, reports: Array(blocks.prefix(31)))))
            chunks.append(
                SourceDescription.Chunk(
                    source: ssrc,
                    items: [SourceDescription.Item(type: SourceDescription.Item.cname, text: cname)]
                )
            )
        }
        packets.append(.sourceDescription(SourceDescription(chunks: chunks)))
        return packets
    }
}
