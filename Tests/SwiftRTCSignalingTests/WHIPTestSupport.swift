import Foundation
import Hummingbird
import HummingbirdTLS
import Logging
import SwiftRTCSDP
import Synchronization
import Testing

@testable import SwiftRTCSignaling
@testable import SwiftRTCSignalingServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A session that records that it was ended.
final class RecordingSession: WHIPEndpointSession {
    let offer: String
    private let ended = Mutex(0)
    init(offer: String) { self.offer = offer }
    var endCount: Int { ended.withLock { $0 } }
    func end() async { ended.withLock { $0 += 1 } }
    /// Connected at once: only `DELETE` ends it.
    func connectionStates() async -> AsyncStream<WHIPSessionConnectionState> {
        AsyncStream {
            $0.yield(.connected)
            $0.finish()
        }
    }
}

/// Real SDP on both sides: offers from JSEP.createOffer, answers from JSEP.createAnswer.
enum WHIPTestSDP {
    static let fingerprint = Fingerprint(hashFunction: "sha-256", bytes: (0..<32).map { UInt8($0 &* 5 &+ 1) })

    static func local(ufrag: String, port: UInt16) -> LocalParameters {
        let candidate = IceCandidate(
            foundation: "1",
            component: 1,
            transport: "udp",
            priority: 2_130_706_431,
            address: "127.0.0.1",
            port: port,
            type: .host,
            generation: 0
        )
        return LocalParameters(
            iceUfrag: ufrag,
            icePwd: "whiptestpassword00000001",
            fingerprints: [fingerprint],
            candidates: [candidate],
            endOfCandidates: true,
            sessionId: 42,
            cname: "whip-test"
        )
    }

    static var transceivers: [LocalTransceiver] {
        [
            LocalTransceiver(kind: .audio, streamId: "s", trackId: "a", ssrc: 11),
            LocalTransceiver(kind: .video, streamId: "s", trackId: "v", ssrc: 22, rtxSsrc: 23),
        ]
    }

    static let offer = JSEP.createOffer(transceivers: transceivers, local: local(ufrag: "OFFR", port: 50000)).sdp

    /// The answerer a WHIP endpoint in a call would run: parse, answer with JSEP, reject
    /// unparsable offers as the client's fault.
    static let answerer: WHIPEndpoint.Answerer = { offer in
        let description: SessionDescription
        do { description = try SessionDescription(parsing: offer) } catch { throw WHIPOfferRejected("\(error)") }
        let answer = try JSEP.createAnswer(
            to: description,
            transceivers: transceivers,
            local: local(ufrag: "ANSR", port: 50002)
        )
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

/// Runs a plain Hummingbird router (a misbehaving "WHIP server") on 127.0.0.1 during `body`,
/// over TLS with `tls`.
func withServer<T: Sendable>(
    _ router: Router<BasicRequestContext>,
    tls: TLSIdentity? = nil,
    _ body: (URL) async throws -> T
) async throws -> T {
    let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
    let app = Application(
        router: router,
        server: try tls.map { try .tls(.http1(), tlsConfiguration: $0.serverConfiguration) } ?? .http1(),
        configuration: .init(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: { continuation.yield($0.localAddress?.port ?? 0) },
        logger: Logger(label: "whip-test-server") { _ in SwiftLogNoOpLogHandler() }
    )
    let server = Task { try await app.run() }
    defer { server.cancel() }
    guard let port = await ports.first(where: { _ in true }) else { throw CancellationError() }
    return try await body(URL(string: "\(tls == nil ? "http" : "https")://127.0.0.1:\(port)/whip")!)
}

/// A raw request, for what WHIPClient never sends (wrong content types, oversized bodies...).
func rawRequest(
    _ url: URL,
    method: String,
    contentType: String?,
    body: Data?,
    headers: [String: String] = [:]
) async throws -> (status: Int, headers: [String: String], body: String) {
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

/// A session whose connection states the test drives: `connecting` at first, then what
/// ``report(_:)`` says; records that it was ended.
final class ScriptedSession: WHIPEndpointSession {
    let name: String
    private let ended = Mutex(0)
    private let states: AsyncStream<WHIPSessionConnectionState>
    private let continuation: AsyncStream<WHIPSessionConnectionState>.Continuation

    init(_ name: String) {
        self.name = name
        (states, continuation) = AsyncStream.makeStream(of: WHIPSessionConnectionState.self)
        continuation.yield(.connecting)
    }

    var endCount: Int { ended.withLock { $0 } }
    func end() async { ended.withLock { $0 += 1 } }
    func connectionStates() async -> AsyncStream<WHIPSessionConnectionState> { states }
    /// The connection reaches `state`.
    func report(_ state: WHIPSessionConnectionState) { continuation.yield(state) }
}

/// Polls `condition` every 20 ms until it holds or `timeout` passed; whether it held.
func eventually(within timeout: Duration = .seconds(10), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return condition()
}

/// Sends `request` (raw bytes: what no HTTP client library sends, e.g. a chunked body over the
/// limit or a lying Content-Length) to 127.0.0.1:`port` from the loopback address `source`,
/// and reads the reply until the server closes or 5 s pass; the status of its first line
/// (nil when the server closed without a reply) and the whole reply. Runs on a thread of its
/// own (blocking sockets), not on the cooperative pool.
func rawExchange(
    port: Int,
    from source: String = "127.0.0.1",
    _ request: [UInt8]
) async throws -> (status: Int?, reply: String) {
    struct SocketFailure: Error, CustomStringConvertible { var description: String }
    return try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(
                with: Result { () throws -> (status: Int?, reply: String) in
                    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                    guard fd >= 0 else { throw SocketFailure(description: "socket: errno \(errno)") }
                    defer { close(fd) }
                    var timeout = timeval(tv_sec: 5, tv_usec: 0)
                    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                    func address(_ host: String, _ port: Int) -> sockaddr_in {
                        var address = sockaddr_in()
                        address.sin_family = sa_family_t(AF_INET)
                        address.sin_port = in_port_t(UInt16(port).bigEndian)
                        inet_pton(AF_INET, host, &address.sin_addr)
                        return address
                    }
                    var local = address(source, 0), remote = address("127.0.0.1", port)
                    let size = socklen_t(MemoryLayout<sockaddr_in>.size)
                    guard
                        withUnsafePointer(
                            to: &local,
                            { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) } }
                        ) == 0
                    else {
                        throw SocketFailure(description: "bind \(source): errno \(errno)")
                    }
                    guard
                        withUnsafePointer(
                            to: &remote,
                            { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, size) } }
                        ) == 0
                    else {
                        throw SocketFailure(description: "connect: errno \(errno)")
                    }
                    var sent = 0
                    while sent < request.count {
                        let n = request.withUnsafeBytes {
                            send(fd, $0.baseAddress! + sent, request.count - sent, Int32(MSG_NOSIGNAL))
                        }
                        if n <= 0 { break }  // the server may close before reading everything (413)
                        sent += n
                    }
                    shutdown(fd, Int32(SHUT_WR))
                    var reply: [UInt8] = []
                    var buffer = [UInt8](repeating: 0, count: 4096)
                    while true {
                        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, 4096, 0) }
                        if n <= 0 { break }
                        reply += buffer[0..<n]
                    }
                    let text = String(decoding: reply, as: UTF8.self)
                    let statusLine = text.split(separator: "\r\n", maxSplits: 1).first ?? ""
                    let status = statusLine.split(separator: " ").dropFirst().first.flatMap { Int($0) }
                    return (status, text)
                }
            )
        }
    }
}

/// A POST of `body` to the WHIP endpoint at `url`, as raw HTTP/1.1 bytes, with `headers`.
func rawPost(
    _ url: URL,
    from source: String = "127.0.0.1",
    headers: [String],
    body: [UInt8]
) async throws -> (status: Int?, reply: String) {
    let head =
        (["POST \(url.path) HTTP/1.1", "Host: 127.0.0.1:\(url.port ?? 0)", "Connection: close"] + headers)
        .joined(separator: "\r\n") + "\r\n\r\n"
    return try await rawExchange(port: url.port ?? 0, from: source, Array(head.utf8) + body)
}
