/// One `<type>=<value>` line of a session description (RFC 8866 §5), with its 1-based line
/// number for error messages.
public struct SDPLine: Sendable, Hashable {
    /// The one-letter type (`v`, `o`, `m`, `a`, ...).
    public var type: Character
    /// Everything after the `=`.
    public var value: Substring
    /// Where the line stood in the text, counting from 1.
    public var number: Int

    /// Splits SDP text into lines, accepting CRLF or bare LF endings and skipping empty lines.
    /// Lines that are not of the form `x=...` come back with `type` `"?"` for the parser to report.
    public static func split(_ text: String) -> [SDPLine] {
        var lines: [SDPLine] = []
        // "\r\n" is a single Character in Swift, so CRLF and LF both split as one newline.
        for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            if line.isEmpty { continue }
            if line.count >= 2, let first = line.first, first.isASCII, first.isLetter,
               line[line.index(after: line.startIndex)] == "=" {
                lines.append(SDPLine(type: first, value: line.dropFirst(2), number: index + 1))
            } else {
                lines.append(SDPLine(type: "?", value: line, number: index + 1))
            }
        }
        return lines
    }
}
