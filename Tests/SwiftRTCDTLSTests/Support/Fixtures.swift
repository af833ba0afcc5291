import Foundation

/// `<package root>/Fixtures`, found from this file's path.
let fixturesDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // Support
    .deletingLastPathComponent()  // SwiftRTCDTLSTests
    .deletingLastPathComponent()  // Tests
    .deletingLastPathComponent()  // package root
    .appendingPathComponent("Fixtures")

/// Bytes of a hex string (the fixtures' format); traps on bad hex, which only a broken
/// fixture could contain.
func bytes(hex: String) -> [UInt8] {
    let utf8 = Array(hex.utf8)
    precondition(utf8.count % 2 == 0, "odd hex length in fixture")
    return stride(from: 0, to: utf8.count, by: 2).map {
        UInt8(String(decoding: utf8[$0..<$0 + 2], as: UTF8.self), radix: 16)!
    }
}
