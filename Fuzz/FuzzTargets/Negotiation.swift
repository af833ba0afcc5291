import Foundation
import SwiftRTCDTLS
import SwiftRTCICE
import SwiftRTCPeer
import SwiftRTCSDP

/// What every negotiation run shares: a certificate made once (generating one per run would
/// be most of the work), and transport threads of the fuzzer's own. Host candidates are
/// gathered on loopback only, and there are no ICE servers: nothing leaves the machine.
enum NegotiationSetup {
    static let threads = TransportThreadPool(threadCount: 1, name: "fuzz-ice")
    static let certificate: DtlsCertificate = {
        do { return try DtlsCertificate.generate(commonName: "fuzz") } catch {
            fatalError("cannot make a certificate: \(error)")
        }
    }()
    static var configuration: PeerConnection.Configuration {
        PeerConnection.Configuration(
            certificate: certificate,
            gatherAddresses: ["127.0.0.1"],
            transportThreads: threads
        )
    }

    /// The input without its `a=candidate` lines, or nil if what is left still gives a
    /// section a candidate: remote candidates would start connectivity checks to whatever
    /// address the input names (and mDNS names would be looked up).
    static func withoutCandidates(_ bytes: UnsafeRawBufferPointer) -> String? {
        var kept: [UInt8] = []
        kept.reserveCapacity(bytes.count)
        let prefix = Array("a=candidate".utf8)
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != 0x0A { end += 1 }
            let line = bytes[start..<min(end + 1, bytes.count)]
            let isCandidate =
                line.count >= prefix.count && zip(line, prefix).allSatisfy { $0 | 0x20 == $1 | 0x20 || $0 == $1 }
            if !isCandidate { kept.append(contentsOf: line) }
            start = end + 1
        }
        let sdp = String(decoding: kept, as: UTF8.self)
        if let parsed = try? SessionDescription(parsing: sdp), parsed.media.contains(where: { !$0.candidates.isEmpty })
        {
            return nil
        }
        return sdp
    }
}

/// The whole negotiation on a real `PeerConnection` (no network beyond its loopback host
/// candidates): the first byte chooses the local transceivers and the role, the rest is the
/// remote description without its candidate lines.
///
/// - Answerer (bit 3 clear): `setRemoteDescription(offer)` → `createAnswer` →
///   `setLocalDescription(answer)`, then stats, and with bit 2 the same offer again (a
///   renegotiation in stable state).
/// - Offerer (bit 3 set): `createOffer` → `setLocalDescription(offer)` →
///   `setRemoteDescription(answer)` with the input as the answer, then stats.
///
/// Bits 0 and 1 add an audio and a video `sendrecv` transceiver (no track) before that.
/// Errors are fine; traps are not, and a description this side makes must parse back.
/// Every connection is closed at the end of the run, and must have closed its sockets.
public func fuzzNegotiation(_ bytes: UnsafeRawBufferPointer) {
    var input = FuzzInput(bytes)
    let flags = input.u8()
    guard let sdp = NegotiationSetup.withoutCandidates(input.rest()) else { return }
    runBlocking {
        guard let pc = try? PeerConnection(configuration: NegotiationSetup.configuration) else {
            fatalError("cannot make a PeerConnection")
        }
        if flags & 1 != 0 { _ = try? await pc.addTransceiver(.audio, direction: .sendrecv) }
        if flags & 2 != 0 { _ = try? await pc.addTransceiver(.video, direction: .sendrecv) }
        if flags & 8 != 0 {
            await offer(pc, remoteAnswer: sdp)
        } else {
            await answer(pc, remoteOffer: sdp, again: flags & 4 != 0)
        }
        _ = await pc.stats()
        _ = await pc.localDescription
        _ = await pc.remoteDescription
        await pc.close()
    }
    Descriptors.check("closing a negotiated PeerConnection")
}

private func answer(_ pc: PeerConnection, remoteOffer sdp: String, again: Bool) async {
    for _ in 0..<(again ? 2 : 1) {
        do {
            try await pc.setRemoteDescription(SignalingDescription(type: .offer, sdp: sdp))
            let answer = try await pc.createAnswer()
            mustParse(answer.sdp, "createAnswer")
            try await pc.setLocalDescription(answer)
        } catch {
            return
        }
    }
}

private func offer(_ pc: PeerConnection, remoteAnswer sdp: String) async {
    do {
        let offer = try await pc.createOffer()
        mustParse(offer.sdp, "createOffer")
        try await pc.setLocalDescription(offer)
        try await pc.setRemoteDescription(SignalingDescription(type: .answer, sdp: sdp))
    } catch {
        return
    }
}

/// A description this side made must parse.
private func mustParse(_ sdp: String, _ what: String) {
    do { _ = try SessionDescription(parsing: sdp) } catch {
        fatalError("\(what) made an SDP that does not parse (\(error)):\n\(sdp)")
    }
}
