import RTPFixtureSupport
import SwiftRTCCore
import Testing

@testable import SwiftRTCRTP

@Suite struct VP8PayloadDescriptorTests {
    /// RFC 7741 §4.2 layouts: each field combination, parsed and written back byte for byte.
    @Test(arguments: [
        ("10", VP8PayloadDescriptor(startOfPartition: true, longPictureID: false), 1),
        ("03", VP8PayloadDescriptor(startOfPartition: false, partitionIndex: 3, longPictureID: false), 1),
        ("90802a", VP8PayloadDescriptor(startOfPartition: true, pictureID: 42, longPictureID: false), 3),
        ("90808123", VP8PayloadDescriptor(startOfPartition: true, pictureID: 0x123, longPictureID: true), 4),
        (
            "90e0ffff0540",
            VP8PayloadDescriptor(startOfPartition: true, pictureID: 0x7FFF, tl0PictureIndex: 5, temporalLayer: 1), 6
        ),
        (
            "a01005",
            VP8PayloadDescriptor(nonReference: true, startOfPartition: false, longPictureID: false, keyIndex: 5), 3
        ),
        (
            "8030e0",
            VP8PayloadDescriptor(
                startOfPartition: false,
                longPictureID: false,
                temporalLayer: 3,
                layerSync: true,
                keyIndex: 0
            ), 3
        ),
    ])
    func rfc7741Layouts(hex: String, expected: VP8PayloadDescriptor, length: Int) throws {
        let bytes = [UInt8](hex: hex) + [0xAB]
        let (descriptor, parsedLength) = try bytes.withUnsafeBytes { try VP8PayloadDescriptor.parse($0) }
        #expect(descriptor == expected)
        #expect(parsedLength == length)
        #expect(expected.encodedLength == length)
        var out = [UInt8](repeating: 0, count: length)
        out.withUnsafeMutableBytes { expected.write(into: $0) }
        #expect(out == Array(bytes[..<length]))
    }

    @Test(arguments: ["", "80", "9080", "908081", "9040", "9020", "9010"])
    func truncatedDescriptorsThrow(hex: String) {
        #expect(throws: RTPError.self) {
            _ = try [UInt8](hex: hex).withUnsafeBytes { try VP8PayloadDescriptor.parse($0) }
        }
    }

    /// RFC 6386 §9.1 keyframe header: start code and 14-bit sizes (scale bits ignored).
    @Test func keyframeHeader() throws {
        let key = [UInt8](hex: "5009009d012a 4081 6841")  // 0x140 | scale 2 = 320, 0x168 | scale 1 = 360
        let header = try #require(key.withUnsafeBytes { VP8FrameHeader(parsing: $0) })
        #expect(header.isKeyframe && header.width == 320 && header.height == 360)
        let delta = try #require([UInt8](hex: "310100").withUnsafeBytes { VP8FrameHeader(parsing: $0) })
        #expect(!delta.isKeyframe && delta.width == nil)
        // A keyframe with a wrong start code, and one cut short: no header.
        #expect([UInt8](hex: "5009009d012b40016801").withUnsafeBytes { VP8FrameHeader(parsing: $0) } == nil)
        #expect([UInt8](hex: "5009009d01").withUnsafeBytes { VP8FrameHeader(parsing: $0) } == nil)
        #expect([UInt8](hex: "5009").withUnsafeBytes { VP8FrameHeader(parsing: $0) } == nil)
    }
}
