import CSRTP
import Synchronization

/// An SRTP/SRTCP session over libsrtp2 (RFC 3711, RFC 7714): protects outgoing RTP and RTCP
/// with the local master key and unprotects incoming packets with the remote one, in place on
/// the caller's buffers, with replay protection on receive.
///
/// Profiles: AES-CM-128 with HMAC-SHA1-80 or -32, AEAD-AES-128-GCM and AEAD-AES-256-GCM.
/// The crypto runs on nettle-backed replacements of libsrtp's by default (see ``SrtpCrypto``).
///
/// Per packet there is no allocation (after libsrtp's one-time per-SSRC stream set-up), no
/// logging and no suspension: it is meant for the transport thread.
///
/// Threading: libsrtp contexts are not thread-safe. The session holds two of them, one for
/// each direction, each behind its own lock, so sending (from any thread) never waits for
/// receiving and the other way round; calls in the same direction are serialised (an
/// uncontended lock costs some ten nanoseconds, against about a microsecond for the crypto).
/// ``counters`` may be read from any thread at any time.
public final class SrtpSession: @unchecked Sendable {
    // @unchecked: `outbound` and `inbound` are used only under `outboundLock` / `inboundLock`
    // (and in deinit); everything else is immutable or atomic.

    /// The protection profile.
    public let profile: SrtpProfile
    /// The crypto implementation the session runs on (`.stock` if libsrtp refused the nettle
    /// replacements).
    public let crypto: SrtpCrypto

    private let outbound: srtp_t
    private let inbound: srtp_t
    private let outboundLock = Mutex(())
    /// The inbound lock, with the bounded table of remote SSRCs that have a libsrtp stream.
    private let inboundLock = Mutex(SrtpInboundStreams())

    private let protectedCount = Atomic<UInt64>(0)
    private let unprotectedCount = Atomic<UInt64>(0)
    private let authenticationFailureCount = Atomic<UInt64>(0)
    private let replayCount = Atomic<UInt64>(0)
    private let malformedCount = Atomic<UInt64>(0)
    private let otherFailureCount = Atomic<UInt64>(0)

    /// The largest packet accepted: a UDP datagram's payload.
    static let maximumPacketLength = 65_507
    static let rtpHeaderLength = 12
    static let rtcpHeaderLength = 8

    /// Creates a session.
    /// - Parameters:
    ///   - profile: the negotiated DTLS-SRTP protection profile.
    ///   - local: the key this side protects with (for DTLS-SRTP: our write key).
    ///   - remote: the key the peer protects with, used to unprotect.
    ///   - replayWindow: packets tracked per SSRC for replay protection (64...32767; 1024 as
    ///     libwebrtc uses).
    ///   - crypto: the crypto implementation (``SrtpCrypto/default``).
    public init(
        profile: SrtpProfile,
        local: SrtpMasterKey,
        remote: SrtpMasterKey,
        replayWindow: Int = 1024,
        crypto: SrtpCrypto = .default
    ) throws(SrtpSessionError) {
        for (what, bytes, expected) in [
            ("local key", local.key, profile.keyLength), ("local salt", local.salt, profile.saltLength),
            ("remote key", remote.key, profile.keyLength), ("remote salt", remote.salt, profile.saltLength),
        ] where bytes.count != expected {
            throw .badKeyLength(what: what, expected: expected, got: bytes.count)
        }
        guard (64...0x7FFF).contains(replayWindow) else { throw .badReplayWindow(replayWindow) }

        self.profile = profile
        let (outbound, inbound, inForce) = try SrtpLibrary.withKernel(crypto) { inForce throws(SrtpSessionError) in
            let outbound = try Self.makeContext(profile, local, ssrc_any_outbound, replayWindow)
            do throws(SrtpSessionError) {
                let inbound = try Self.makeContext(profile, remote, ssrc_any_inbound, replayWindow)
                return (outbound, inbound, inForce)
            } catch {
                srtp_dealloc(outbound)
                throw error
            }
        }
        self.outbound = outbound
        self.inbound = inbound
        self.crypto = inForce
    }

    deinit {
        srtp_dealloc(outbound)
        srtp_dealloc(inbound)
    }

    private static func makeContext(
        _ profile: SrtpProfile,
        _ master: SrtpMasterKey,
        _ direction: srtp_ssrc_type_t,
        _ replayWindow: Int
    ) throws(SrtpSessionError) -> srtp_t {
        var policy = srtp_policy_t()
        let libsrtpProfile = srtp_profile_t(rawValue: UInt32(profile.rawValue))
        var status = srtp_crypto_policy_set_from_profile_for_rtp(&policy.rtp, libsrtpProfile)
        guard status == srtp_err_status_ok else { throw .library(Int32(status.rawValue)) }
        status = srtp_crypto_policy_set_from_profile_for_rtcp(&policy.rtcp, libsrtpProfile)
        guard status == srtp_err_status_ok else { throw .library(Int32(status.rawValue)) }
        policy.ssrc.type = direction
        policy.window_size = UInt(replayWindow)
        // Like libwebrtc: a sender may resend a packet unchanged (NACK without RTX).
        policy.allow_repeat_tx = direction == ssrc_any_outbound ? 1 : 0

        var keyAndSalt = master.key + master.salt  // libsrtp's layout: key then salt
        defer { for i in keyAndSalt.indices { keyAndSalt[i] = 0 } }
        var context: srtp_t?
        status = keyAndSalt.withUnsafeMutableBufferPointer { bytes in
            policy.key = bytes.baseAddress
            return srtp_create(&context, &policy)
        }
        guard status == srtp_err_status_ok, let context else { throw .library(Int32(status.rawValue)) }
        return context
    }
}

// MARK: - Protect and unprotect

extension SrtpSession {
    /// Protects the RTP packet in the first `length` bytes of `packet`, in place, appending
    /// the authentication tag; `packet.count` must leave room for ``SrtpProfile/rtpTagLength``.
    /// A sequence number may be protected again (a retransmission without RTX, as libwebrtc
    /// allows) only for the very same packet.
    /// - Returns: the SRTP packet's length.
    public func protectRTP(_ packet: UnsafeMutableRawBufferPointer, length: Int) throws(SrtpPacketError) -> Int {
        try transform(.protectRTP, packet, length)
    }

    /// Unprotects the SRTP packet in the first `length` bytes of `packet`, in place: verifies
    /// the tag and the replay window, decrypts. After a failure the bytes are unspecified.
    /// - Returns: the plain RTP packet's length.
    public func unprotectRTP(_ packet: UnsafeMutableRawBufferPointer, length: Int) throws(SrtpPacketError) -> Int {
        try transform(.unprotectRTP, packet, length)
    }

    /// Protects the RTCP compound packet in the first `length` bytes of `packet`, in place,
    /// appending the SRTCP index and tag; `packet.count` must leave room for
    /// ``SrtpProfile/rtcpTrailerLength``.
    /// - Returns: the SRTCP packet's length.
    public func protectRTCP(_ packet: UnsafeMutableRawBufferPointer, length: Int) throws(SrtpPacketError) -> Int {
        try transform(.protectRTCP, packet, length)
    }

    /// Unprotects the SRTCP packet in the first `length` bytes of `packet`, in place. After a
    /// failure the bytes are unspecified.
    /// - Returns: the plain RTCP compound packet's length.
    public func unprotectRTCP(_ packet: UnsafeMutableRawBufferPointer, length: Int) throws(SrtpPacketError) -> Int {
        try transform(.unprotectRTCP, packet, length)
    }

    enum Operation {
        case protectRTP, unprotectRTP, protectRTCP, unprotectRTCP
    }

    func transform(
        _ operation: Operation,
        _ packet: UnsafeMutableRawBufferPointer,
        _ length: Int
    ) throws(SrtpPacketError) -> Int {
        let minimum: Int, room: Int
        switch operation {
        case .protectRTP: (minimum, room) = (Self.rtpHeaderLength, profile.rtpTagLength)
        case .unprotectRTP: (minimum, room) = (Self.rtpHeaderLength + profile.rtpTagLength, 0)
        case .protectRTCP: (minimum, room) = (Self.rtcpHeaderLength, profile.rtcpTrailerLength)
        case .unprotectRTCP: (minimum, room) = (Self.rtcpHeaderLength + profile.rtcpTrailerLength, 0)
        }
        // RTP and RTCP are version 2: the first byte is 128...191 (RFC 7983).
        guard let base = packet.baseAddress, length >= minimum, length <= Self.maximumPacketLength,
            packet.count - length >= room, base.load(as: UInt8.self) >> 6 == 2
        else {
            malformedCount.wrappingAdd(1, ordering: .relaxed)
            throw .malformed
        }

        var newLength = Int32(length)
        let status: srtp_err_status_t
        switch operation {
        case .protectRTP:
            status = outboundLock.withLock { _ in srtp_protect(outbound, base, &newLength) }
        case .protectRTCP:
            status = outboundLock.withLock { _ in srtp_protect_rtcp(outbound, base, &newLength) }
        case .unprotectRTP:
            // The SSRC (bytes 8-11 of RTP, 4-7 of RTCP) is in the clear, read as on the wire.
            let ssrc = base.loadUnaligned(fromByteOffset: 8, as: UInt32.self)
            status = inboundLock.withLock { streams in
                let status = srtp_unprotect(inbound, base, &newLength)
                if status == srtp_err_status_ok { streams.admit(ssrc, in: inbound) }
                return status
            }
        case .unprotectRTCP:
            let ssrc = base.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
            status = inboundLock.withLock { streams in
                let status = srtp_unprotect_rtcp(inbound, base, &newLength)
                if status == srtp_err_status_ok { streams.admit(ssrc, in: inbound) }
                return status
            }
        }
        guard status == srtp_err_status_ok else {
            let error = SrtpPacketError(status)
            count(error)
            throw error
        }
        switch operation {
        case .protectRTP, .protectRTCP: protectedCount.wrappingAdd(1, ordering: .relaxed)
        case .unprotectRTP, .unprotectRTCP: unprotectedCount.wrappingAdd(1, ordering: .relaxed)
        }
        return Int(newLength)
    }

    /// libsrtp's rollover counter for `ssrc` (RFC 3711 §3.3.1: the sequence number wraps so
    /// far, the high 32 bits of the packet index) in the outbound or inbound context; nil
    /// while that SSRC has no stream there.
    package func rolloverCounter(ssrc: UInt32, outbound isOutbound: Bool) -> UInt32? {
        var roc: UInt32 = 0
        let status =
            isOutbound
            ? outboundLock.withLock { _ in srtp_get_stream_roc(outbound, ssrc, &roc) }
            : inboundLock.withLock { _ in srtp_get_stream_roc(inbound, ssrc, &roc) }
        return status == srtp_err_status_ok ? roc : nil
    }

    private func count(_ error: SrtpPacketError) {
        switch error {
        case .authenticationFailed: authenticationFailureCount.wrappingAdd(1, ordering: .relaxed)
        case .replayed: replayCount.wrappingAdd(1, ordering: .relaxed)
        case .malformed: malformedCount.wrappingAdd(1, ordering: .relaxed)
        case .failed: otherFailureCount.wrappingAdd(1, ordering: .relaxed)
        }
    }
}

// MARK: - Counters

extension SrtpSession {
    /// What the session has done since it was created, for stats. RTP and RTCP together.
    public struct Counters: Sendable, Equatable {
        /// Packets protected.
        public var protected: UInt64 = 0
        /// Packets unprotected (authenticated, fresh, decrypted).
        public var unprotected: UInt64 = 0
        /// Packets whose tag did not verify.
        public var authenticationFailures: UInt64 = 0
        /// Packets rejected by the replay window.
        public var replays: UInt64 = 0
        /// Packets of bad length or malformed (both directions).
        public var malformed: UInt64 = 0
        /// Other libsrtp failures (both directions).
        public var otherFailures: UInt64 = 0
        /// Remote SSRCs with a libsrtp stream now (at most
        /// ``RemoteInputLimits/maxRemoteSSRCsPerTransport``).
        public var remoteStreams: Int = 0
        /// Remote streams removed to make room for a new SSRC.
        public var remoteStreamsEvicted: UInt64 = 0

        /// Counters with the given values (all zero by default).
        public init(
            protected: UInt64 = 0,
            unprotected: UInt64 = 0,
            authenticationFailures: UInt64 = 0,
            replays: UInt64 = 0,
            malformed: UInt64 = 0,
            otherFailures: UInt64 = 0,
            remoteStreams: Int = 0,
            remoteStreamsEvicted: UInt64 = 0
        ) {
            self.protected = protected
            self.unprotected = unprotected
            self.authenticationFailures = authenticationFailures
            self.replays = replays
            self.malformed = malformed
            self.otherFailures = otherFailures
            self.remoteStreams = remoteStreams
            self.remoteStreamsEvicted = remoteStreamsEvicted
        }
    }

    /// A snapshot of the counters (each read atomically; safe from any thread).
    public var counters: Counters {
        Counters(
            protected: protectedCount.load(ordering: .relaxed),
            unprotected: unprotectedCount.load(ordering: .relaxed),
            authenticationFailures: authenticationFailureCount.load(ordering: .relaxed),
            replays: replayCount.load(ordering: .relaxed),
            malformed: malformedCount.load(ordering: .relaxed),
            otherFailures: otherFailureCount.load(ordering: .relaxed),
            remoteStreams: inboundLock.withLock { $0.count },
            remoteStreamsEvicted: inboundLock.withLock { $0.evicted }
        )
    }
}
