import SwiftRTCCore

/// One `a=` line taken apart: the attribute's name, and its value after the colon (empty
/// without one), with the readers its values share.
struct SDPAttributeLine {
    let line: SDPLine
    let name: Substring
    let value: Substring
    /// Whether the line has a colon (a value, possibly empty).
    let hasValue: Bool

    init(_ line: SDPLine) {
        let colon = line.value.firstIndex(of: ":")
        self.line = line
        name = colon.map { line.value[..<$0] } ?? line.value
        value = colon.map { line.value[line.value.index(after: $0)...] } ?? ""
        hasValue = colon != nil
    }

    /// The error for this line, saying what was expected.
    func error(_ expected: String) -> SDPParseError { SDPParseError(line, expected: expected) }

    /// A flag attribute: it takes no value (an empty one is tolerated).
    func flag(_ set: inout Bool) throws(SDPParseError) {
        guard value.trimmingBlanks.isEmpty else { throw error("a=\(name) without a value") }
        set = true
    }

    /// The value as a number of type `T`.
    func number<T: FixedWidthInteger>(_: T.Type, _ what: String) throws(SDPParseError) -> T {
        guard let n = T(value.trimmingBlanks) else { throw error("\(what): a number from 0 to \(T.max)") }
        return n
    }

    /// A payload type, 0 to 127.
    func payloadType(_ text: Substring) throws(SDPParseError) -> UInt8 {
        guard let pt = UInt8(text), pt < 128 else {
            throw error("a payload type from 0 to 127 after a=\(name):")
        }
        return pt
    }

    /// The value, which must not be blank.
    func nonEmpty() throws(SDPParseError) -> String {
        let v = value.trimmingBlanks
        guard !v.isEmpty else { throw error("a value after a=\(name):") }
        return String(v)
    }

    /// `a=group:<semantics> <mid>...`.
    func group() throws(SDPParseError) -> SDPGroup {
        let parts = value.split(separator: " ", omittingEmptySubsequences: true)
        guard let semantics = parts.first else { throw error("a=group:<semantics> <mid>...") }
        return SDPGroup(semantics: String(semantics), mids: parts.dropFirst().map(String.init))
    }

    /// `a=msid-semantic:<semantic> [<stream id>...]`.
    func msidSemantic() throws(SDPParseError) -> MsidSemantic {
        let parts = value.split(separator: " ", omittingEmptySubsequences: true)
        guard let semantic = parts.first else { throw error("a=msid-semantic:<semantic> [<stream id>...]") }
        return MsidSemantic(semantic: String(semantic), identifiers: parts.dropFirst().map(String.init))
    }

    /// `a=msid:<stream id> [<track id>]`.
    func msid() throws(SDPParseError) -> Msid {
        let parts = value.split(separator: " ", omittingEmptySubsequences: true)
        guard (1...2).contains(parts.count) else { throw error("a=msid:<stream id> [<track id>]") }
        return Msid(streamId: String(parts[0]), trackId: parts.count == 2 ? String(parts[1]) : nil)
    }

    /// `a=rtcp:<port> [<nettype> <addrtype> <address>]`.
    func rtcpAddress() throws(SDPParseError) -> RtcpAddress {
        let parts = value.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 1 || parts.count == 4, let port = UInt16(parts[0]) else {
            throw error("a=rtcp:<port 0-65535> [<nettype> <addrtype> <address>]")
        }
        return RtcpAddress(
            port: port,
            connection: parts.count == 4
                ? ConnectionData(
                    networkType: String(parts[1]),
                    addressType: String(parts[2]),
                    address: String(parts[3])
                )
                : nil
        )
    }

    /// `a=sctpmap:<port> <application> [<streams>]` (the SCTP section's draft form).
    func sctpMap() throws(SDPParseError) -> SctpMap {
        let parts = value.split(separator: " ", omittingEmptySubsequences: true)
        guard (2...3).contains(parts.count), let port = UInt16(parts[0]) else {
            throw error("a=sctpmap:<port> <application> [<streams>]")
        }
        var streams: UInt32?
        if parts.count == 3 {
            guard let n = UInt32(parts[2]) else { throw error("a number of streams in a=sctpmap") }
            streams = n
        }
        return SctpMap(port: port, application: String(parts[1]), streams: streams)
    }
}
