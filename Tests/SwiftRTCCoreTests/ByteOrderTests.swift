import Testing

@testable import SwiftRTCCore

/// The one byte-order reader: the network's big-endian and the files' little-endian loads at
/// any (unaligned) offset, and the stores and appenders that write what they read.
@Suite struct ByteOrderTests {
    static let bytes: [UInt8] = [0xFF, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08]

    @Test func loadsBothByteOrdersAtUnalignedOffsets() {
        Self.bytes.withUnsafeBytes { b in
            #expect(b.u8(1) == 0x01)
            #expect(b.u16(1) == 0x0102 && b.le16(1) == 0x0201)
            #expect(b.u24(1) == 0x01_0203)
            #expect(b.u32(1) == 0x0102_0304 && b.le32(1) == 0x0403_0201)
            #expect(b.u64(1) == 0x0102_0304_0506_0708 && b.le64(1) == 0x0807_0605_0403_0201)
        }
    }

    @Test func storesAndAppendsWhatTheLoadsRead() {
        var out = [UInt8](repeating: 0, count: 18)
        out.withUnsafeMutableBytes { b in
            b.put16(0x0102, at: 1)
            b.put24(0x03_0405, at: 3)
            b.put32(0x0607_0809, at: 6)
            b.put64(0x0A0B_0C0D_0E0F_1011, at: 10)
        }
        out.withUnsafeBytes { b in
            #expect(b.u16(1) == 0x0102 && b.u24(3) == 0x03_0405)
            #expect(b.u32(6) == 0x0607_0809 && b.u64(10) == 0x0A0B_0C0D_0E0F_1011)
        }
        var appended: [UInt8] = []
        appended.appendLE16(0x0201)
        appended.appendLE32(0x0605_0403)
        appended.appendLE64(0x0E0D_0C0B_0A09_0807)
        #expect(appended == Array(1...14))
        appended.withUnsafeBytes { #expect($0.le16(0) == 0x0201 && $0.le32(2) == 0x0605_0403) }
    }
}
