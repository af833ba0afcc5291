import Dispatch
import Foundation
import Testing

@testable import SwiftRTCSRTP

/// Several threads send on one session while another receives on it: each direction has its
/// own libsrtp context and lock, so nothing is lost, corrupted or double-counted. (Races are
/// timing-dependent: this checks the results of concurrent use; it cannot prove the locks.)
@Suite struct SrtpSessionThreadingTests {
    @Test(arguments: [SrtpProfile.aes128CmHmacSha1_80, .aeadAes128Gcm])
    func sendersOnManyThreadsAndAReceiverAtOnce(profile: SrtpProfile) throws {
        let (alice, bob) = try sessionPair(profile)
        let senders = 4, packetsPerSender = 500
        // Bob's packets, protected beforehand, for Alice to receive while she sends.
        let incoming = try (0..<packetsPerSender).map { i in
            try bob.apply(.protectRTP, rtpPacket(sequence: UInt16(i), ssrc: 0xB0B)).get()
        }
        let results = ProtectedResults(count: senders * packetsPerSender)
        DispatchQueue.concurrentPerform(iterations: senders + 1) { worker in
            if worker == senders {
                for packet in incoming {
                    results.received(alice.apply(.unprotectRTP, packet))
                }
                return
            }
            for i in 0..<packetsPerSender {  // one SSRC per sending thread
                let plain = rtpPacket(sequence: UInt16(i), ssrc: UInt32(worker + 1), payloadLength: 300)
                results.set(worker * packetsPerSender + i, alice.apply(.protectRTP, plain))
            }
        }
        #expect(results.receivedOK == packetsPerSender)
        for worker in 0..<senders {
            for i in 0..<packetsPerSender {
                let plain = rtpPacket(sequence: UInt16(i), ssrc: UInt32(worker + 1), payloadLength: 300)
                let protected = try results.get(worker * packetsPerSender + i).get()
                #expect(try bob.apply(.unprotectRTP, protected).get() == plain)
            }
        }
        #expect(
            alice.counters
                == .init(
                    protected: UInt64(senders * packetsPerSender),
                    unprotected: UInt64(packetsPerSender),
                    remoteStreams: 1
                )
        )
        #expect(bob.counters.unprotected == UInt64(senders * packetsPerSender))
    }
}

/// Results written by several threads, each to its own slots, under a lock.
private final class ProtectedResults: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [Result<[UInt8], SrtpPacketError>?]
    private(set) var receivedOK = 0

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ result: Result<[UInt8], SrtpPacketError>) {
        lock.withLock { slots[index] = result }
    }

    func get(_ index: Int) -> Result<[UInt8], SrtpPacketError> {
        lock.withLock { slots[index] ?? .failure(.failed(-1)) }
    }

    func received(_ result: Result<[UInt8], SrtpPacketError>) {
        if case .success = result { lock.withLock { receivedOK += 1 } }
    }
}
