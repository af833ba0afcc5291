/// One `<type>=<value>` line of a session description (RFC 8866 §5), with its 1-based line
/// number for error messages.
public struct SDPLine: Sendable, Hashable {
    /// The one-letter type (`v`, `o`, `m`, `a`, ...), or `"?"` when the line is not `x=...`.
    public var type: Character
    /// Everything after the `=` (the whole line when `type` is `"?"`), trailing blanks removed.
    public var value: Substring
    /// Where the line stood in the text, counting from 1.
    public var number: Int

    /// The line as written (for error messages).
    var text: String { type == "?" ? String(value) : "\(type)=\(value)" }

    /// Splits SDP text into lines, accepting CRLF or bare LF endings, trailing spaces and
    /// tabs, and empty lines (skipped). Lines that are not of the form `x=...` come back with
    /// `type` `"?"` for the parser to report.
    public static func split(_ text: String) -> [SDPLine] {
        var lines: [SDPLine] = []
        // "\r\n" is a single Character in Swift, so CRLF and LF both split as one newline.
        // Other Unicode line separators are not SDP line endings and stay inside the line.
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: isLineEnding).enumerated() {
            var line = raw
            while let last = line.last, last == " " || last == "\t" { line.removeLast() }
            if line.isEmpty { continue }
            if line.count >= 2, let first = line.first, first.isASCII, first.isLetter,
                line[line.index(after: line.startIndex)] == "="
            {
                lines.append(SDPLine(type: first, value: line.dropFirst(2), number: index + 1))
            } else {
                lines.append(SDPLine(type: "?", value: line, number: index + 1))
            }
        }
        return lines
    }

    /// CRLF, LF, or a bare CR.
    static func isLineEnding(_ c: Character) -> Bool { c == "\r\n" || c == "\n" || c == "\r" }
}
