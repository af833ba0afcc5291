import Foundation
import SwiftRTCRTP

@testable import SwiftRTCPeer

#if canImport(Glibc)
import Glibc
#endif

/// A dishonest peer of our own: a ``LoopbackCall`` whose offerer completed ICE and DTLS
/// honestly and then writes whatever a test gives it, as RTP or RTCP protected with its real
/// SRTP keys, to the answerer (the victim). Beside it runs an honest call in the same process,
/// whose decoding must go on whatever the hostile one sends.
struct HostilePeer {
    let call: LoopbackCall
    let honest: LoopbackCall
    let transport: PeerTransport
    /// The victim's sending SSRCs (audio, video), for feedback aimed at its senders.
    let victimSenders: [UInt32]
    private let buffer: UnsafeMutableRawBufferPointer

    var victim: PeerConnection { call.answerer }

    /// Starts the hostile call and the honest one; nil if either did not connect.
    static func start() async throws -> HostilePeer? {
        let call = try await LoopbackCall.start()
        let honest = try await LoopbackCall.start()
        guard call.connectedAfter != nil, honest.connectedAfter != nil, await call.waitForMedia(),
            await honest.waitForMedia(),
            let transport = await call.offerer.transport
        else {
            await call.close()
            await honest.close()
            return nil
        }
        let senders = await call.answerer.transceiverList.map(\.sender.ssrc)
        return HostilePeer(
            call: call,
            honest: honest,
            transport: transport,
            victimSenders: senders,
            buffer: .allocate(byteCount: 2048, alignment: 16)
        )
    }

    /// Sends `bytes` as one SRTP packet; false if it did not go out.
    @discardableResult
    func sendRTP(_ bytes: [UInt8]) -> Bool {
        UnsafeMutableRawBufferPointer(rebasing: buffer[..<bytes.count]).copyBytes(from: bytes)
        return transport.sendRTP(buffer, length: bytes.count)
    }

    /// Sends `bytes` as one SRTCP packet; false if it did not go out.
    @discardableResult
    func sendRTCP(_ bytes: [UInt8]) -> Bool {
        UnsafeMutableRawBufferPointer(rebasing: buffer[..<bytes.count]).copyBytes(from: bytes)
        return transport.sendRTCP(buffer, length: bytes.count)
    }

    /// Sends the RTCP packets as one compound packet.
    @discardableResult
    func sendRTCP(_ packets: [RTCPPacket]) -> Bool {
        guard let length = try? RTCPPacket.writeCompound(packets, into: buffer) else { return false }
        return transport.sendRTCP(buffer, length: length)
    }

    /// An RTP packet (no extensions) with `payload`.
    static func rtp(
        payloadType: UInt8,
        sequence: UInt16,
        timestamp: UInt32,
        ssrc: UInt32,
        marker: Bool = true,
        payload: [UInt8]
    ) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 12 + payload.count)
        let length = bytes.withUnsafeMutableBytes { raw -> Int in
            guard
                var writer = try? RTPPacketWriter(
                    into: raw,
                    header: RTPHeader(
                        marker: marker,
                        payloadType: payloadType,
                        sequenceNumber: sequence,
                        timestamp: timestamp,
                        ssrc: ssrc
                    )
                ),
                (try? payload.withUnsafeBytes({ try writer.appendPayload($0) })) != nil
            else { return 0 }
            return (try? writer.finish()) ?? 0
        }
        return Array(bytes[..<length])
    }

    /// The victim's transport stats.
    func victimTransportStats() async -> [String: StatsReport.Value] {
        await victim.stats().all(.transport).first?.values ?? [:]
    }

    /// Video frames the honest call's answerer decoded so far.
    var honestVideoFrames: Int { honest.answererMedia.values.withLock { $0.videoFrames } }

    /// Waits until the honest call decoded `frames` more video frames than `since`.
    func honestKeepsDecoding(since: Int, frames: Int = 10) async -> Bool {
        await LoopbackCall.wait(timeout: .seconds(15)) { honestVideoFrames >= since + frames }
    }

    func close() async {
        await call.close()
        await honest.close()
        buffer.deallocate()
    }
}

/// What the process used, measured (getrusage and /proc), for the bounds the hostile-peer
/// tests state.
struct ProcessFootprint {
    /// CPU time (user and system) of the whole process, in seconds.
    var cpuSeconds: Double
    /// Resident memory (`/proc/self/statm`), in bytes.
    var residentBytes: Int

    static func now() -> ProcessFootprint {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        let cpu =
            Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(
                usage.ru_utime.tv_usec + usage.ru_stime.tv_usec
            ) / 1e6
        var resident = 0
        if let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) {
            let fields = text.split(separator: " ")
            if fields.count > 1, let pages = Int(fields[1]) { resident = pages * Int(sysconf(Int32(_SC_PAGESIZE))) }
        }
        return ProcessFootprint(cpuSeconds: cpu, residentBytes: resident)
    }

    /// CPU seconds and resident megabytes added since `start`.
    func since(_ start: ProcessFootprint) -> (cpuSeconds: Double, residentMegabytes: Double) {
        (cpuSeconds - start.cpuSeconds, Double(residentBytes - start.residentBytes) / 1_048_576)
    }
}
