/// `a=fingerprint:<hash-function> <hex:hex:...>` (RFC 8122 §5): the DTLS certificate's hash.
public struct Fingerprint: Sendable, Hashable, Codable {
    /// The hash function as written (`sha-256`, `sha-384`, `SHA-1`...).
    public var hashFunction: String
    /// Colon-separated uppercase or lowercase hex bytes, as written.
    public var value: String

    /// Creates a fingerprint.
    public init(hashFunction: String, value: String) {
        self.hashFunction = hashFunction
        self.value = value
    }

    /// The hash bytes (the parser has checked the form).
    public var bytes: [UInt8] {
        value.split(separator: ":").compactMap { UInt8($0, radix: 16) }
    }

    /// Whether `self` and `other` name the same hash function and bytes, ignoring case.
    public func matches(_ other: Fingerprint) -> Bool {
        hashFunction.lowercased() == other.hashFunction.lowercased() && bytes == other.bytes
    }

    /// Formats `bytes` as an SDP fingerprint (uppercase hex with colons), as browsers write it.
    public init(hashFunction: String, bytes: [UInt8]) {
        let hex = Array("0123456789ABCDEF")
        self.init(
            hashFunction: hashFunction,
            value: bytes.map { String([hex[Int($0 >> 4)], hex[Int($0 & 0xF)]]) }.joined(separator: ":")
        )
    }

    init(parsing value: Substring, line: SDPLine) throws(SDPParseError) {
        let parts = value.split(separator: " ", omittingEmptySubsequences: true)
        let expected = "a=fingerprint:<hash function> <hex bytes separated by colons>"
        guard parts.count == 2 else { throw SDPParseError(line, expected: expected) }
        let octets = parts[1].split(separator: ":", omittingEmptySubsequences: false)
        guard octets.allSatisfy({ $0.count == 2 && UInt8($0, radix: 16) != nil }) else {
            throw SDPParseError(line, expected: expected)
        }
        self.init(hashFunction: String(parts[0]), value: String(parts[1]))
    }

    var sdpValue: String { "\(hashFunction) \(value)" }
}
