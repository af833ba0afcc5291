import CGnuTLS
import Glibc

/// GnuTLS's transport and verification callbacks. They are C function pointers that find the
/// transport through the session's context pointer (unretained: GnuTLS calls them only from
/// inside calls the transport makes on its queue, while it is alive).
extension DtlsTransport {
    func installCallbacks() {
        let context = Unmanaged.passUnretained(self).toOpaque()
        gnutls_session_set_ptr(session, context)
        gnutls_transport_set_ptr(session, context)
        gnutls_transport_set_push_function(session) { context, data, size in
            guard let context, let data else { return -1 }
            let transport = Unmanaged<DtlsTransport>.fromOpaque(context).takeUnretainedValue()
            // One call is one datagram (GnuTLS packs records up to the MTU). A datagram the
            // network refused counts as lost: the retransmission timer resends the flight.
            let datagram = UnsafeRawBufferPointer(start: data, count: size)
            transport.flightCapture?.append([UInt8](datagram))
            _ = transport.sender.send(datagram)
            return size
        }
        gnutls_transport_set_pull_function(session) { context, buffer, capacity in
            guard let context, let buffer else { return -1 }
            let transport = Unmanaged<DtlsTransport>.fromOpaque(context).takeUnretainedValue()
            return transport.pull(into: UnsafeMutableRawBufferPointer(start: buffer, count: capacity))
        }
        gnutls_transport_set_pull_timeout_function(session) { context, _ in
            // Non-blocking: never wait; say whether a datagram is ready.
            guard let context else { return -1 }
            let transport = Unmanaged<DtlsTransport>.fromOpaque(context).takeUnretainedValue()
            switch transport.pullSource {
            case .inbox: return transport.inbox.isEmpty ? 0 : 1
            case .offered(let datagram): return datagram == nil ? 0 : 1
            }
        }
        gnutls_session_set_verify_function(session) { session in
            guard let context = gnutls_session_get_ptr(session) else { return GNUTLS_E_CERTIFICATE_ERROR }
            return Unmanaged<DtlsTransport>.fromOpaque(context).takeUnretainedValue().verifyPeerCertificate()
        }
    }

    /// GnuTLS's pull function: the next received datagram, or EAGAIN when there is none. A
    /// receiver decrypting on its own thread offers its one datagram (``pullSource``).
    func pull(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        if case .offered(let offered) = pullSource {
            guard let datagram = offered else {
                gnutls_transport_set_errno(session, EAGAIN)
                return -1
            }
            pullSource = .offered(nil)
            let count = min(datagram.count, buffer.count)
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: datagram.prefix(count)))
            return count
        }
        guard !inbox.isEmpty else {
            gnutls_transport_set_errno(session, EAGAIN)
            return -1
        }
        let datagram = inbox.removeFirst()
        let count = min(datagram.count, buffer.count)
        datagram.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
        return count
    }

    /// Checks the peer's certificate against the remote fingerprints (RFC 8122 §5). Self-signed
    /// certificates are the norm in WebRTC, so the fingerprint is the whole check. A failure
    /// makes GnuTLS abort the handshake; the reason is kept for ``DtlsState/failed(_:)``.
    func verifyPeerCertificate() -> Int32 {
        var count: UInt32 = 0
        guard gnutls_certificate_type_get(session) == GNUTLS_CRT_X509,
            let peers = gnutls_certificate_get_peers(session, &count), count > 0
        else {
            verificationFailure = .noPeerCertificate
            return GNUTLS_E_CERTIFICATE_ERROR
        }
        let der = [UInt8](UnsafeRawBufferPointer(start: peers[0].data, count: Int(peers[0].size)))
        remoteFingerprint = DtlsFingerprint(algorithm: .sha256, certificateDER: der)
        guard acceptedFingerprints.contains(where: { $0.matches(certificateDER: der) }) else {
            let actual = DtlsFingerprint(algorithm: acceptedFingerprints[0].algorithm, certificateDER: der)
            verificationFailure = .fingerprintMismatch(expected: acceptedFingerprints, actual: actual)
            return GNUTLS_E_CERTIFICATE_ERROR
        }
        return 0
    }
}
