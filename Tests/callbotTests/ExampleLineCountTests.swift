import Foundation
import Testing

/// What the READMEs say of the example bots is what the files hold: `Examples/README.md`'s
/// line count of each bot (`wc -l`) and the README's range of them.
@Suite struct ExampleLineCountTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Lines of `Examples/NAME/main.swift`, as `wc -l` counts them (newline characters).
    static func lines(of name: String) throws -> Int {
        let data = try Data(contentsOf: root.appendingPathComponent("Examples/\(name)/main.swift"))
        return data.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
    }

    /// The example bots: the folders of `Examples/` that hold a `main.swift`.
    static func bots() throws -> [String] {
        let examples = root.appendingPathComponent("Examples")
        return try FileManager.default.contentsOfDirectory(atPath: examples.path).filter {
            FileManager.default.fileExists(atPath: examples.appendingPathComponent("\($0)/main.swift").path)
        }
    }

    @Test func theExamplesTableCountsEachBotsLines() throws {
        let table = try String(contentsOf: Self.root.appendingPathComponent("Examples/README.md"), encoding: .utf8)
        // | [`NAME`](NAME/main.swift) | LINES | ...
        let rows = table.split(separator: "\n").compactMap { line -> (String, Int)? in
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2, cells[0].hasPrefix("[`"), let count = Int(cells[1]),
                let end = cells[0].dropFirst(2).firstIndex(of: "`")
            else { return nil }
            return (String(cells[0].dropFirst(2)[..<end]), count)
        }
        let folders = try Self.bots()
        #expect(Set(rows.map(\.0)) == Set(folders), "every example bot has a row")
        for (name, count) in rows {
            #expect(try Self.lines(of: name) == count, "Examples/README.md: \(name)")
        }
    }

    @Test func theREADMEGivesTheRangeOfTheirLengths() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
            .replacingOccurrences(of: "\n", with: " ")
        let folders = try Self.bots()
        let counts = try folders.map { try Self.lines(of: $0) }
        let claim = "bots of \(counts.min() ?? 0) to \(counts.max() ?? 0) lines"
        #expect(readme.contains(claim), "README.md should say \"\(claim)\"")
    }
}
