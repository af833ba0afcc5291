import Foundation
import Testing

/// No flag is accepted and ignored: for every command, each option it declares, and each
/// option of each option group it includes, is read by the command's code, either directly
/// (`group.option`) or through a method or computed property of the group that the command
/// calls. A group's `validate()` does not count: checking a value is not using it. (This is
/// how `demo` took `--stats-json` from the shared options and never printed JSON.)
@Suite struct OptionCoverageTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/callbot")

    /// A struct of the callbot sources: its options (property names), its option groups
    /// (property name to type), and its members' bodies (name to text), `validate` left out.
    struct Declared {
        var options: [String] = []
        var groups: [String: String] = [:]
        var members: [String: String] = [:]
        var isCommand = false
        var text = ""
    }

    /// Every struct of the callbot sources, by name (extensions add their members; a command
    /// nested in another, as `sdp check`, is a struct of its own).
    static func structs() throws -> [String: Declared] {
        var found: [String: Declared] = [:]
        let files = try FileManager.default.contentsOfDirectory(atPath: sources.path).filter { $0.hasSuffix(".swift") }
        for file in files {
            let lines = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
                .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            // The open structs, innermost last, each with the indentation of its members.
            var open: [(name: String, indent: String)] = []
            var pendingAttribute: String?
            var member: String?
            for line in lines {
                if let match = line.firstMatch(of: /^( *)(?:struct|extension|enum|final class) (\w+)/),
                    match.1.count == (open.last?.indent.count ?? 0)
                {
                    let name = String(match.2)
                    open.append((name, String(match.1) + "    "))
                    member = nil
                    if line.contains("ParsableCommand") { found[name, default: Declared()].isCommand = true }
                    continue
                }
                if let innermost = open.last, line.hasPrefix(String(innermost.indent.dropLast(4)) + "}") {
                    open.removeLast()
                    member = nil
                    continue
                }
                guard let (name, indent) = open.last else { continue }
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                let atMemberLevel = line.hasPrefix(indent) && !line.hasPrefix(indent + " ")
                if atMemberLevel && trimmed.hasPrefix("@") {
                    pendingAttribute = trimmed
                }
                if atMemberLevel,
                    let match = trimmed.firstMatch(
                        of: /^(?:@\w+(?:\(.*\))? )?(?:static )?(?:private )?(?:mutating )?(?:var|func|let) (\w+)/
                    )
                {
                    let property = String(match.1)
                    let attribute = trimmed.hasPrefix("@") ? trimmed : pendingAttribute ?? ""
                    if attribute.hasPrefix("@OptionGroup"), let type = line.firstMatch(of: /var \w+: (\w+)/) {
                        found[name, default: Declared()].groups[property] = String(type.1)
                    } else if attribute.hasPrefix("@Option") || attribute.hasPrefix("@Flag")
                        || attribute.hasPrefix("@Argument")
                    {
                        found[name, default: Declared()].options.append(property)
                    }
                    pendingAttribute = nil
                    member = property == "validate" ? nil : property
                    // A one-line member: its body is on this line.
                    if let member { found[name, default: Declared()].members[member, default: ""] += line + "\n" }
                    continue
                }
                if atMemberLevel && !trimmed.hasPrefix("@") && !trimmed.hasPrefix(")") && !trimmed.hasPrefix("}")
                    && !trimmed.hasPrefix("///") && !trimmed.hasPrefix("help") && !trimmed.hasPrefix("name")
                {
                    member = nil
                }
                if let member, line.hasPrefix(indent + "    ") {
                    found[name, default: Declared()].members[member, default: ""] += line + "\n"
                }
            }
        }
        return found
    }

    /// The options of `type` that `code` reads through `variable` (`variable.option`, or a
    /// member of the type that reads them, called as `variable.member`), recursively through
    /// the type's own groups.
    static func read(_ type: String, as variable: String, in code: String, structs: [String: Declared]) -> Set<String> {
        guard let declared = structs[type] else { return [] }
        var read = Set<String>()
        func contains(_ text: String, _ name: String) -> Bool {
            text.range(of: "\\b" + NSRegularExpression.escapedPattern(for: name) + "\\b", options: .regularExpression)
                != nil
        }
        let outside = code.split(separator: "\n").filter { !$0.contains("@OptionGroup") }.joined(separator: "\n")
        // Handed on whole (`ice: ice`): read where a receiver reads it, as `x.option` or
        // `x.member()` anywhere in the sources.
        if !variable.isEmpty,
            outside.range(
                of: "\\b" + NSRegularExpression.escapedPattern(for: variable) + "\\b(?!\\.)",
                options: .regularExpression
            ) != nil
        {
            let everywhere = structs.values.flatMap(\.members.values).joined(separator: "\n")
            read.formUnion(Self.read(type, as: "", in: everywhere, structs: structs))
        }
        for option in declared.options where contains(code, "\(variable).\(option)") { read.insert(option) }
        // The members called, and the members they call in turn.
        var called = Set(declared.members.keys.filter { contains(code, "\(variable).\($0)") })
        var added = called
        while !added.isEmpty {
            let bodies = added.compactMap { declared.members[$0] }.joined(separator: "\n")
            added = Set(declared.members.keys.filter { !called.contains($0) && contains(bodies, $0) })
            called.formUnion(added)
        }
        for member in called {
            let body = declared.members[member] ?? ""
            for option in declared.options where contains(body, option) { read.insert(option) }
            for (group, groupType) in declared.groups {
                read.formUnion(Self.read(groupType, as: group, in: body, structs: structs).map { "\(group).\($0)" })
            }
        }
        for (group, groupType) in declared.groups {
            read.formUnion(
                Self.read(groupType, as: "\(variable).\(group)", in: code, structs: structs).map { "\(group).\($0)" }
            )
        }
        return read
    }

    /// Every option a type declares, its groups' as `group.option`.
    static func all(_ type: String, structs: [String: Declared]) -> Set<String> {
        guard let declared = structs[type] else { return [] }
        var all = Set(declared.options)
        for (group, groupType) in declared.groups {
            all.formUnion(Self.all(groupType, structs: structs).map { "\(group).\($0)" })
        }
        return all
    }

    @Test func everyOptionOfEveryCommandIsRead() throws {
        let structs = try Self.structs()
        let commands = structs.filter { $0.value.isCommand }
        // Every subcommand of callbot (and the nested sdp/rtp ones) is found.
        #expect(commands.count >= 14, "\(commands.keys.sorted())")
        var unread: [String] = []
        for (name, command) in commands.sorted(by: { $0.key < $1.key }) {
            // The command's own code: everything in it except its `validate`.
            let code = command.members.values.joined(separator: "\n")
            for option in command.options
            where code.range(of: "\\b\(option)\\b", options: .regularExpression) == nil {
                unread.append("\(name).\(option)")
            }
            for (group, type) in command.groups {
                let read = Self.read(type, as: group, in: code, structs: structs)
                for option in Self.all(type, structs: structs).subtracting(read).sorted() {
                    unread.append("\(name).\(group).\(option)")
                }
            }
        }
        // A permission is read where it permits: `--insecure` lets `validate` accept a server
        // listening beyond loopback without TLS, and does nothing else.
        let permissions = ["Serve.tls.insecure", "WhipServer.tls.insecure"]
        #expect(
            unread.filter { !permissions.contains($0) }.isEmpty,
            "options a command accepts and never reads: \(unread)"
        )
    }

    /// The scan itself finds what it must: a group option read only by `validate` is unread.
    @Test func theScanSeesAnOptionReadOnlyByValidate() throws {
        let structs = try Self.structs()
        let ice = try #require(structs["IceOptions"])
        #expect(ice.options.contains("relayOnly") && ice.options.contains("iceUsername"), "\(ice.options)")
        // `servers()` reads the URLs and, through `credentials()`, the credential options.
        let throughServers = Self.read("IceOptions", as: "ice", in: "try ice.servers()", structs: structs)
        #expect(throughServers.isSuperset(of: ["iceServerURLs", "iceUsername", "iceCredential", "iceCredentialFile"]))
        #expect(!throughServers.contains("relayOnly"), "\(throughServers)")
        #expect(Self.read("IceOptions", as: "ice", in: "x = ice.relayOnly", structs: structs) == ["relayOnly"])
        let media = try #require(structs["MediaOptions"])
        #expect(Set(media.options) == ["audio", "video", "noAudio", "noVideo"])
        #expect(media.members["validate"] == nil)
    }
}
