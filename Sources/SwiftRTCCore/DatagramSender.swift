/// Where a layer above ICE sends its datagrams: an ICE component (the selected candidate
/// pair), or an in-memory pair in tests. DTLS sends its records through one.
///
/// Receiving goes the other way: the ICE component hands each datagram, on its transport
/// thread, to the demultiplexer (RFC 7983), which passes DTLS records up to DTLS and
/// RTP/RTCP to SRTP.
public protocol DatagramSender: AnyObject, Sendable {
    /// Sends one datagram. Safe to call from any thread. Returns `false` if it could not be
    /// sent (no selected pair yet, closed, or the socket refused it); datagrams are never queued.
    func send(_ datagram: UnsafeRawBufferPointer) -> Bool
}
