import Glibc
import SwiftRTCCongestion
import SwiftRTCCore
import SwiftRTCDTLS
import SwiftRTCICE
import SwiftRTCRTP
import SwiftRTCSRTP
import Synchronization

// Receive, on the transport thread: DTLS handed on, SRTP and SRTCP unprotected in place, RTP routed to its receiver, RTCP to the senders and the congestion controller.
extension PeerTransport {
    func receiveDTLS(_ bytes: UnsafeRawBufferPointer) {
        dtls.withLock { $0 }?.receive(bytes)
    }

    /// Copies the datagram into the reusable buffer and unprotects it in place. Before SRTP is
    /// keyed the datagram waits in ``EarlyDatagrams`` instead (nil now); the first datagram
    /// after keying first hands on those that waited.
    func unprotect(_ bytes: UnsafeRawBufferPointer, rtcp: Bool, arrival: Double) -> UnsafeRawBufferPointer? {
        guard bytes.count <= receiveBuffer.count else { return nil }
        guard let session = srtp.withLock({ $0 }) else {
            if !closed.load(ordering: .relaxed) {
                let before = early.pointee.dropped
                early.pointee.store(bytes, rtcp: rtcp, arrival: arrival)
                if early.pointee.dropped != before { counters.withLock { $0.earlyDropped += 1 } }
            }
            return nil
        }
        if !early.pointee.isEmpty {
            // With the times they arrived at: the jitter estimate sees the path, not the wait.
            early.pointee.take().drain { datagram, isRTCP, arrival in
                isRTCP ? receiveRTCP(datagram, arrival: arrival) : handleRTP(datagram, arrival: arrival)
            }
        }
        UnsafeMutableRawBufferPointer(rebasing: receiveBuffer[..<bytes.count]).copyMemory(from: bytes)
        counters.withLock {
            $0.packetsReceived += 1
            $0.bytesReceived += Int64(bytes.count)
        }
        let length =
            rtcp
            ? try? session.unprotectRTCP(receiveBuffer, length: bytes.count)
            : try? session.unprotectRTP(receiveBuffer, length: bytes.count)
        guard let length else { return nil }
        agent.consentProved()
        if !peerHasKeys.load(ordering: .relaxed) {
            peerHasKeys.store(true, ordering: .relaxed)
            dtls.withLock { $0 }?.confirmPeerHasKeys()
        }
        return UnsafeRawBufferPointer(rebasing: receiveBuffer[..<length])
    }

    func receiveRTP(_ bytes: UnsafeRawBufferPointer) {
        handleRTP(bytes, arrival: NTPTime.monotonicSeconds())
    }

    func handleRTP(_ bytes: UnsafeRawBufferPointer, arrival: Double) {
        guard let plain = unprotect(bytes, rtcp: false, arrival: arrival) else { return }
        guard let packet = try? RTPPacket(parsing: plain) else {
            counters.withLock { $0.malformed += 1 }
            return
        }
        congestion.received(packet, arrival: arrival)
        let receiver: RTPReceiver? = routes.withLock { routes in
            if let known = routes.bySSRC[packet.ssrc] {
                if let index = routes.learned.index(forKey: packet.ssrc) { routes.learned.values[index] = arrival }
                return known
            }
            if routes.ignored.contains(packet.ssrc) { return nil }
            // A new SSRC: by its MID header extension (RFC 8843 §9.2), else its payload type.
            var found: RTPReceiver?
            if let id = routes.midExtensionID, let data = packet.extensionData(id: id) {
                found = routes.byMid[String(decoding: data, as: UTF8.self)]
            }
            found = found ?? routes.byPayloadType[packet.payloadType]
            guard let found, let parameters = found.parameters else { return nil }
            if parameters.payloadType == packet.payloadType || parameters.recovery.rtxPayloadType == packet.payloadType
            {
                if routes.bySSRC.count >= RemoteInputLimits.maxRemoteSSRCsPerTransport {
                    limitHits.hit(.remoteSSRCs)
                    // At most 32 to look through; none learned (all from the SDP): dropped.
                    guard let silent = routes.learned.min(by: { $0.value < $1.value })?.key else { return nil }
                    routes.learned[silent] = nil
                    routes.bySSRC[silent] = nil
                }
                routes.bySSRC[packet.ssrc] = found
                routes.learned[packet.ssrc] = arrival
                return found
            }
            if routes.ignored.count < Routes.maximumIgnored { routes.ignored.insert(packet.ssrc) }
            return nil
        }
        guard let receiver else {
            counters.withLock { $0.unroutable += 1 }
            return
        }
        receiver.receive(packet, arrival: arrival)
    }

    func receiveRTCP(_ bytes: UnsafeRawBufferPointer, arrival: Double) {
        // A budget per second before any work on it: a peer cannot make this thread spend
        // more on RTCP than the budget's worth of feedback, whatever it sends.
        let withinBudget = counters.withLock { counters in
            if arrival - counters.rtcpWindowStart >= 1 || arrival < counters.rtcpWindowStart {
                counters.rtcpWindowStart = arrival
                counters.rtcpInWindow = 0
            }
            counters.rtcpInWindow += 1
            guard counters.rtcpInWindow <= RemoteInputLimits.maxRTCPPacketsPerSecond else {
                counters.rtcpOverBudget += 1
                return false
            }
            return true
        }
        guard withinBudget else {
            limitHits.hit(.rtcpRate)
            return
        }
        guard let plain = unprotect(bytes, rtcp: true, arrival: arrival) else { return }
        counters.withLock { $0.rtcpPacketsReceived += 1 }
        var iterator = RTCPCompoundIterator(plain)
        while true {
            let view: RTCPPacketView?
            do { view = try iterator.next() } catch {
                counters.withLock { $0.malformed += 1 }
                break
            }
            guard let view else { break }
            guard let packet = try? RTCPPacket(view) else {
                counters.withLock { $0.malformed += 1 }
                continue
            }
            switch packet {
            case .senderReport(let report):
                routes.withLock { $0.bySSRC[report.ssrc] }?.receivedSenderReport(
                    ntp: report.ntpTimestamp,
                    arrival: arrival
                )
                handle(report.reports)
            case .receiverReport(let report):
                handle(report.reports)
            case .pictureLossIndication(let pli):
                routes.withLock { $0.senders[pli.mediaSSRC] }?.receivedKeyframeRequest(fir: nil)
            case .fullIntraRequest(let fir):
                for entry in fir.entries {
                    routes.withLock { $0.senders[entry.ssrc] }?.receivedKeyframeRequest(fir: entry.sequenceNumber)
                }
            case .transportFeedback(let feedback):
                congestion.received(feedback)
            case .remb(let remb):
                congestion.received(remb)
            case .nack(let nack):
                routes.withLock { $0.senders[nack.mediaSSRC] }?.receivedNACK(nack, transport: self, now: arrival)
            default:
                break
            }
        }
    }

    /// Report blocks about our streams: loss, jitter, and the round trip (RFC 3550 §6.4.1:
    /// RTT = A - LSR - DLSR in 1/65536 s).
    func handle(_ blocks: [ReceptionReport]) {
        let now = NTPTime.middle(NTPTime.now())
        for block in blocks {
            guard let sender = routes.withLock({ $0.senders[block.ssrc] }) else { continue }
            // A peer's LSR and DLSR can make any round trip up: longer than the limit is not used.
            var rtt = block.roundTripTime(arrivedAt: now)
            if let seconds = rtt, seconds > RemoteInputLimits.maxRoundTripTime {
                rtt = nil
                limitHits.hit(.roundTripTime)
            }
            let clockRate = Double(sender.parameters?.clockRate ?? 90_000)
            sender.counters.withLock {
                if let rtt {
                    $0.remoteRoundTripTime = rtt
                    $0.remoteTotalRoundTripTime += rtt
                    $0.remoteRoundTripMeasurements += 1
                }
                $0.remotePacketsLost = Int64(block.cumulativeLost)
                $0.remoteFractionLost = Double(block.fractionLost) / 256
                $0.remoteJitter = Double(block.jitter) / clockRate
            }
            congestion.receivedReport(fractionLost: Double(block.fractionLost) / 256, roundTripTime: rtt)
            if let rtt {
                counters.withLock {
                    $0.lastRoundTripTime = rtt
                    $0.totalRoundTripTime += rtt
                    $0.roundTripMeasurements += 1
                }
            }
        }
    }
}
