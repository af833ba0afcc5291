import CSRTP
import CSRTPNettle
import Testing

/// libsrtp2 really loads: an outbound session protects an RTP packet (adding the 10-byte
/// HMAC-SHA1-80 tag), an inbound session with the same key unprotects it to the original.
@Test func srtpProtectsAndUnprotects() throws {
    // srtp_init once per process, shared with SwiftRTCSRTP (srtp_init is not thread-safe).
    #expect(swiftrtc_srtp_init() == 0)
    let version = String(cString: srtp_get_version_string())
    #expect(version.hasPrefix("libsrtp2 2."))

    var key = [UInt8](repeating: 0, count: 30)  // 16-byte master key + 14-byte salt
    for i in key.indices { key[i] = UInt8(i &* 7 &+ 1) }

    func makeSession(_ direction: srtp_ssrc_type_t) throws -> srtp_t {
        var policy = srtp_policy_t()
        srtp_crypto_policy_set_rtp_default(&policy.rtp)  // AES-CM-128 + HMAC-SHA1-80
        srtp_crypto_policy_set_rtcp_default(&policy.rtcp)
        policy.ssrc.type = direction
        policy.window_size = 1024
        var session: srtp_t?
        let status = key.withUnsafeMutableBufferPointer { keyBytes in
            policy.key = keyBytes.baseAddress
            return srtp_create(&session, &policy)
        }
        #expect(status == srtp_err_status_ok)
        return try #require(session)
    }
    let sender = try makeSession(ssrc_any_outbound)
    let receiver = try makeSession(ssrc_any_inbound)
    defer {
        srtp_dealloc(sender)
        srtp_dealloc(receiver)
    }

    // RTP header: V=2, PT 111, seq 1, ts 960, SSRC 0x01020304; then a 20-byte payload.
    let header: [UInt8] = [0x80, 111, 0, 1, 0, 0, 0x03, 0xC0, 1, 2, 3, 4]
    let plain = header + (0..<20).map { UInt8($0) }
    var buffer = plain + [UInt8](repeating: 0, count: 16)
    var length = Int32(plain.count)
    #expect(srtp_protect(sender, &buffer, &length) == srtp_err_status_ok)
    #expect(length == Int32(plain.count + 10))
    #expect(Array(buffer[12..<32]) != Array(plain[12...]), "payload is encrypted")

    let protected = Array(buffer[0..<Int(length)])

    // A flipped payload bit fails authentication.
    var tampered = protected
    tampered[20] ^= 1
    var tamperedLength = Int32(tampered.count)
    #expect(srtp_unprotect(receiver, &tampered, &tamperedLength) == srtp_err_status_auth_fail)

    #expect(srtp_unprotect(receiver, &buffer, &length) == srtp_err_status_ok)
    #expect(Array(buffer[0..<Int(length)]) == plain)

    // The same packet again is a replay.
    var replay = protected
    var replayLength = Int32(replay.count)
    #expect(srtp_unprotect(receiver, &replay, &replayLength) == srtp_err_status_replay_fail)
}
