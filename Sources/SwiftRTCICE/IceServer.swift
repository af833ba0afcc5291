/// A STUN or TURN server as WebRTC configures it: a `stun:`, `turn:` or `turns:` URL
/// (RFC 7064, RFC 7065) with optional long-term credentials.
///
/// ```swift
/// let relay = try IceServer(url: "turn:127.0.0.1:3478?transport=udp", username: "bot", credential: "secret")
/// ```
public struct IceServer: Sendable, Hashable, CustomStringConvertible {
    /// The URL schemes WebRTC defines for ICE servers.
    public enum Scheme: String, Sendable, Hashable {
        case stun, stuns, turn, turns
        /// Whether the server relays media (TURN) rather than only reflecting addresses.
        public var isRelay: Bool { self == .turn || self == .turns }
        /// Whether the connection to the server runs over TLS.
        public var isSecure: Bool { self == .stuns || self == .turns }
    }

    /// The transport to the server, from `?transport=` (TURN only).
    public enum Transport: String, Sendable, Hashable { case udp, tcp }

    /// Why a URL is not a usable ICE server.
    public struct ParseError: Error, Equatable, CustomStringConvertible {
        /// The URL as given.
        public var url: String
        /// What was wrong with it.
        public var reason: String
        public var description: String { "invalid ICE server URL '\(url)': \(reason)" }
    }

    /// `stun`, `stuns`, `turn` or `turns`.
    public var scheme: Scheme
    /// Host name or IP literal (IPv6 without brackets).
    public var host: String
    /// The port (3478, or 5349 for TLS, unless given).
    public var port: UInt16
    /// UDP or TCP to the server.
    public var transport: Transport
    /// The TURN username.
    public var username: String?
    /// The TURN password (long-term credential).
    public var credential: String?

    /// Parses a WebRTC ICE server URL. The port defaults to 3478 (5349 for `stuns:`/`turns:`);
    /// the transport to UDP, or TCP for `turns:`.
    public init(url: String, username: String? = nil, credential: String? = nil) throws(ParseError) {
        func fail(_ reason: String) -> ParseError { ParseError(url: url, reason: reason) }
        guard let colon = url.firstIndex(of: ":") else { throw fail("expected a scheme such as 'stun:' or 'turn:'") }
        guard let scheme = Scheme(rawValue: url[..<colon].lowercased()) else {
            throw fail("unknown scheme '\(url[..<colon])', expected stun, stuns, turn or turns")
        }
        var rest = Substring(url[url.index(after: colon)...])
        if rest.hasPrefix("//") { throw fail("ICE server URLs take no '//' (write \(scheme.rawValue):host:port)") }

        var transport: Transport = scheme == .turns ? .tcp : .udp
        if let question = rest.firstIndex(of: "?") {
            let query = rest[rest.index(after: question)...]
            rest = rest[..<question]
            guard scheme.isRelay else { throw fail("only turn: and turns: URLs take a query") }
            guard query.hasPrefix("transport="),
                let value = Transport(rawValue: query.dropFirst("transport=".count).lowercased())
            else {
                throw fail("expected '?transport=udp' or '?transport=tcp'")
            }
            transport = value
        }

        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw fail("unclosed '[' in IPv6 address") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw fail("expected ':port' after ']'") }
                portText = after.dropFirst()
            }
        } else if let portColon = rest.lastIndex(of: ":") {
            host = rest[..<portColon]
            portText = rest[rest.index(after: portColon)...]
        } else {
            host = rest
        }
        guard !host.isEmpty else { throw fail("missing host") }
        guard !host.contains(where: { $0 == "/" || $0 == "@" || $0 == " " || $0 == ":" && !rest.hasPrefix("[") }) else {
            throw fail("unexpected character in host '\(host)'")
        }
        var port: UInt16 = scheme.isSecure ? 5349 : 3478
        if let portText {
            guard let value = UInt16(portText), value > 0 else {
                throw fail("port '\(portText)' is not a number from 1 to 65535")
            }
            port = value
        }
        if scheme.isRelay && (username == nil || credential == nil) {
            throw fail("TURN servers need a username and a credential")
        }
        self.scheme = scheme
        self.host = String(host)
        self.port = port
        self.transport = transport
        self.username = username
        self.credential = credential
    }

    /// The URL in canonical form (credentials are never part of it).
    public var description: String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        let query = scheme.isRelay ? "?transport=\(transport.rawValue)" : ""
        return "\(scheme.rawValue):\(hostPart):\(port)\(query)"
    }
}
