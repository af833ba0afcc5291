import SwiftRTCCore

/// Checks that a datagram is a sequence of whole DTLS records (RFC 6347 §4.1) before GnuTLS
/// sees it. GnuTLS 3.7.9 reads a record whose length runs past the end of its datagram by
/// pulling the *next* datagram as the rest of it, so a truncated or forged datagram could
/// corrupt a good one; RFC 6347 §4.1.2.7 says to discard such datagrams silently.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  ContentType  |    ProtocolVersion (0xFE..)   |     epoch     :
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// :     epoch     |          sequence_number (48 bits)            :
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// :                               |            length             |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                fragment (length bytes) ...                    |
/// ```
enum DtlsRecordFraming {
    static let headerLength = 13
    static let applicationDataType: UInt8 = 23

    /// What a datagram is.
    enum Framing: Equatable {
        /// Not whole records: dropped.
        case malformed
        /// Application data records only.
        case applicationData
        /// Whole records, some of another type (handshake, alert, change_cipher_spec).
        case other
    }

    /// Whether `datagram` is one or more complete DTLS 1.0/1.2 records of a known content
    /// type (change_cipher_spec 20, alert 21, handshake 22, application_data 23), back to back,
    /// filling it exactly, and whether they are all application data.
    static func classify(_ datagram: UnsafeRawBufferPointer) -> Framing {
        var offset = 0
        var onlyApplicationData = true
        while offset < datagram.count {
            guard datagram.count - offset >= headerLength else { return .malformed }
            let contentType = datagram[offset]
            guard (20...23).contains(contentType), datagram[offset + 1] == 0xFE else { return .malformed }
            if contentType != applicationDataType { onlyApplicationData = false }
            let length = Int(datagram.u16(offset + 11))
            offset += headerLength
            guard length <= datagram.count - offset else { return .malformed }
            offset += length
        }
        guard offset > 0 else { return .malformed }
        return onlyApplicationData ? .applicationData : .other
    }
}
