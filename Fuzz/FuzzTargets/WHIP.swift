import Foundation
import SwiftRTCSDP
import SwiftRTCSignaling
import SwiftRTCSignalingServer

#if canImport(Glibc)
import Glibc
#endif

/// The WHIP endpoint's request handling, whole: Hummingbird's HTTP/1.1 server, the routes,
/// the token check, content type, body limits, admission limits and the answerer's refusals,
/// driven over a loopback TCP connection (the routes are private to `WHIPEndpoint` and
/// Hummingbird's testing module is not among the package's dependencies).
///
/// Two endpoints run in the process, at `/whip` on 127.0.0.1: one without a token, one that
/// wants `Authorization: Bearer fuzz-token`; both take offers of at most 4 KiB. The first
/// input byte picks one (bit 0); the rest goes to it as the bytes of one connection, which
/// is then half-closed, and the answer is read to its end. The answerer does what
/// `callbot whip-server` does with the SDP short of making a peer connection (that path is
/// `fuzzNegotiation`'s): parse (400 when it does not), answer with JSEP for an audio and a
/// video transceiver, and refuse an offer with nothing to take (422). Its sessions report a
/// failed connection at once, so the endpoint ends and frees them.
///
/// Both serve WHEP at `/whep` with the same answerer and offer two ICE servers in `Link`
/// headers. The request's bytes also go through the client's `Link` header reader.
///
/// Checks: the endpoint keeps accepting connections and closes them (descriptors do not pile
/// up); an answer, when one comes, is HTTP/1.1 and never `500` (the answerer throws nothing
/// but `WHIPOfferRejected`).
public func fuzzWHIP(_ bytes: UnsafeRawBufferPointer) {
    var input = FuzzInput(bytes)
    let port = input.u8() & 1 == 0 ? WHIPServers.open : WHIPServers.withToken
    let request = input.rest()
    checkLinkHeaders(request)
    let response = WHIPServers.exchange(request, port: port)
    Descriptors.check("the WHIP endpoint")
    guard !response.isEmpty else { return }
    guard response.starts(with: Array("HTTP/1.1 ".utf8)), response.count >= 12 else {
        fatalError(
            "the endpoint answered something other than HTTP/1.1: \(String(decoding: response.prefix(64), as: UTF8.self))"
        )
    }
    if response[9..<12].elementsEqual("500".utf8) {
        fatalError("the endpoint answered 500:\n\(String(decoding: response.prefix(512), as: UTF8.self))")
    }
}

enum WHIPServers {
    static let open = start(token: nil)
    static let withToken = start(token: "fuzz-token")

    /// Starts an endpoint on a free loopback port and waits until it listens. The endpoint
    /// starts on the cooperative pool, which in the test process is shared with every test
    /// that starts at the same moment (two threads on this machine), so the wait has no
    /// deadline of its own: under libFuzzer a start that never comes is the input's timeout
    /// (`-timeout=10`), in the tests the test run's.
    static func start(token: String?) -> UInt16 {
        var configuration = WHIPEndpoint.Configuration(
            port: 0,
            maxOfferBytes: 4096,
            bearerToken: token,
            connectTimeout: .milliseconds(200)
        )
        configuration.iceServers = [
            WHIPICEServer(url: "stun:127.0.0.1:3478"),
            WHIPICEServer(url: "turn:127.0.0.1:3478?transport=udp", username: "fuzz", credential: "fuzz\"pass"),
        ]
        let endpoint = WHIPEndpoint(configuration: configuration, answerer: answer, whepAnswerer: answer)
        let port = runBlocking {
            await withCheckedContinuation { (listening: CheckedContinuation<UInt16, Never>) in
                Task.detached {
                    try? await endpoint.run { url in listening.resume(returning: UInt16(url.port ?? 0)) }
                    fatalError("the WHIP endpoint stopped")
                }
            }
        }
        guard port != 0 else { fatalError("the WHIP endpoint listens on no port") }
        return port
    }

    @Sendable static func answer(_ offer: String) async throws -> (answer: String, session: any WHIPEndpointSession) {
        let description: SessionDescription
        do { description = try SessionDescription(parsing: offer) } catch { throw WHIPOfferRejected("\(error)") }
        let local = LocalParameters(
            iceUfrag: "fuzz",
            icePwd: "fuzzfuzzfuzzfuzzfuzzfuzz",
            fingerprints: [Fingerprint(hashFunction: "sha-256", bytes: Array(repeating: 0xAB, count: 32))],
            candidates: [
                IceCandidate(
                    foundation: "1",
                    component: 1,
                    transport: "udp",
                    priority: 1,
                    address: "127.0.0.1",
                    port: 9,
                    type: .host
                )
            ],
            endOfCandidates: true,
            sessionId: 1,
            cname: "fuzz"
        )
        let transceivers = [
            LocalTransceiver(kind: .audio, streamId: "s", trackId: "a", ssrc: 1),
            LocalTransceiver(kind: .video, streamId: "s", trackId: "v", ssrc: 2, rtxSsrc: 3),
        ]
        let answer: SessionDescription
        do { answer = try JSEP.createAnswer(to: description, transceivers: transceivers, local: local) } catch {
            throw WHIPOfferRejected("\(error)")
        }
        // As whip-server: an offer of which no audio or video section is accepted is unusable.
        let negotiation = try? Negotiation(offer: description, answer: answer)
        guard negotiation?.media.contains(where: { $0.accepted && ($0.kind == .audio || $0.kind == .video) }) ?? false
        else {
            throw WHIPOfferRejected("no audio or video section can be taken", kind: .unusable)
        }
        return (answer.sdp, FailedSession())
    }

    /// Sends `request` on a new connection to `port`, half-closes it and returns what came
    /// back until the server closed it (or 5 s passed).
    static func exchange(_ request: UnsafeRawBufferPointer, port: UInt16) -> [UInt8] {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { fatalError("socket: errno \(errno)") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        // libFuzzer's timeout alarm interrupts blocking calls (EINTR): they are made again.
        var connected: Int32
        repeat {
            connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        } while connected != 0 && errno == EINTR
        guard connected == 0 || errno == EISCONN else {
            fatalError("the WHIP endpoint no longer accepts connections: errno \(errno)")
        }
        var sent = 0
        while sent < request.count {
            let count = send(descriptor, request.baseAddress! + sent, request.count - sent, Int32(MSG_NOSIGNAL))
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }  // the server closed early (a refusal before the body)
            sent += count
        }
        shutdown(descriptor, Int32(SHUT_WR))
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&waiting, 1, 100)
            if ready < 0, errno == EINTR { continue }
            guard ready >= 0 else { break }
            guard waiting.revents != 0 else { continue }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            response += buffer[..<count]
        }
        return response
    }
}

/// A session whose connection has failed: the endpoint ends and frees it at once.
private struct FailedSession: WHIPEndpointSession {
    func end() async {}
    func connectionStates() async -> AsyncStream<WHIPSessionConnectionState> {
        AsyncStream {
            $0.yield(.failed)
            $0.finish()
        }
    }
}

/// The bytes as `Link` header values (one per line), read as a WHIP client reads an
/// endpoint's: at most 16 servers, each an ICE URL within bounds, written back the same.
func checkLinkHeaders(_ bytes: UnsafeRawBufferPointer) {
    let values = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
    let servers = WHIPICEServer.servers(inLinkHeaders: values)
    guard servers.count <= WHIPICEServer.maxServers else { fatalError("\(servers.count) ICE servers were read") }
    for server in servers {
        let scheme = server.url.prefix { $0 != ":" }.lowercased()
        guard ["stun", "stuns", "turn", "turns"].contains(scheme), server.url.count <= WHIPICEServer.maxLength else {
            fatalError("an ICE server was read from a Link header it should not be: \(server.url)")
        }
    }
    guard WHIPICEServer.servers(inLinkHeaders: servers.map(\.linkValue)) == servers else {
        fatalError("ICE servers written as Link headers do not read back the same: \(servers.map(\.linkValue))")
    }
}
