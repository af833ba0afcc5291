import SwiftRTCSRTP

/// The SRTP master keys and salts of one DTLS-SRTP association (RFC 5764 §4.2), seen from
/// this endpoint: what it protects with (local) and what it unprotects with (remote), ready
/// for `SrtpSession(profile:local:remote:)`.
///
/// The TLS exporter with label `EXTRACTOR-dtls_srtp` and no context yields the layout
/// ``SrtpProfile/masterKeys(fromKeyingMaterial:)`` splits; the DTLS client protects with the
/// client write key and salt, the server with the server's.
public struct SrtpKeyingMaterial: Sendable, Hashable {
    /// The exporter label of RFC 5764 §4.2.
    public static let exporterLabel = "EXTRACTOR-dtls_srtp"

    /// The negotiated protection profile, which fixes the key and salt lengths.
    public let profile: SrtpProfile
    /// Master key and salt for what this endpoint sends.
    public let local: SrtpMasterKey
    /// Master key and salt for what the peer sends.
    public let remote: SrtpMasterKey

    /// Splits the exporter output (``SrtpProfile/keyingMaterialLength`` bytes) for the
    /// endpoint in `role`.
    public init(exporterOutput: [UInt8], profile: SrtpProfile, role: DtlsRole) throws(DtlsError) {
        guard let keys = profile.masterKeys(fromKeyingMaterial: exporterOutput) else {
            throw .keyingMaterialLength(
                profile: profile,
                expected: profile.keyingMaterialLength,
                actual: exporterOutput.count
            )
        }
        self.profile = profile
        switch role {
        case .client: (local, remote) = (keys.client, keys.server)
        case .server: (local, remote) = (keys.server, keys.client)
        }
    }
}
