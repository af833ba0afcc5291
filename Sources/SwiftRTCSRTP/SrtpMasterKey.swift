/// An SRTP master key and master salt, the keying one direction of a session uses.
public struct SrtpMasterKey: Sendable, Hashable {
    /// The master key (16 or 32 bytes, ``SrtpProfile/keyLength``).
    public var key: [UInt8]
    /// The master salt (14 or 12 bytes, ``SrtpProfile/saltLength``).
    public var salt: [UInt8]

    /// A master key and salt, as given (lengths are checked when a session is created).
    public init(key: [UInt8], salt: [UInt8]) {
        self.key = key
        self.salt = salt
    }
}

extension SrtpProfile {
    /// Splits DTLS-SRTP keying material (the `EXTRACTOR-dtls_srtp` exporter output) into the
    /// DTLS client's and server's write keys (RFC 5764 §4.2):
    ///
    ///     client_write_SRTP_master_key | server_write_SRTP_master_key |
    ///     client_write_SRTP_master_salt | server_write_SRTP_master_salt
    ///
    /// The DTLS client protects with `client` and unprotects with `server`; the server the
    /// other way round. Returns nil unless `material` is ``keyingMaterialLength`` bytes.
    public func masterKeys(fromKeyingMaterial material: [UInt8]) -> (client: SrtpMasterKey, server: SrtpMasterKey)? {
        guard material.count == keyingMaterialLength else { return nil }
        let k = keyLength, s = saltLength
        let client = SrtpMasterKey(key: Array(material[0..<k]), salt: Array(material[2 * k..<2 * k + s]))
        let server = SrtpMasterKey(key: Array(material[k..<2 * k]), salt: Array(material[2 * k + s..<2 * k + 2 * s]))
        return (client, server)
    }
}
