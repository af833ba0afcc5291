import SwiftRTCCore
import SwiftRTCSDP
import Testing

/// Descriptions a hostile peer could send: numbers and counts past the limits of
/// ``RemoteInputLimits`` are clamped or refused with a line-numbered error, never trap.
@Suite struct SDPLimitsTests {
    static let head = "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"
    static func audioSection(_ mid: Int) -> String {
        "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\nc=IN IP4 0.0.0.0\r\na=mid:\(mid)\r\na=rtpmap:111 opus/48000/2\r\n"
    }

    /// `b=` values larger than any link are read as ``RemoteInputLimits/maxBitrate``, so
    /// turning kbit/s into bit/s cannot overflow; values up to it are kept as written.
    @Test(arguments: [
        ("b=AS:9223372036854776", UInt64(RemoteInputLimits.maxBitrate)),
        ("b=TIAS:18446744073709551615", UInt64(RemoteInputLimits.maxBitrate)),
        ("b=AS:64", 64),
        ("b=TIAS:1000000000", 1_000_000_000),
    ])
    func bandwidthValuesAreClamped(line: String, value: UInt64) throws {
        let sdp = Self.head + line + "\r\n" + Self.audioSection(0) + line + "\r\n"
        let parsed = try SessionDescription(parsing: sdp)
        #expect(parsed.bandwidths.first?.value == value)
        #expect(parsed.media.first?.bandwidths.first?.value == value)
    }

    @Test func tooManySectionsAreRefused() throws {
        let limit = RemoteInputLimits.maxMediaSections
        let allowed = Self.head + (0..<limit).map(Self.audioSection).joined()
        #expect(try SessionDescription(parsing: allowed).media.count == limit)
        let hostile = Self.head + (0..<500).map(Self.audioSection).joined()
        let error = #expect(throws: SDPParseError.self) { try SessionDescription(parsing: hostile) }
        #expect(error?.expected == "at most \(limit) m= sections in a description")
        #expect(error?.lineNumber == 5 + 4 * limit)
    }

    @Test func tooManyCandidatesAreRefused() throws {
        let limit = RemoteInputLimits.maxCandidatesPerSection
        func sdp(_ count: Int) -> String {
            Self.head + Self.audioSection(0)
                + (0..<count).map {
                    "a=candidate:\($0) 1 udp 2122260223 10.0.\($0 / 250).\($0 % 250 + 1) 9 typ host\r\n"
                }.joined()
        }
        #expect(try SessionDescription(parsing: sdp(limit)).media[0].candidates.count == limit)
        let error = #expect(throws: SDPParseError.self) { try SessionDescription(parsing: sdp(10 * limit)) }
        #expect(error?.expected == "at most \(limit) candidates in a section")
    }

    @Test func tooManyLinesAreRefused() throws {
        let limit = RemoteInputLimits.maxDescriptionLines
        let hostile = Self.head + Self.audioSection(0) + String(repeating: "a=x-filler\r\n", count: limit)
        let error = #expect(throws: SDPParseError.self) { try SessionDescription(parsing: hostile) }
        #expect(error?.expected == "at most \(limit) lines in a description")
        #expect(error?.lineNumber == limit + 1)
    }
}
