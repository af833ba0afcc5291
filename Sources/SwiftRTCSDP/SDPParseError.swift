/// Why a session description could not be read: the 1-based line number, the line itself and
/// what the parser expected to find there.
public struct SDPParseError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The line the error is on, counting from 1 (line endings as written, CRLF or LF).
    public var lineNumber: Int
    /// The text of that line (without its line ending).
    public var line: String
    /// What should have been there, in words.
    public var expected: String

    /// Creates an error for `line`, saying what was `expected`.
    public init(lineNumber: Int, line: String, expected: String) {
        self.lineNumber = lineNumber
        self.line = line
        self.expected = expected
    }

    init(_ line: SDPLine, expected: String) {
        self.init(lineNumber: line.number, line: line.text, expected: expected)
    }

    /// `line 7 "a=rtpmap:x opus/48000": expected a payload type (0-127)`.
    public var description: String {
        // Control characters (binary garbage) are shown escaped so the message stays one line.
        var shown = ""
        for scalar in line.unicodeScalars.prefix(200) {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                shown += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                shown.unicodeScalars.append(scalar)
            }
        }
        if line.unicodeScalars.count > 200 { shown += "..." }
        return "line \(lineNumber) \"\(shown)\": expected \(expected)"
    }
}
