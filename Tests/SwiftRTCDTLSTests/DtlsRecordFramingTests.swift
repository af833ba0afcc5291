import Testing

@testable import SwiftRTCDTLS

@Suite struct DtlsRecordFramingTests {
    static let alert: [UInt8] = [21, 0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, 1, 0, 2, 1, 0]
    static let emptyHandshake: [UInt8] = [22, 0xFE, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    static let cases: [(datagram: [UInt8], valid: Bool)] = [
        (alert, true),
        (alert + alert, true),
        (emptyHandshake, true),  // empty fragment, DTLS 1.0 version
        ([], false),
        (Array(alert.prefix(12)), false),  // header cut short
        (Array(alert.dropLast()), false),  // fragment shorter than its length
        (alert + [0], false),  // trailing byte
        (alert + Array(alert.prefix(13)) + [9], false),  // second record truncated
        ([25] + Array(alert.dropFirst()), false),  // unknown content type
        ([21, 0x03, 0x03] + Array(alert.dropFirst(3)), false),  // TLS, not DTLS, version
    ]

    @Test(arguments: cases)
    func acceptsOnlyWholeRecords(datagram: [UInt8], valid: Bool) {
        #expect(datagram.withUnsafeBytes { DtlsRecordFraming.isWellFramed($0) } == valid)
    }
}
