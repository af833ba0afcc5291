import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import Logging
import Synchronization
import SwiftRTCSDP
import Testing
@testable import SwiftRTCSignaling

/// A session that records that it was ended.
final class RecordingSession: WHIPEndpointSession {
    let offer: String
    private let ended = Mutex(0)
    init(offer: String) { self.offer = offer }
    var endCount: Int { ended.withLock { $0 } }
    func end() async { ended.withLock { $0 += 1 } }
    /// Connected at once: only `DELETE` ends it.
    func connectionStates() async -> AsyncStream<WHIPSessionConnectionState> {
        AsyncStream { $0.yield(.connected); $0.finish() }
    }
}

/// Real SDP on both sides: offers from JSEP.createOffer, answers from JSEP.createAnswer.
enum WHIPTestSDP {
    static let fingerprint = Fingerprint(hashFunction: "sha-256", bytes: (0..<32).map { UInt8($0 &* 5 &+ 1) })

    static func local(ufrag: String, port: UInt16) -> LocalParameters {
        let candidate = IceCandidate(foundation: "1", component: 1, transport: "udp", priority: 2_130_706_431,
                                     address: "127.0.0.1", port: port, type: .host, generation: 0)
        return LocalParameters(iceUfrag: ufrag, icePwd: "whiptestpassword00000001", fingerprints: [fingerprint],
                               candidates: [candidate], endOfCandidates: true, sessionId: 42, cname: "whip-test")
    }

    static var transceivers: [LocalTransceiver] {
        [LocalTransceiver(kind: .audio, streamId: "s", trackId: "a", ssrc: 11),
         LocalTransceiver(kind: .video, streamId: "s", trackId: "v", ssrc: 22, rtxSsrc: 23)]
    }

    static let offer = JSEP.createOffer(transceivers: transceivers, local: local(ufrag: "OFFR", port: 50000)).sdp

    /// The answerer a WHIP endpoint in a call would run: parse, answer with JSEP, reject
    /// unparsable offers as the client's fault.
    static let answerer: WHIPEndpoint.Answerer = { offer in
        let description: SessionDescription
        do { description = try SessionDescription(parsing: offer) } catch { throw WHIPOfferRejected("\(error)") }
        let answer = try JSEP.createAnswer(to: description, transceivers: transceivers, local: local(ufrag: "ANSR", port: 50002))
        return (answer.sdp, RecordingSession(offer: offer))
    }
}

/// Runs `endpoint` on 127.0.0.1 (free port) for the duration of `body`, then stops it.
func withEndpoint<T: Sendable>(_ endpoint: WHIPEndpoint, _ body: (URL) async throws -> T) async throws -> T {
    let (urls, continuation) = AsyncStream.makeStream(of: URL.self)
    let server = Task { try await endpoint.run { url in continuation.yield(url) } }
    defer { server.cancel() }
    guard let url = await urls.first(where: { _ in true }) else { throw CancellationError() }
    return try await body(url)
}

/// Runs a plain Hummingbird router (a misbehaving "WHIP server") on 127.0.0.1 during `body`.
func withServer<T: Sendable>(_ router: Router<BasicRequestContext>, _ body: (URL) async throws -> T) async throws -> T {
    let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
    let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                          onServerRunning: { continuation.yield($0.localAddress?.port ?? 0) },
                          logger: Logger(label: "whip-test-server") { _ in SwiftLogNoOpLogHandler() })
    let server = Task { try await app.run() }
    defer { server.cancel() }
    guard let port = await ports.first(where: { _ in true }) else { throw CancellationError() }
    return try await body(URL(string: "http://127.0.0.1:\(port)/whip")!)
}

/// A raw request, for what WHIPClient never sends (wrong content types, oversized bodies...).
func rawRequest(_ url: URL, method: String, contentType: String?, body: Data?, headers: [String: String] = [:]) async throws -> (status: Int, headers: [String: String], body: String) {
    var request = URLRequest(url: url, timeoutInterval: 10)
    request.httpMethod = method
    if let contentType { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    request.httpBody = body
    let session = URLSession(configuration: .ephemeral)
    defer { session.finishTasksAndInvalidate() }
    let (data, response) = try await session.data(for: request)
    let http = try #require(response as? HTTPURLResponse)
    var fields: [String: String] = [:]
    for (name, value) in http.allHeaderFields {
        if let name = name as? String, let value = value as? String { fields[name.lowercased()] = value }
    }
    return (http.statusCode, fields, String(decoding: data, as: UTF8.self))
}
