import SwiftRTCBenchReport
import SwiftRTCDTLS
import SwiftRTCICE
import SwiftRTCPeer
import SwiftRTCSDP

/// Two ``PeerConnection``s of this process connected over loopback (ICE host candidates on
/// 127.0.0.1, DTLS, SRTP: AES-CM-80 with Debian 12's GnuTLS), offer/answer and trickled
/// candidates passed directly.
struct LoopbackCall: Sendable {
    let offerer: PeerConnection
    let answerer: PeerConnection
    /// Time from `createOffer` until both sides were connected.
    let setupTime: Duration

    /// Certificates made once: generating an ECDSA key per connection would measure key
    /// generation, which a bot does once per process too.
    static let certificates: (DtlsCertificate, DtlsCertificate) = {
        do { return (try DtlsCertificate.generate(), try DtlsCertificate.generate()) } catch {
            fatalError("DTLS certificate: \(error)")
        }
    }()

    static func configuration(
        _ certificate: DtlsCertificate,
        transportThreads: TransportThreadPool = .shared
    ) -> PeerConnection.Configuration {
        PeerConnection.Configuration(
            certificate: certificate,
            gatherAddresses: ["127.0.0.1"],
            transportThreads: transportThreads
        )
    }

    /// Makes both connections, on `transportThreads` (the process's pool unless told);
    /// `prepare` adds tracks or transceivers to each (offerer first) before the offer; then
    /// connects them.
    static func connect(
        timeout: Duration = .seconds(30),
        transportThreads: TransportThreadPool = .shared,
        prepare: (PeerConnection, PeerConnection) async throws -> Void
    ) async throws -> LoopbackCall {
        let offerer = try PeerConnection(
            configuration: configuration(certificates.0, transportThreads: transportThreads)
        )
        let answerer = try PeerConnection(
            configuration: configuration(certificates.1, transportThreads: transportThreads)
        )
        try await prepare(offerer, answerer)
        let offererStates = await offerer.connectionStates(), answererStates = await answerer.connectionStates()
        let offererCandidates = await offerer.localCandidates(), answererCandidates = await answerer.localCandidates()
        let start = ContinuousClock.now
        try await negotiate(offerer, answerer)
        let forwarding = [forward(offererCandidates, to: answerer), forward(answererCandidates, to: offerer)]
        defer { for task in forwarding { task.cancel() } }
        let connected = await withTaskGroup(of: Bool.self) { group in
            group.addTask { await reaches(.connected, offererStates) }
            group.addTask { await reaches(.connected, answererStates) }
            group.addTask {
                // In slices: a cancelled `Task.sleep` keeps its timer and task until the
                // deadline, so one sleep of `timeout` per call held about 0.7 KB for a minute
                // after every call (the memory scenario's cycles counted it as growth).
                let deadline = ContinuousClock.now + timeout
                while ContinuousClock.now < deadline, !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(100))
                }
                return false
            }
            var both = 0
            for await result in group {
                guard result else { break }
                both += 1
                if both == 2 { break }
            }
            group.cancelAll()
            return both == 2
        }
        let setupTime = ContinuousClock.now - start
        guard connected else {
            let states = (await offerer.connectionState, await answerer.connectionState)
            await offerer.close()
            await answerer.close()
            throw BenchError(
                "a loopback call did not connect within \(timeout): offerer \(states.0), answerer \(states.1)"
            )
        }
        return LoopbackCall(offerer: offerer, answerer: answerer, setupTime: setupTime)
    }

    /// Offer and answer, passed directly: each side gathers, and has the other's description.
    static func negotiate(_ offerer: PeerConnection, _ answerer: PeerConnection) async throws {
        let offer = try await offerer.createOffer()
        try await offerer.setLocalDescription(offer)
        try await answerer.setRemoteDescription(offer)
        let answer = try await answerer.createAnswer()
        try await answerer.setLocalDescription(answer)
        try await offerer.setRemoteDescription(answer)
    }

    /// Whether `states` reaches `wanted` (false if it ends or fails first).
    static func reaches(_ wanted: PeerConnectionState, _ states: AsyncStream<PeerConnectionState>) async -> Bool {
        for await state in states {
            if state == wanted { return true }
            if state == .failed || state == .closed { return false }
        }
        return false
    }

    static func forward(
        _ candidates: AsyncStream<IceCandidateInit>,
        to peer: PeerConnection
    ) -> Task<Void, Never> {
        Task { for await candidate in candidates { try? await peer.addIceCandidate(candidate) } }
    }

    /// The SRTP profile the call negotiated, as the bench names it (`cm80`, `gcm`...): read
    /// from the transport stats, not assumed, since the GnuTLS in use decides which it can.
    func profile() async -> String {
        BenchResult.profile(srtpCipher: await offerer.stats().first(.transport)?.string("srtpCipher"))
    }

    /// The DTLS cipher suite the call negotiated, as the bench names it (`dtls-aes128gcm`...),
    /// from the transport stats: the profile of data channel rows.
    func dtlsProfile() async -> String {
        BenchResult.profile(dtlsCipher: await offerer.stats().first(.transport)?.string("dtlsCipher"))
    }

    /// Closes both sides.
    func close() async {
        await offerer.close()
        await answerer.close()
    }
}
