import Testing

@testable import SwiftRTCDTLS

@Suite struct DtlsRecordFramingTests {
    static let alert: [UInt8] = [21, 0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, 1, 0, 2, 1, 0]
    static let emptyHandshake: [UInt8] = [22, 0xFE, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    static let applicationData: [UInt8] = [23, 0xFE, 0xFD, 0, 1, 0, 0, 0, 0, 0, 7, 0, 3, 0xAA, 0xBB, 0xCC]
    static let cases: [(datagram: [UInt8], framing: DtlsRecordFraming.Framing)] = [
        (alert, .other),
        (alert + alert, .other),
        (emptyHandshake, .other),  // empty fragment, DTLS 1.0 version
        (applicationData, .applicationData),
        (applicationData + applicationData, .applicationData),
        (applicationData + alert, .other),  // decrypted on the queue, which handles the alert
        ([], .malformed),
        (Array(alert.prefix(12)), .malformed),  // header cut short
        (Array(alert.dropLast()), .malformed),  // fragment shorter than its length
        (alert + [0], .malformed),  // trailing byte
        (alert + Array(alert.prefix(13)) + [9], .malformed),  // second record truncated
        (applicationData + Array(applicationData.dropLast()), .malformed),
        ([25] + Array(alert.dropFirst()), .malformed),  // unknown content type
        ([21, 0x03, 0x03] + Array(alert.dropFirst(3)), .malformed),  // TLS, not DTLS, version
    ]

    @Test(arguments: cases)
    func acceptsOnlyWholeRecords(datagram: [UInt8], framing: DtlsRecordFraming.Framing) {
        #expect(datagram.withUnsafeBytes { DtlsRecordFraming.classify($0) } == framing)
    }
}
