/// What a completed handshake negotiated.
public struct DtlsConnectionInfo: Sendable, Hashable {
    /// This endpoint's role in the handshake.
    public let role: DtlsRole
    /// The SRTP profile and the keys and salts for both directions.
    public let keyingMaterial: SrtpKeyingMaterial
    /// The cipher suite, e.g. `TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256`.
    public let cipherSuite: String
    /// The key-exchange group, e.g. `SECP256R1`.
    public let group: String
    /// The SHA-256 fingerprint of the certificate the peer presented.
    public let remoteFingerprint: DtlsFingerprint
    /// Time from ``DtlsTransport/start()`` to the completed handshake.
    public let handshakeDuration: Duration
}
