import CGnuTLS
import Dispatch
import SwiftRTCSRTP

extension DtlsTransport {
    /// Advances GnuTLS with what has arrived or timed out: the handshake while connecting,
    /// alerts (close_notify) and retransmitted peer flights once connected.
    func pump() {
        switch currentState {
        case .connecting: handshake()
        case .connected: readRecords()
        case .new, .closed, .failed: break
        }
    }

    /// The timer: the handshake's retransmission or resend time while connecting, the last
    /// flight's resend time once connected.
    func timerFired() {
        switch currentState {
        case .connecting: handshake()
        case .connected: resendLastFlight()
        case .new, .closed, .failed: break
        }
    }

    private func handshake() {
        // Each call consumes datagrams until GnuTLS wants more (AGAIN); retry while some are
        // left, with a bound in case GnuTLS returns without reading.
        var result: Int32 = 0
        var rounds = 0
        repeat {
            flightCapture = []
            result = gnutls_handshake(session)
            noteHandshakeFlight(flightCapture ?? [])
            rounds += 1
        } while result < 0 && gnutls_error_is_fatal(result) == 0 && !inbox.isEmpty && rounds <= Self.inboxLimit
        // Cleared before the session is opened to other threads' sends (their pushes read it).
        let lastSent = flightCapture ?? []
        flightCapture = nil
        if result == 0 {
            completeHandshake(lastSent: lastSent)
        } else if gnutls_error_is_fatal(result) == 0 {
            // AGAIN, INTERRUPTED or a warning alert: wait for data, GnuTLS's retransmission
            // time or our own resend of the last flight, whichever comes first.
            let retransmission = DispatchTime.now() + .milliseconds(Int(gnutls_dtls_get_timeout(session)))
            let resend = resendHandshakeFlightIfDue() ?? retransmission
            setTimer(at: min(retransmission, resend))
        } else {
            failHandshake(result)
        }
    }

    private func failHandshake(_ code: Int32) {
        let error: DtlsError
        switch code {
        case GNUTLS_E_FATAL_ALERT_RECEIVED:
            error = .alertReceived(alert: Self.alertName(gnutls_alert_get(session)))
        case GNUTLS_E_TIMEDOUT:
            error = .handshakeTimedOut(milliseconds: Int(Self.milliseconds(configuration.handshakeTimeout)))
        case GNUTLS_E_NO_CERTIFICATE_FOUND:
            error = .noPeerCertificate
        default:
            error = verificationFailure ?? .gnutls("gnutls_handshake", code)
        }
        if code != GNUTLS_E_FATAL_ALERT_RECEIVED && code != GNUTLS_E_TIMEDOUT {
            // Tell the peer (bad_certificate for a fingerprint mismatch) so it fails now
            // rather than at its own timeout.
            _ = gnutls_alert_send_appropriate(session, code)
        }
        transition(to: .failed(error))
    }

    /// Reads the negotiated profile, exports the SRTP keys and reports `connected`.
    private func completeHandshake(lastSent: [[UInt8]]) {
        var selected = gnutls_srtp_profile_t(0)
        guard gnutls_srtp_get_selected_profile(session, &selected) == 0,
            let profile = SrtpProfile(rawValue: UInt16(truncatingIfNeeded: selected.rawValue)),
            configuration.srtpProfiles.contains(profile)
        else {
            _ = gnutls_alert_send(session, GNUTLS_AL_FATAL, GNUTLS_A_HANDSHAKE_FAILURE)
            transition(to: .failed(.noSrtpProfile))
            return
        }
        guard let remoteFingerprint else {
            transition(to: .failed(.noPeerCertificate))
            return
        }
        let keyingMaterial: SrtpKeyingMaterial
        do {
            var exported = [UInt8](repeating: 0, count: profile.keyingMaterialLength)
            let label = SrtpKeyingMaterial.exporterLabel
            try check(
                "gnutls_prf_rfc5705",
                exported.withUnsafeMutableBytes { out in
                    gnutls_prf_rfc5705(
                        session,
                        label.utf8.count,
                        label,
                        0,
                        nil,
                        out.count,
                        out.baseAddress?.assumingMemoryBound(to: CChar.self)
                    )
                }
            )
            keyingMaterial = try SrtpKeyingMaterial(
                exporterOutput: exported,
                profile: profile,
                role: configuration.role
            )
        } catch {
            transition(to: .failed(error))
            return
        }
        let cipherSuite = gnutls_ciphersuite_get(session).map { String(cString: $0) } ?? "unknown"
        let group = gnutls_group_get_name(gnutls_group_get(session)).map { String(cString: $0) } ?? "unknown"
        let duration = startedAt.map { $0.duration(to: .now) } ?? .zero
        info = DtlsConnectionInfo(
            role: configuration.role,
            keyingMaterial: keyingMaterial,
            cipherSuite: cipherSuite,
            group: group,
            remoteFingerprint: remoteFingerprint,
            handshakeDuration: duration
        )
        // No more retransmissions by GnuTLS: a lost last flight is answered when the peer
        // resends its own, and resent by ours until the peer shows it has the keys.
        cancelTimer()
        keepLastFlight(lastSent)
        logger.info("DTLS \(configuration.role.rawValue) connected in \(duration): \(cipherSuite) \(group) \(profile)")
        transition(to: .connected)
        readRecords()
    }

    /// After the handshake: lets GnuTLS process what arrived. Retransmitted handshake flights
    /// make it resend its last flight; `close_notify` closes; application data goes to the
    /// handler (``onApplicationData(_:)``), if any.
    private func readRecords() {
        var rounds = 0
        while !inbox.isEmpty, rounds <= Self.inboxLimit {
            rounds += 1
            // With the session lock: other threads send and receive application data on it.
            let (result, handler) = sessionLock.withLock { access in
                (
                    recordBuffer.withUnsafeMutableBytes { gnutls_record_recv(session, $0.baseAddress, $0.count) },
                    access.applicationData
                )
            }
            if result > 0 {
                recordBuffer.withUnsafeBytes { handler?(UnsafeRawBufferPointer(rebasing: $0[..<result])) }
                continue
            }
            if result == 0 {
                logger.info("DTLS \(configuration.role.rawValue): peer sent close_notify")
                transition(to: .closed)
                return
            }
            let code = Int32(truncatingIfNeeded: result)
            guard gnutls_error_is_fatal(code) != 0 else { continue }
            if code == GNUTLS_E_FATAL_ALERT_RECEIVED {
                transition(to: .failed(.alertReceived(alert: Self.alertName(gnutls_alert_get(session)))))
            } else {
                transition(to: .failed(.gnutls("gnutls_record_recv", code)))
            }
            return
        }
    }

    static func alertName(_ alert: gnutls_alert_description_t) -> String {
        gnutls_alert_get_name(alert).map { String(cString: $0) } ?? "alert \(alert.rawValue)"
    }
}
