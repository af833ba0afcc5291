/// An ICE candidate as carried in `a=candidate` (RFC 8839 §5.1) and in trickled
/// `RTCIceCandidate.candidate` strings:
///
///     candidate:<foundation> <component> <transport> <priority> <address> <port> typ <type>
///         [raddr <address> rport <port>] [tcptype active|passive|so] [<extension> <value>]...
///
/// Browser extensions (`generation`, `ufrag`, `network-id`, `network-cost`) are typed; any other
/// extension pair is kept in order.
public struct IceCandidate: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The foundation (1-32 ICE characters).
    public var foundation: String
    /// The component: 1 for RTP, 2 for RTCP.
    public var component: UInt16
    /// The transport as written (`udp`, `UDP`, `tcp`).
    public var transport: String
    /// The candidate's priority.
    public var priority: UInt32
    /// An IPv4 or IPv6 address, or an mDNS name (`<uuid>.local`).
    public var address: String
    /// The port (9 for TCP active candidates).
    public var port: UInt16
    /// host, srflx, prflx or relay.
    public var type: CandidateType
    /// `raddr`: the related (base or mapped) address.
    public var relatedAddress: String?
    /// `rport`: the related port.
    public var relatedPort: UInt16?
    /// `tcptype` (RFC 6544): active, passive or so.
    public var tcpType: TCPType?
    /// `generation` (libwebrtc).
    public var generation: UInt32?
    /// `ufrag`: the ICE username fragment the candidate belongs to (libwebrtc).
    public var ufrag: String?
    /// `network-id` (libwebrtc).
    public var networkId: UInt32?
    /// `network-cost` (libwebrtc).
    public var networkCost: UInt32?
    /// Other `<name> <value>` extension pairs, in order.
    public var extensions: [Extension]

    /// Candidate types (RFC 8445 §5.1.1).
    public enum CandidateType: String, Sendable, Hashable, Codable, CaseIterable {
        case host, srflx, prflx, relay
    }

    /// TCP candidate types (RFC 6544 §4.5).
    public enum TCPType: String, Sendable, Hashable, Codable, CaseIterable {
        case active, passive, so
    }

    /// An extension attribute pair not typed above.
    public struct Extension: Sendable, Hashable, Codable {
        /// The extension's name.
        public var name: String
        /// Its value.
        public var value: String
        /// Creates an extension pair.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The transport protocols ICE runs over (RFC 8445 UDP, RFC 6544 TCP).
    public enum TransportProtocol: String, Sendable, Hashable, Codable, CaseIterable {
        case udp, tcp
    }

    /// The kind of address a candidate carries.
    public enum AddressFamily: String, Sendable, Hashable, Codable {
        case ipv4, ipv6, mdns, hostname
    }

    /// Creates a candidate.
    public init(
        foundation: String,
        component: UInt16,
        transport: String,
        priority: UInt32,
        address: String,
        port: UInt16,
        type: CandidateType,
        relatedAddress: String? = nil,
        relatedPort: UInt16? = nil,
        tcpType: TCPType? = nil,
        generation: UInt32? = nil,
        ufrag: String? = nil,
        networkId: UInt32? = nil,
        networkCost: UInt32? = nil,
        extensions: [Extension] = []
    ) {
        self.foundation = foundation
        self.component = component
        self.transport = transport
        self.priority = priority
        self.address = address
        self.port = port
        self.type = type
        self.relatedAddress = relatedAddress
        self.relatedPort = relatedPort
        self.tcpType = tcpType
        self.generation = generation
        self.ufrag = ufrag
        self.networkId = networkId
        self.networkCost = networkCost
        self.extensions = extensions
    }

    /// Whether the candidate is TCP (RFC 6544) rather than UDP.
    public var isTCP: Bool { transportProtocol == .tcp }

    /// ``transport`` typed (in any case as written), or `nil` for a transport ICE does not run over.
    public var transportProtocol: TransportProtocol? { TransportProtocol(rawValue: transport.lowercased()) }

    /// Whether the address is an mDNS name (`<uuid>.local`) that browsers use to hide host
    /// addresses (draft-ietf-mmusic-mdns-ice-candidates).
    public var isMDNS: Bool { addressFamily == .mdns }

    /// IPv4, IPv6, an mDNS `.local` name, or another host name.
    public var addressFamily: AddressFamily {
        if address.contains(":") { return .ipv6 }
        if address.lowercased().hasSuffix(".local") { return .mdns }
        let octets = address.split(separator: ".", omittingEmptySubsequences: false)
        if octets.count == 4, octets.allSatisfy({ UInt8($0) != nil }) { return .ipv4 }
        return .hostname
    }

    /// Parses a trickled candidate: `candidate:...` or `a=candidate:...` (as in
    /// `RTCIceCandidate.candidate`). Errors name line 1.
    public init(sdpLine: String) throws(SDPParseError) {
        guard let line = SDPLine.split(sdpLine).first else {
            throw SDPParseError(
                lineNumber: 1,
                line: sdpLine,
                expected: "candidate:<foundation> <component> <transport> <priority> <address> <port> typ <type>"
            )
        }
        let value = line.type == "a" || line.type == "?" ? line.value : Substring(line.text)
        guard value.hasPrefix("candidate:") else {
            throw SDPParseError(
                line,
                expected: "candidate:<foundation> <component> <transport> <priority> <address> <port> typ <type>"
            )
        }
        try self.init(parsing: value.dropFirst("candidate:".count), line: line)
    }

    /// The trickle form, `candidate:...` (without `a=`), as `RTCIceCandidate.candidate` carries it.
    public var sdpLine: String { "candidate:" + sdpValue }

    /// ``sdpLine``.
    public var description: String { sdpLine }

    init(parsing value: Substring, line: SDPLine) throws(SDPParseError) {
        let parts = value.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count >= 8, parts[6] == "typ" else {
            throw SDPParseError(
                line,
                expected: "candidate:<foundation> <component> <transport> <priority> <address> <port> typ <type>"
            )
        }
        guard (1...32).contains(parts[0].count), parts[0].allSatisfy(\.isIceChar) else {
            throw SDPParseError(line, expected: "a candidate foundation of 1 to 32 letters, digits, '+' or '/'")
        }
        guard let component = UInt16(parts[1]), (1...256).contains(component) else {
            throw SDPParseError(line, expected: "a candidate component from 1 to 256")
        }
        guard let priority = UInt32(parts[3]) else {
            throw SDPParseError(line, expected: "a candidate priority from 0 to 4294967295")
        }
        guard let port = UInt16(parts[5]) else {
            throw SDPParseError(line, expected: "a candidate port from 0 to 65535")
        }
        guard let type = CandidateType(rawValue: parts[7].lowercased()) else {
            throw SDPParseError(line, expected: "a candidate type (host, srflx, prflx or relay)")
        }
        self.init(
            foundation: String(parts[0]),
            component: component,
            transport: String(parts[2]),
            priority: priority,
            address: String(parts[4]),
            port: port,
            type: type
        )
        try readExtensions(parts.dropFirst(8), line: line)
    }

    /// The name-value pairs after the candidate's type (`raddr`, `rport`, `tcptype`,
    /// `generation`, `ufrag`, `network-id`, `network-cost`; others kept as extensions).
    mutating func readExtensions(_ parts: ArraySlice<Substring>, line: SDPLine) throws(SDPParseError) {
        var index = parts.startIndex
        while index < parts.endIndex {
            guard index + 1 < parts.endIndex else {
                throw SDPParseError(line, expected: "a value after the candidate extension \"\(parts[index])\"")
            }
            let name = parts[index], value = parts[index + 1]
            func number<T: FixedWidthInteger>(_: T.Type) throws(SDPParseError) -> T {
                guard let n = T(value) else {
                    throw SDPParseError(line, expected: "a number from 0 to \(T.max) after \(name)")
                }
                return n
            }
            switch name {
            case "raddr": relatedAddress = String(value)
            case "rport": relatedPort = try number(UInt16.self)
            case "tcptype":
                guard let tcpType = TCPType(rawValue: value.lowercased()) else {
                    throw SDPParseError(line, expected: "a tcptype (active, passive or so)")
                }
                self.tcpType = tcpType
            case "generation": generation = try number(UInt32.self)
            case "ufrag": ufrag = String(value)
            case "network-id": networkId = try number(UInt32.self)
            case "network-cost": networkCost = try number(UInt32.self)
            default: extensions.append(Extension(name: String(name), value: String(value)))
            }
            index += 2
        }
    }

    /// The value of `a=candidate:` (everything after the colon).
    var sdpValue: String {
        var s = "\(foundation) \(component) \(transport) \(priority) \(address) \(port) typ \(type.rawValue)"
        if let relatedAddress { s += " raddr \(relatedAddress)" }
        if let relatedPort { s += " rport \(relatedPort)" }
        if let tcpType { s += " tcptype \(tcpType.rawValue)" }
        if let generation { s += " generation \(generation)" }
        if let ufrag { s += " ufrag \(ufrag)" }
        if let networkId { s += " network-id \(networkId)" }
        if let networkCost { s += " network-cost \(networkCost)" }
        for e in extensions { s += " \(e.name) \(e.value)" }
        return s
    }
}

extension Character {
    /// `ice-char = ALPHA / DIGIT / "+" / "/"` (RFC 8839).
    fileprivate var isIceChar: Bool {
        isASCII && (isLetter || isNumber || self == "+" || self == "/")
    }
}
