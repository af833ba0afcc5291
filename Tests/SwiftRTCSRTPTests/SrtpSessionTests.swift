import RandomTestSupport
import Testing

@testable import SwiftRTCSRTP

@Suite struct SrtpSessionTests {
    @Test(arguments: SrtpProfile.allCases)
    func rtpAndRtcpRoundTripWithDistinctKeys(profile: SrtpProfile) throws {
        let (alice, bob) = try sessionPair(profile)
        for sequence in UInt16(65_530)...UInt16(65_535) {  // crosses no rollover but near it
            let plain = rtpPacket(sequence: sequence)
            let protected = try alice.apply(.protectRTP, plain).get()
            #expect(protected.count == plain.count + profile.rtpTagLength)
            #expect(protected[0..<12] == plain[0..<12])  // header stays in the clear
            #expect(protected[12..<plain.count] != plain[12...])  // payload encrypted
            let back = try bob.apply(.unprotectRTP, protected).get()
            #expect(back == plain)
            // Alice cannot read her own packets: inbound uses the other key.
            #expect(alice.apply(.unprotectRTP, protected) == .failure(.authenticationFailed))
        }
        let rtcp = rtcpPacket()
        let srtcp = try bob.apply(.protectRTCP, rtcp).get()
        #expect(srtcp.count == rtcp.count + profile.rtcpTrailerLength)
        #expect(try alice.apply(.unprotectRTCP, srtcp).get() == rtcp)

        #expect(alice.counters == .init(protected: 6, unprotected: 1, authenticationFailures: 6, remoteStreams: 1))
        #expect(bob.counters == .init(protected: 1, unprotected: 6, remoteStreams: 1))
    }

    @Test(arguments: SrtpProfile.allCases)
    func tamperedPacketsAreRejectedAndCounted(profile: SrtpProfile) throws {
        let (alice, bob) = try sessionPair(profile)
        let protected = try alice.apply(.protectRTP, rtpPacket(sequence: 7)).get()
        for position in [1, 5, 11, 12, 40, protected.count - 1] {  // header, payload, tag
            var tampered = protected
            tampered[position] ^= 0x01
            #expect(bob.apply(.unprotectRTP, tampered) == .failure(.authenticationFailed))
        }
        let srtcp = try alice.apply(.protectRTCP, rtcpPacket()).get()
        var tampered = srtcp
        tampered[6] ^= 0x80
        #expect(bob.apply(.unprotectRTCP, tampered) == .failure(.authenticationFailed))
        // The untouched packets still pass afterwards.
        #expect(try bob.apply(.unprotectRTP, protected).get() == rtpPacket(sequence: 7))
        #expect(try bob.apply(.unprotectRTCP, srtcp).get() == rtcpPacket())
        #expect(bob.counters.authenticationFailures == 7)
        #expect(bob.counters.unprotected == 2)
    }

    @Test(arguments: SrtpProfile.allCases)
    func replayedPacketsAreRejectedAndCounted(profile: SrtpProfile) throws {
        let (alice, bob) = try sessionPair(profile)
        var protected: [[UInt8]] = []
        for sequence in UInt16(1000)..<UInt16(1000 + 1100) {
            protected.append(try alice.apply(.protectRTP, rtpPacket(sequence: sequence)).get())
        }
        // Out of order within the window is fine; the same packet twice is not.
        #expect(try bob.apply(.unprotectRTP, protected[5]).get() == rtpPacket(sequence: 1005))
        #expect(try bob.apply(.unprotectRTP, protected[3]).get() == rtpPacket(sequence: 1003))
        #expect(bob.apply(.unprotectRTP, protected[5]) == .failure(.replayed))
        #expect(bob.apply(.unprotectRTP, protected[3]) == .failure(.replayed))
        // Jump ahead by more than the 1024-packet window: packet 4 is now too old.
        #expect(try bob.apply(.unprotectRTP, protected[1099]).get() == rtpPacket(sequence: 2099))
        #expect(bob.apply(.unprotectRTP, protected[4]) == .failure(.replayed))

        let srtcp = try alice.apply(.protectRTCP, rtcpPacket()).get()
        #expect(try bob.apply(.unprotectRTCP, srtcp).get() == rtcpPacket())
        #expect(bob.apply(.unprotectRTCP, srtcp) == .failure(.replayed))
        #expect(bob.counters.replays == 4)
        #expect(bob.counters.unprotected == 4)
    }

    @Test(arguments: SrtpProfile.allCases)
    func badLengthsAreRejectedAndCounted(profile: SrtpProfile) throws {
        let (alice, bob) = try sessionPair(profile)
        let plain = rtpPacket(sequence: 1)
        // No room for the tag.
        #expect(alice.apply(.protectRTP, plain, extra: profile.rtpTagLength - 1) == .failure(.malformed))
        #expect(alice.apply(.protectRTCP, rtcpPacket(), extra: profile.rtcpTrailerLength - 1) == .failure(.malformed))
        // Shorter than a header, and shorter than header plus tag.
        #expect(alice.apply(.protectRTP, Array(plain[0..<11])) == .failure(.malformed))
        #expect(bob.apply(.unprotectRTP, Array(plain[0..<(11 + profile.rtpTagLength)])) == .failure(.malformed))
        #expect(alice.apply(.protectRTCP, Array(repeating: 0x80, count: 7)) == .failure(.malformed))
        #expect(bob.apply(.unprotectRTCP, rtcpPacket() + [0, 0, 0]) == .failure(.malformed))
        #expect(bob.apply(.unprotectRTP, []) == .failure(.malformed))
        // Length beyond the buffer, and a negative length.
        #expect(bob.apply(.unprotectRTP, plain, extra: 0, length: plain.count + 1) == .failure(.malformed))
        #expect(bob.apply(.unprotectRTP, plain, length: -1) == .failure(.malformed))
        // Not version 2 (RFC 7983: not RTP/RTCP at all).
        var stun = plain
        stun[0] = 0x00
        #expect(alice.apply(.protectRTP, stun) == .failure(.malformed))
        // A CSRC count that runs past the end of the packet (libsrtp's header check).
        var csrc = try alice.apply(.protectRTP, plain).get()
        csrc[0] = 0x8F
        #expect(bob.apply(.unprotectRTP, Array(csrc[0..<(12 + profile.rtpTagLength + 4)])) == .failure(.malformed))

        #expect(alice.counters.malformed == 5)
        #expect(alice.counters.protected == 1)
        #expect(bob.counters.malformed == 6)
        #expect(bob.counters.unprotected == 0)
    }

    /// Remote input never crashes: random datagrams that look like RTP/RTCP, a real packet cut
    /// short at every length, and header fields (CSRC count, extension length) that run past the
    /// end are all refused and counted.
    @Test(arguments: SrtpProfile.allCases)
    func garbageIsRefusedAndCounted(profile: SrtpProfile) throws {
        let (alice, bob) = try sessionPair(profile)
        var generator = SplitMix64(seed: 0x5EED)
        var inputs: [(SrtpSession.Operation, [UInt8])] = []
        for _ in 0..<2000 {
            var datagram = (0..<Int(generator.next() % 300)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            if !datagram.isEmpty { datagram[0] = 0x80 | (datagram[0] & 0x3F) }  // version 2
            let rtcp = datagram.count > 1 && (192...223).contains(datagram[1])
            inputs.append((rtcp ? .unprotectRTCP : .unprotectRTP, datagram))
        }
        let protected = try alice.apply(.protectRTP, rtpPacket(sequence: 42, payloadLength: 40)).get()
        for length in 0..<protected.count {
            inputs.append((.unprotectRTP, Array(protected[0..<length])))
        }
        var manyCSRCs = protected, longExtension = protected
        manyCSRCs[0] |= 0x0F
        longExtension[0] |= 0x10
        longExtension[12] = 0xBE
        longExtension[13] = 0xDE
        longExtension[14] = 0xFF
        longExtension[15] = 0xFF
        inputs += [(.unprotectRTP, manyCSRCs), (.unprotectRTP, longExtension)]
        let srtcp = try alice.apply(.protectRTCP, rtcpPacket()).get()
        for length in 0..<srtcp.count {
            inputs.append((.unprotectRTCP, Array(srtcp[0..<length])))
        }

        for (operation, bytes) in inputs {
            #expect(throws: SrtpPacketError.self) { try bob.apply(operation, bytes).get() }
        }
        let counters = bob.counters
        #expect(counters.unprotected == 0)
        #expect(
            counters.authenticationFailures + counters.malformed + counters.replays + counters.otherFailures
                == UInt64(inputs.count)
        )
        #expect(counters.malformed > 0 && counters.authenticationFailures > 0)
    }

    @Test func keysOfTheWrongLengthAreRefused() throws {
        let profile = SrtpProfile.aes128CmHmacSha1_80
        let good = testKeys(profile, seed: 1)
        let shortKey = SrtpMasterKey(key: Array(good.key.dropLast()), salt: good.salt)
        #expect(throws: SrtpSessionError.badKeyLength(what: "remote key", expected: 16, got: 15)) {
            try SrtpSession(profile: profile, local: good, remote: shortKey)
        }
        let gcmSalt = testKeys(.aeadAes128Gcm, seed: 1)
        #expect(throws: SrtpSessionError.badKeyLength(what: "local salt", expected: 14, got: 12)) {
            try SrtpSession(profile: profile, local: gcmSalt, remote: good)
        }
        #expect(throws: SrtpSessionError.badReplayWindow(10)) {
            try SrtpSession(profile: profile, local: good, remote: good, replayWindow: 10)
        }
    }

    @Test func keyingMaterialSplitsAsRFC5764() throws {
        let profile = SrtpProfile.aes128CmHmacSha1_80
        let material = (0..<60).map { UInt8($0) }
        let keys = try #require(profile.masterKeys(fromKeyingMaterial: material))
        #expect(keys.client == SrtpMasterKey(key: Array(0..<16), salt: Array(32..<46)))
        #expect(keys.server == SrtpMasterKey(key: Array(16..<32), salt: Array(46..<60)))
        #expect(profile.masterKeys(fromKeyingMaterial: Array(material.dropLast())) == nil)
    }
}
