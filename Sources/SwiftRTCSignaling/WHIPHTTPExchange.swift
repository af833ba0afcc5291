import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import SwiftRTCCore

/// One HTTP/1.1 request and its response over a connection of its own (`Connection: close`),
/// plain for `http://` and TLS for `https://` (verified against a ``TLSTrust``): what
/// ``WHIPClient`` needs, on swift-nio, with no process-wide settings.
///
/// The whole exchange (connect, TLS, request, response) has one deadline: the connection is
/// closed when it passes. A response body over ``maxResponseBytes`` is not read further.
struct WHIPHTTPExchange {
    struct Response {
        var status: Int
        var headers: HTTPHeaders
        var body: Data
    }

    /// Why an exchange failed: the deadline passed, the body was too large, or a message for
    /// ``WHIPError/tls(method:url:message:)`` or ``WHIPError/transport(method:url:message:)``.
    enum Failure: Error {
        case timedOut
        case tls(String)
        case transport(String)
    }

    /// The largest response body read: an SDP answer is a few KiB.
    static let maxResponseBytes = 1 << 20

    /// A connection of an exchange: its channel, and the task that closes it at the deadline.
    private typealias Connection = (
        channel: NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>, closer: Scheduled<Void>
    )

    static func send(
        method: HTTPMethod,
        url: URL,
        headers: [(String, String)],
        body: Data?,
        trust: TLSTrust,
        timeout: Duration
    ) async throws(Failure) -> Response {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .transport("not an http:// or https:// URL")
        }
        guard let rawHost = url.host, !rawHost.isEmpty else { throw .transport("no host in the URL") }
        let host = rawHost.hasPrefix("[") && rawHost.hasSuffix("]") ? String(rawHost.dropFirst().dropLast()) : rawHost
        let secure = scheme == "https"
        let port = url.port ?? (secure ? 443 : 80)
        let isAddress = (try? SocketAddress(ipAddress: host, port: 0)) != nil
        let sslContext: NIOSSLContext?
        do {
            sslContext = secure ? try NIOSSLContext(configuration: trust.clientConfiguration) : nil
        } catch {
            throw .tls("TLS: cannot set up the client: \(error)")
        }
        let started = ContinuousClock.now
        let deadline = NIODeadline.now() + TimeAmount.nanoseconds(timeout.nanoseconds)
        let expired = { ContinuousClock.now - started >= timeout }

        let connection = try await connect(
            host: host,
            port: port,
            isAddress: isAddress,
            sslContext: sslContext,
            deadline: deadline,
            expired: expired
        )
        defer { connection.closer.cancel() }

        let request = requestHead(method: method, url: url, host: host, headers: headers, body: body)
        do {
            return try await exchange(request, body: body, over: connection.channel)
        } catch let failure as Failure {
            if expired() { throw .timedOut }
            throw failure
        } catch {
            if expired() { throw .timedOut }
            if let tls = TLSFailure.describe(error, host: host) { throw .tls(tls) }
            throw .transport("\(error)")
        }
    }

    /// Connects to `host:port` (TLS with `sslContext` when given) by `deadline`, and schedules
    /// the connection's close at the deadline. Throws ``Failure/timedOut`` when the deadline
    /// (`expired`) or the connect timeout passed, else a transport failure in words.
    private static func connect(
        host: String,
        port: Int,
        isAddress: Bool,
        sslContext: NIOSSLContext?,
        deadline: NIODeadline,
        expired: () -> Bool
    ) async throws(Failure) -> Connection {
        let initialize: @Sendable (Channel) -> EventLoopFuture<Connection> = { channel in
            channel.eventLoop.makeCompletedFuture {
                if let sslContext {
                    // An IP address goes in no SNI; the certificate must then name the
                    // address (checked against the connected peer's address).
                    let handler = try NIOSSLClientHandler(context: sslContext, serverHostname: isAddress ? nil : host)
                    try channel.pipeline.syncOperations.addHandler(handler)
                }
                try channel.pipeline.syncOperations.addHTTPClientHandlers()
                // The deadline: closing the channel ends the exchange below.
                let closer = channel.eventLoop.scheduleTask(deadline: deadline) { channel.close(promise: nil) }
                let wrapped = try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(
                    wrappingChannelSynchronously: channel
                )
                return (wrapped, closer)
            }
        }
        do {
            let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connectTimeout(
                deadline - .now()
            )
            if isAddress {
                // An address needs no resolver (NIO's getaddrinfo runs on Dispatch's global queue).
                return try await bootstrap.connect(
                    to: try SocketAddress(ipAddress: host, port: port),
                    channelInitializer: initialize
                )
            } else {
                return try await bootstrap.connect(host: host, port: port, channelInitializer: initialize)
            }
        } catch {
            // What failed says whether it was the deadline, not the time this task resumed at: on a
            // busy process a refused connection was once seen 10 s later, past the deadline.
            if !isOperatingSystemError(error), expired() || isConnectTimeout(error) { throw .timedOut }
            throw .transport(describeConnectFailure(error, host: host, port: port))
        }
    }

    /// The head of the request: `Host` (with the URL's port when it has one), `Connection:
    /// close`, the body's `Content-Length`, then `headers`.
    private static func requestHead(
        method: HTTPMethod,
        url: URL,
        host: String,
        headers: [(String, String)],
        body: Data?
    ) -> HTTPRequestHead {
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: requestTarget(url))
        let authority = host.contains(":") ? "[\(host)]" : host
        head.headers.add(name: "Host", value: url.port.map { "\(authority):\($0)" } ?? authority)
        head.headers.add(name: "Connection", value: "close")
        head.headers.add(name: "Content-Length", value: "\(body?.count ?? 0)")
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        return head
    }

    /// Writes `request` and `body` on `channel`, reads the final response (1xx ones skipped, its
    /// body at most ``maxResponseBytes``), then closes the channel.
    private static func exchange(
        _ request: HTTPRequestHead,
        body: Data?,
        over channel: NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>
    ) async throws -> Response {
        try await channel.executeThenClose { inbound, outbound in
            // A server may answer, and close, before the last write of the request has
            // completed (the end of a Content-Length body is no bytes): the response is read
            // all the same, and a write error only counts when no response came. A failed TLS
            // handshake also shows here first, as writes to a closed channel; its reason ends
            // the inbound stream.
            var writeError: (any Error)?
            do {
                try await outbound.write(.head(request))
                if let body, !body.isEmpty { try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
                try await outbound.write(.end(nil))
            } catch {
                writeError = error
            }
            var response: HTTPResponseHead?
            var collected = ByteBuffer()
            for try await part in inbound {
                switch part {
                case let .head(received):
                    // 1xx answers (100 Continue...) come before the real one.
                    if received.status.code >= 200 { response = received }
                case var .body(chunk):
                    guard response != nil else { continue }
                    guard collected.readableBytes + chunk.readableBytes <= maxResponseBytes else {
                        throw Failure.transport("response body over \(maxResponseBytes) bytes")
                    }
                    collected.writeBuffer(&chunk)
                case .end:
                    guard let response else { continue }
                    return Response(
                        status: Int(response.status.code),
                        headers: response.headers,
                        body: Data(collected.readableBytesView)
                    )
                }
            }
            if let writeError { throw writeError }
            throw Failure.transport("the server closed the connection before a complete response")
        }
    }

    /// The path and query to send (`/` when the path is empty).
    static func requestTarget(_ url: URL) -> String {
        var target = url.path(percentEncoded: true)
        if target.isEmpty { target = "/" }
        if let query = url.query(percentEncoded: true) { target += "?" + query }
        return target
    }

    /// Whether a connect failed with an error of the operating system's (refused, unreachable...).
    static func isOperatingSystemError(_ error: any Error) -> Bool {
        if error is IOError { return true }
        if let connection = error as? NIOConnectionError {
            return !connection.connectionErrors.isEmpty
                && connection.connectionErrors.allSatisfy { $0.error is IOError }
        }
        return false
    }

    /// Whether a connect failed because its timeout passed.
    static func isConnectTimeout(_ error: any Error) -> Bool {
        if case .connectTimeout? = error as? ChannelError { return true }
        return false
    }

    /// A connect failure in words: "connection refused" rather than NIO's structure.
    static func describeConnectFailure(_ error: any Error, host: String, port: Int) -> String {
        if let connection = error as? NIOConnectionError {
            if let first = connection.connectionErrors.first {
                if let io = first.error as? IOError {
                    return "cannot connect to \(host):\(port): \(String(cString: strerror(io.errnoCode)))"
                }
                return "cannot connect to \(host):\(port): \(first.error)"
            }
            if let dns = connection.dnsAError ?? connection.dnsAAAAError { return "cannot resolve \(host): \(dns)" }
        }
        if let io = error as? IOError {
            return "cannot connect to \(host):\(port): \(String(cString: strerror(io.errnoCode)))"
        }
        if error is ChannelError { return "cannot connect to \(host):\(port): \(error)" }
        return "cannot connect to \(host):\(port): \(error)"
    }
}
