import Foundation
import Testing

@testable import SwiftRTCCodecs

/// G.711 against the reference implementation's output, recorded in `Fixtures/g711/` (Python's
/// `audioop`, Sun's g711.c): the code of every 16-bit sample, and the sample of every code.
@Suite struct G711Tests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/g711")

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: folder.appendingPathComponent(name)))
    }

    static func samples(_ name: String) throws -> [Int16] {
        let raw = try bytes(name)
        return stride(from: 0, to: raw.count, by: 2).map {
            Int16(bitPattern: UInt16(raw[$0]) | UInt16(raw[$0 + 1]) << 8)
        }
    }

    static let everySample = (Int(Int16.min)...Int(Int16.max)).map { Int16($0) }

    @Test(arguments: [(G711.Law.mu, "pcmu-of-every-sample.bin"), (.a, "pcma-of-every-sample.bin")])
    func everySampleEncodesAsTheReferenceDoes(law: G711.Law, fixture: String) throws {
        let expected = try Self.bytes(fixture)
        let encoded = G711.encode(Self.everySample, law: law)
        #expect(expected.count == 65536)
        let wrong = zip(encoded, expected).enumerated().filter { $0.element.0 != $0.element.1 }
        #expect(wrong.isEmpty, "first differences (index, ours, reference): \(wrong.prefix(5))")
    }

    @Test(arguments: [(G711.Law.mu, "pcmu-decoded.bin"), (.a, "pcma-decoded.bin")])
    func everyCodeDecodesAsTheReferenceDoes(law: G711.Law, fixture: String) throws {
        let expected = try Self.samples(fixture)
        #expect(expected.count == 256)
        #expect(G711.decode(Array(0...255), law: law) == expected)
    }

    /// Decoding then encoding gives the code back (each code's sample lies in its own segment),
    /// but for µ-law's two zeros (0x7F, negative zero, decodes to the 0 that encodes as 0xFF).
    @Test func aDecodedCodeEncodesBack() {
        for code in UInt8.min...UInt8.max {
            #expect(G711.aLaw(G711.linear(aLaw: code)) == code)
            if code != 0x7F { #expect(G711.muLaw(G711.linear(muLaw: code)) == code) }
        }
    }
}
