/// One ICE candidate (RFC 8445 section 5.1, SDP form in RFC 8839 section 5.1): an address
/// and port where an agent can receive, with what is needed to pair and prioritise it.
///
/// It converts to and from the SDP `candidate:` attribute, which is also what trickle ICE
/// carries (`RTCIceCandidate.candidate`):
///
/// ```swift
/// let candidate = try IceCandidate(sdp: "candidate:1 1 udp 2122252543 192.0.2.7 42738 typ host")
/// candidate.sdp   // "candidate:1 1 udp 2122252543 192.0.2.7 42738 typ host"
/// ```
///
/// Extension attributes other than `tcptype` (`generation`, `ufrag`, `network-id`,
/// `network-cost`) are accepted and not kept.
public struct IceCandidate: Sendable, Hashable, CustomStringConvertible {
    /// The candidate type (RFC 8445 section 5.1.1).
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// An address of a local interface.
        case host
        /// The address a STUN server saw (server reflexive).
        case srflx
        /// An address learnt from a connectivity check (peer reflexive).
        case prflx
        /// An address on a TURN relay.
        case relay
    }

    /// The transport protocol of the candidate.
    public enum TransportProtocol: String, Sendable, Hashable {
        case udp, tcp
    }

    /// The role of a TCP candidate (RFC 6544 section 4.5).
    public enum TCPType: String, Sendable, Hashable {
        case active, passive, so
    }

    /// Why a `candidate:` attribute could not be read.
    public struct ParseError: Error, Equatable, CustomStringConvertible {
        /// The attribute as given.
        public var attribute: String
        /// What was expected and where.
        public var reason: String
        public var description: String { "invalid ICE candidate '\(attribute)': \(reason)" }
    }

    /// Groups candidates of the same type, base and server (1 to 32 `ice-char`s).
    public var foundation: String
    /// The component: 1 for RTP (and everything with rtcp-mux), 2 for RTCP.
    public var component: Int
    /// UDP or TCP.
    public var transport: TransportProtocol
    /// The priority (RFC 8445 section 5.1.2); higher is preferred.
    public var priority: UInt32
    /// An IP literal (IPv6 without brackets), or an mDNS name ending in `.local`.
    public var address: String
    /// The port of ``address``.
    public var port: UInt16
    /// Host, server-reflexive, peer-reflexive or relayed.
    public var type: Kind
    /// The base (host) or mapped address this candidate derives from (`raddr`).
    public var relatedAddress: String?
    /// The port of ``relatedAddress`` (`rport`).
    public var relatedPort: UInt16?
    /// For TCP candidates, `tcptype`.
    public var tcpType: TCPType?

    /// Creates a candidate from its parts.
    public init(foundation: String, component: Int, transport: TransportProtocol = .udp, priority: UInt32,
                address: String, port: UInt16, type: Kind, relatedAddress: String? = nil,
                relatedPort: UInt16? = nil, tcpType: TCPType? = nil) {
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
    }

    /// Whether the address is an mDNS name (`<uuid>.local`) that browsers use to hide host
    /// addresses (draft-ietf-mmusic-mdns-ice-candidates).
    public var isMDNS: Bool {
        address.lowercased().hasSuffix(".local")
    }

    /// Reads a `candidate:` attribute, with or without a leading `a=`.
    ///
    /// ```
    /// candidate-attribute = "candidate" ":" foundation SP component-id SP transport SP
    ///                       priority SP connection-address SP port SP "typ" SP cand-type
    ///                       [SP "raddr" SP addr] [SP "rport" SP port] *(SP ext-name SP ext-value)
    /// ```
    public init(sdp attribute: String) throws(ParseError) {
        func fail(_ reason: String) -> ParseError { ParseError(attribute: attribute, reason: reason) }
        var text = Substring(attribute)
        while let last = text.last, last.isNewline { text = text.dropLast() }
        if text.hasPrefix("a=") { text = text.dropFirst(2) }
        guard text.lowercased().hasPrefix("candidate:") else { throw fail("expected it to start with 'candidate:'") }
        let fields = text.dropFirst("candidate:".count).split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 8 else {
            throw fail("expected at least 8 fields (foundation component transport priority address port typ type), found \(fields.count)")
        }

        let foundation = fields[0]
        guard (1...32).contains(foundation.count), foundation.allSatisfy(\.isIceChar) else {
            throw fail("foundation '\(foundation)' is not 1 to 32 letters, digits, '+' or '/'")
        }
        guard let component = Int(fields[1]), (1...256).contains(component) else {
            throw fail("component '\(fields[1])' is not a number from 1 to 256")
        }
        guard let transport = TransportProtocol(rawValue: fields[2].lowercased()) else {
            throw fail("transport '\(fields[2])' is not 'udp' or 'tcp'")
        }
        guard let priority = UInt32(fields[3]) else { throw fail("priority '\(fields[3])' is not a number from 0 to 4294967295") }
        let address = fields[4]
        guard address.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else { throw fail("address '\(address)' is not an IP address or host name") }
        guard let port = UInt16(fields[5]) else { throw fail("port '\(fields[5])' is not a number from 0 to 65535") }
        guard fields[6] == "typ" else { throw fail("expected 'typ' as field 7, found '\(fields[6])'") }
        guard let type = Kind(rawValue: fields[7].lowercased()) else {
            throw fail("candidate type '\(fields[7])' is not host, srflx, prflx or relay")
        }

        var relatedAddress: String?
        var relatedPort: UInt16?
        var tcpType: TCPType?
        var index = 8
        while index < fields.count {
            let name = fields[index]
            guard index + 1 < fields.count else { throw fail("extension '\(name)' has no value") }
            let value = fields[index + 1]
            switch name {
            case "raddr":
                relatedAddress = String(value)
            case "rport":
                guard let number = UInt16(value) else { throw fail("rport '\(value)' is not a number from 0 to 65535") }
                relatedPort = number
            case "tcptype":
                guard let kind = TCPType(rawValue: value.lowercased()) else {
                    throw fail("tcptype '\(value)' is not active, passive or so")
                }
                tcpType = kind
            default:
                break
            }
            index += 2
        }

        self.init(foundation: String(foundation), component: component, transport: transport, priority: priority,
                  address: String(address), port: port, type: type, relatedAddress: relatedAddress,
                  relatedPort: relatedPort, tcpType: tcpType)
    }

    /// The `candidate:` attribute value (without `a=`), as trickled and as put in SDP.
    public var sdp: String {
        var text = "candidate:\(foundation) \(component) \(transport.rawValue) \(priority) \(address) \(port) typ \(type.rawValue)"
        if let relatedAddress { text += " raddr \(relatedAddress)" }
        if let relatedPort { text += " rport \(relatedPort)" }
        if let tcpType { text += " tcptype \(tcpType.rawValue)" }
        return text
    }

    public var description: String { sdp }
}

extension Character {
    /// `ice-char = ALPHA / DIGIT / "+" / "/"` (RFC 8839).
    fileprivate var isIceChar: Bool {
        isASCII && (isLetter || isNumber || self == "+" || self == "/")
    }
}
