import CUsrsctp
import Foundation
import Synchronization

// The socket options of a WebRTC association, and the timeouts and buffer sizes they set.
extension SctpAssociation {
    /// The socket options of a WebRTC association (RFC 8831 §6.2): non-blocking, no Nagle,
    /// stream resets, 65535 streams, messages reassembled whole, and the events above.
    static func setOptions(_ socket: OpaquePointer, _ configuration: Configuration) throws(SctpError) {
        let set = SocketOptionSetter(socket: socket)
        guard usrsctp_set_non_blocking(socket, 1) == 0 else { throw .call("usrsctp_set_non_blocking", errno) }
        try set(Int32(SOL_SOCKET), Int32(SO_LINGER), linger(l_onoff: 1, l_linger: 0), "SO_LINGER")
        let buffer = Int32(clamping: sendBuffer(configuration))
        try set(Int32(SOL_SOCKET), Int32(SO_SNDBUF), buffer, "SO_SNDBUF")
        try set(Int32(SOL_SOCKET), Int32(SO_RCVBUF), buffer, "SO_RCVBUF")
        // A message is handed over before its end only past half the receive buffer (twice
        // the limit): one within the limit is always read whole. (usrsctp's own point was
        // fixed from the default buffer when the socket was made.)
        try set(
            Int32(IPPROTO_SCTP),
            SCTP_PARTIAL_DELIVERY_POINT,
            UInt32(clamping: buffer / 2),
            "SCTP_PARTIAL_DELIVERY_POINT"
        )
        try set(Int32(IPPROTO_SCTP), SCTP_NODELAY, Int32(1), "SCTP_NODELAY")
        try set(Int32(IPPROTO_SCTP), SCTP_RECVRCVINFO, Int32(1), "SCTP_RECVRCVINFO")
        // Pieces of a long message (one over the limit, read in pieces) and other streams'
        // messages may alternate in delivery (level 2). Streams are served round robin: a
        // message waiting on one stream goes right after the long one being sent on another,
        // not after every message queued before it. No I-DATA (RFC 8260 interleaving): usrsctp
        // 0.9.5's I-DATA stalled reliable associations under load (a message the sender never
        // resent, 512 later ones waiting behind it, the association aborted a minute later
        // with them undelivered: 1 benchmark run in 3 to 4 on a loaded machine; none in 14
        // without it).
        try set(Int32(IPPROTO_SCTP), SCTP_FRAGMENT_INTERLEAVE, Int32(2), "SCTP_FRAGMENT_INTERLEAVE")
        let future = sctp_assoc_t(SCTP_FUTURE_ASSOC)
        try set(
            Int32(IPPROTO_SCTP),
            SCTP_PLUGGABLE_SS,
            sctp_assoc_value(assoc_id: future, assoc_value: UInt32(SCTP_SS_ROUND_ROBIN)),
            "SCTP_PLUGGABLE_SS"
        )
        try set(
            Int32(IPPROTO_SCTP),
            SCTP_ENABLE_STREAM_RESET,
            sctp_assoc_value(assoc_id: sctp_assoc_t(SCTP_ALL_ASSOC), assoc_value: UInt32(SCTP_ENABLE_RESET_STREAM_REQ)),
            "SCTP_ENABLE_STREAM_RESET"
        )
        try setTimeoutsAndEvents(set, configuration)
    }

    /// The retransmission timeouts, the INIT's streams and attempts, and the notifications
    /// read (association changes, stream resets), on every association of the socket.
    static func setTimeoutsAndEvents(_ set: SocketOptionSetter, _ configuration: Configuration) throws(SctpError) {
        let future = sctp_assoc_t(SCTP_FUTURE_ASSOC)
        // Retransmission timeouts of a WebRTC stack, not RFC 4960's defaults (3 s initial,
        // 60 s at most): a lost INIT, COOKIE or first message costs a second, not three, and
        // backing off stops at ten. Loss while the association starts is common: the DTLS
        // server's first SCTP packet is lost whenever its last flight was.
        try set(
            Int32(IPPROTO_SCTP),
            SCTP_RTOINFO,
            sctp_rtoinfo(
                srto_assoc_id: future,
                srto_initial: Self.retransmissionTimeout.initial,
                srto_max: Self.retransmissionTimeout.max,
                srto_min: Self.retransmissionTimeout.min
            ),
            "SCTP_RTOINFO"
        )
        try set(
            Int32(IPPROTO_SCTP),
            SCTP_INITMSG,
            sctp_initmsg(
                sinit_num_ostreams: configuration.streams,
                sinit_max_instreams: configuration.streams,
                sinit_max_attempts: 0,
                sinit_max_init_timeo: UInt16(Self.retransmissionTimeout.max)
            ),
            "SCTP_INITMSG"
        )
        for event in [SCTP_ASSOC_CHANGE, SCTP_STREAM_RESET_EVENT] {
            try set(
                Int32(IPPROTO_SCTP),
                SCTP_EVENT,
                sctp_event(se_assoc_id: sctp_assoc_t(SCTP_ALL_ASSOC), se_type: UInt16(event), se_on: 1),
                "SCTP_EVENT \(event)"
            )
        }
    }

    /// Milliseconds between heartbeats on an idle path, plus a retransmission timeout (RFC 4960
    /// §8.3): about every 2 s. Consent (RFC 7675) is kept by the peer's authentic datagrams, and
    /// on an idle data-only connection the peer's HEARTBEAT ACKs are all there is; usrsctp's
    /// default (30 s, and as long again in the jitter) let such a connection fail its consent.
    static let heartbeatInterval: UInt32 = 1000

    /// The retransmission timeout's bounds in milliseconds, as libdatachannel and GStreamer
    /// set them for usrsctp: 1 s to start (RFC 6298's initial value for TCP), at least 1 s
    /// (RFC 4960), at most 10 s, for INIT too.
    static let retransmissionTimeout: (initial: UInt32, min: UInt32, max: UInt32) = (1000, 1000, 10_000)

    /// The association's retransmission timeout bounds as usrsctp holds them (milliseconds),
    /// nil when closed.
    package var retransmissionTimeoutBounds: (initial: UInt32, min: UInt32, max: UInt32)? {
        var info = sctp_rtoinfo()
        var size = socklen_t(MemoryLayout<sctp_rtoinfo>.size)
        let result = withSocket { socket in
            usrsctp_getsockopt(socket, Int32(IPPROTO_SCTP), SCTP_RTOINFO, &info, &size)
        }
        guard result == 0 else { return nil }
        return (info.srto_initial, info.srto_min, info.srto_max)
    }

    /// The send buffer's size: a whole message must fit, so room for four of the largest.
    static func sendBuffer(_ configuration: Configuration) -> Int { max(1 << 20, 4 * configuration.maxMessageSize) }
}

/// Sets one option of a usrsctp socket, naming it in the error.
struct SocketOptionSetter {
    let socket: OpaquePointer

    func callAsFunction<T: BitwiseCopyable>(_ level: Int32, _ name: Int32, _ value: T, _ what: String) throws(SctpError)
    {
        let result = withUnsafeBytes(of: value) {
            usrsctp_setsockopt(socket, level, name, $0.baseAddress, socklen_t($0.count))
        }
        guard result == 0 else { throw .call("setsockopt \(what)", errno) }
    }
}
