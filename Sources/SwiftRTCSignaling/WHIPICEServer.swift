/// A STUN or TURN server a WHIP endpoint offers its clients in a `Link` header (RFC 9725
/// §4.6, RFC 8288), in its `201 Created` and in its reply to `OPTIONS`:
///
///     Link: <turn:turn.example.net?transport=udp>; rel="ice-server"; username="user"; credential="pass"; credential-type="password"
///
/// Read from a server: at most ``maxServers``, each URL a `stun:`, `stuns:`, `turn:` or
/// `turns:` one of at most ``maxLength`` characters; other links are skipped.
public struct WHIPICEServer: Sendable, Hashable, CustomStringConvertible {
    /// The most servers taken from one response.
    public static let maxServers = 16
    /// The longest URL, username or credential taken.
    public static let maxLength = 512

    /// The server's URL (`turn:host:port?transport=udp`).
    public var url: String
    /// The TURN username.
    public var username: String?
    /// The TURN password (`credential-type="password"`).
    public var credential: String?

    /// A server at `url`, with TURN credentials when given.
    public init(url: String, username: String? = nil, credential: String? = nil) {
        self.url = url
        self.username = username
        self.credential = credential
    }

    /// The server as a `Link` header's value.
    public var linkValue: String {
        var value = "<\(url)>; rel=\"ice-server\""
        if let username { value += "; username=\(Self.quoted(username))" }
        if let credential { value += "; credential=\(Self.quoted(credential)); credential-type=\"password\"" }
        return value
    }

    /// The URL, and whether credentials come with it (never the credential).
    public var description: String { "\(url)\(username == nil ? "" : " (with credentials)")" }

    /// The `rel="ice-server"` links of `Link` header values (each may list several links).
    public static func servers(inLinkHeaders values: [String]) -> [WHIPICEServer] {
        var servers: [WHIPICEServer] = []
        for value in values {
            for link in Self.links(in: value) {
                guard servers.count < maxServers else { return servers }
                if let server = Self.server(link) { servers.append(server) }
            }
        }
        return servers
    }

    /// One link (`<uri>; name=value; ...`) as a server, when it is one.
    private static func server(_ link: Substring) -> WHIPICEServer? {
        let trimmed = link.drop { $0 == " " || $0 == "\t" }
        guard trimmed.first == "<", let close = trimmed.firstIndex(of: ">") else { return nil }
        let url = String(trimmed[trimmed.index(after: trimmed.startIndex)..<close])
        let scheme = url.prefix { $0 != ":" }.lowercased()
        guard url.count <= maxLength, ["stun", "stuns", "turn", "turns"].contains(scheme) else { return nil }
        var parameters: [String: String] = [:]
        for parameter in split(trimmed[trimmed.index(after: close)...], on: ";") {
            let parts = parameter.split(separator: "=", maxSplits: 1)
            guard let name = parts.first?.trimmingBlanks.lowercased(), parts.count == 2 else { continue }
            var value = parts[1].trimmingBlanks
            if value.first == "\"", value.last == "\"", value.count >= 2 {
                value = unescaped(value.dropFirst().dropLast())
            }
            if parameters[name] == nil { parameters[name] = String(value) }
        }
        guard parameters["rel"]?.split(separator: " ").contains("ice-server") == true else { return nil }
        let username = parameters["username"], credential = parameters["credential"]
        guard (username?.count ?? 0) <= maxLength, (credential?.count ?? 0) <= maxLength else { return nil }
        return WHIPICEServer(url: url, username: username, credential: credential)
    }

    /// The links of a header value: split at commas outside `<...>` and quotes.
    private static func links(in value: String) -> [Substring] { split(Substring(value), on: ",") }

    /// `text` split at `separator` where it is outside `<...>` and double quotes.
    private static func split(_ text: Substring, on separator: Character) -> [Substring] {
        var parts: [Substring] = []
        var start = text.startIndex, inQuotes = false, inBrackets = false, escaped = false
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if escaped {
                escaped = false
            } else if inQuotes {
                if character == "\\" { escaped = true } else if character == "\"" { inQuotes = false }
            } else if character == "\"" {
                inQuotes = true
            } else if character == "<" {
                inBrackets = true
            } else if character == ">" {
                inBrackets = false
            } else if character == separator, !inBrackets {
                parts.append(text[start..<index])
                start = text.index(after: index)
            }
            index = text.index(after: index)
        }
        parts.append(text[start...])
        return parts
    }

    /// A quoted-string's content without its backslash escapes (RFC 9110 §5.6.4).
    private static func unescaped(_ text: Substring) -> Substring {
        var result = ""
        var escaped = false
        for character in text {
            if !escaped, character == "\\" {
                escaped = true
                continue
            }
            escaped = false
            result.append(character)
        }
        return Substring(result)
    }

    /// `text` as a quoted-string.
    private static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    fileprivate var trimmingBlanks: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}
