/// The SRTP master keys and salts of one DTLS-SRTP association (RFC 5764 §4.2), seen from
/// this endpoint: what it protects with (local) and what it unprotects with (remote).
///
/// The TLS exporter with label `EXTRACTOR-dtls_srtp` and no context yields
///
/// ```
/// +------------------+------------------+-------------------+-------------------+
/// | client write key | server write key | client write salt | server write salt |
/// +------------------+------------------+-------------------+-------------------+
///   key length         key length         salt length         salt length
/// ```
///
/// The DTLS client protects with the client write key and salt, the server with the server's.
public struct SrtpKeyingMaterial: Sendable, Hashable {
    /// The exporter label of RFC 5764 §4.2.
    public static let exporterLabel = "EXTRACTOR-dtls_srtp"

    /// The negotiated protection profile, which fixes the key and salt lengths.
    public let profile: DtlsSrtpProfile
    /// Master key for what this endpoint sends.
    public let localKey: [UInt8]
    /// Master salt for what this endpoint sends.
    public let localSalt: [UInt8]
    /// Master key for what the peer sends.
    public let remoteKey: [UInt8]
    /// Master salt for what the peer sends.
    public let remoteSalt: [UInt8]

    /// Bytes the exporter must produce for `profile`: two keys and two salts.
    public static func exporterLength(for profile: DtlsSrtpProfile) -> Int {
        2 * (profile.masterKeyLength + profile.masterSaltLength)
    }

    /// Splits the exporter output as RFC 5764 §4.2 lays it out, for the endpoint in `role`.
    public init(exporterOutput: [UInt8], profile: DtlsSrtpProfile, role: DtlsRole) throws(DtlsError) {
        let expected = Self.exporterLength(for: profile)
        guard exporterOutput.count == expected else {
            throw .keyingMaterialLength(profile: profile, expected: expected, actual: exporterOutput.count)
        }
        let key = profile.masterKeyLength
        let salt = profile.masterSaltLength
        let clientKey = Array(exporterOutput[0..<key])
        let serverKey = Array(exporterOutput[key..<2 * key])
        let clientSalt = Array(exporterOutput[2 * key..<2 * key + salt])
        let serverSalt = Array(exporterOutput[2 * key + salt..<2 * key + 2 * salt])
        self.profile = profile
        switch role {
        case .client:
            (localKey, localSalt, remoteKey, remoteSalt) = (clientKey, clientSalt, serverKey, serverSalt)
        case .server:
            (localKey, localSalt, remoteKey, remoteSalt) = (serverKey, serverSalt, clientKey, clientSalt)
        }
    }
}
