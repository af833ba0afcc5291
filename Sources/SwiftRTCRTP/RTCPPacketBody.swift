/// The body of one RTCP packet type: read from and written to the bytes after the common
/// header (RFC 3550 §6.4):
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P| RC/FMT  |      PT       |    length (words - 1)         |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
public protocol RTCPPacketBody: Sendable, Hashable {
    /// The packet type (PT).
    static var packetType: UInt8 { get }
    /// The 5-bit count or feedback message type (FMT) of the header.
    var headerCount: UInt8 { get }
    /// Reads the body (padding removed); `offset` is the body's offset in the datagram, for errors.
    init(count: UInt8, body: UnsafeRawBufferPointer, offset: Int) throws(RTPError)
    /// The body's length in bytes, a multiple of 4.
    var bodyLength: Int { get }
    /// Writes the body into a buffer of exactly ``bodyLength`` bytes.
    func writeBody(into buffer: UnsafeMutableRawBufferPointer)
}
