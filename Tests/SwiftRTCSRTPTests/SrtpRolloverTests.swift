import Testing

@testable import SwiftRTCSRTP

/// The rollover counter (RFC 3711 §3.3.1) over a long call: a stream of 50 packets a second
/// wraps its sequence number every 22 minutes, so a day-long call counts some 65 rollovers,
/// and every packet's index (ROC · 2^16 + SEQ) must agree on both sides.
@Suite struct SrtpRolloverTests {
    /// 67,000 packets from sequence number 65,000: two wraps. Each is protected by one crypto
    /// implementation and unprotected by the other (stock libsrtp against the nettle kernels,
    /// both ways); both sides count two rollovers; the packet after them differs from the
    /// same packet sent with no rollover (the index is in its keystream or nonce), and only
    /// the session that followed the wraps reads it.
    @Test(
        arguments: [SrtpProfile.aes128CmHmacSha1_80, .aeadAes128Gcm],
        [(SrtpCrypto.stock, SrtpCrypto.nettle), (.nettle, .stock)]
    )
    func bothSidesFollowTwoRollovers(profile: SrtpProfile, crypto: (sender: SrtpCrypto, receiver: SrtpCrypto)) throws {
        let (sender, receiver) = try sessionPair(profile, a: crypto.sender, b: crypto.receiver)
        let ssrc: UInt32 = 0xCAFE_BABE
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256, alignment: 16)
        defer { buffer.deallocate() }
        var failures = 0
        for n in 0..<67_000 {
            let plain = rtpPacket(sequence: UInt16(truncatingIfNeeded: 65_000 + n), ssrc: ssrc, payloadLength: 100)
            buffer.copyBytes(from: plain)
            let length = try sender.protectRTP(buffer, length: plain.count)
            do {
                let back = try receiver.unprotectRTP(buffer, length: length)
                if back != plain.count || !buffer.prefix(back).elementsEqual(plain) { failures += 1 }
            } catch {
                failures += 1
            }
        }
        #expect(failures == 0)
        #expect(sender.rolloverCounter(ssrc: ssrc, outbound: true) == 2)
        #expect(receiver.rolloverCounter(ssrc: ssrc, outbound: false) == 2)
        #expect(receiver.counters.unprotected == 67_000 && receiver.counters.authenticationFailures == 0)

        // The next packet (sequence number 928, index 2 · 65536 + 928) against the same packet
        // from a fresh sender, whose index has no rollover in it.
        let sequence = UInt16(truncatingIfNeeded: 65_000 + 67_000)
        let plain = rtpPacket(sequence: sequence, ssrc: ssrc, payloadLength: 100)
        let afterRollovers = try sender.apply(.protectRTP, plain).get()
        let (fresh, freshReceiver) = try sessionPair(profile, a: crypto.sender, b: crypto.receiver)
        let withoutRollovers = try fresh.apply(.protectRTP, plain).get()
        #expect(afterRollovers != withoutRollovers)
        #expect(try receiver.apply(.unprotectRTP, afterRollovers).get() == plain)
        #expect(freshReceiver.apply(.unprotectRTP, afterRollovers) == .failure(.authenticationFailed))
    }
}
