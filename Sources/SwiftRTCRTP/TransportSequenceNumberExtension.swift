import SwiftRTCCore

/// `transport-wide-cc` (draft-holmer-rmcat-transport-wide-cc-extensions-01): a sequence number
/// counted across all media streams of a transport, acknowledged in transport-cc feedback.
/// ```
///  0                   1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  transport-wide sequence no.  |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
public struct TransportSequenceNumber: RTPHeaderExtension, Sendable, Hashable {
    /// The URI that `a=extmap` names this extension by.
    public static let uri = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
    /// The sequence number.
    public var value: UInt16

    /// Creates the value.
    public init(value: UInt16) { self.value = value }

    @inlinable
    public init(parsing data: UnsafeRawBufferPointer) throws(RTPError) {
        try Self.require(data, 2, "transport-wide-cc")
        value = data.u16(0)
    }

    public var encodedLength: Int { 2 }
    public func encode(into buffer: UnsafeMutableRawBufferPointer) { buffer.put16(value, at: 0) }
}
