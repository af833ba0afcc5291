import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import ServiceLifecycle
import SwiftRTCCore
import SwiftRTCSDP
import SwiftRTCSignaling
import Synchronization

// `POST` of an offer: the offer read and checked, counted against the limits, answered, and
// the session opened.
extension WHIPEndpoint {
    /// An offer POSTed to the endpoint at `endpointPath` from `address`: read and checked,
    /// counted against the limits, answered by `answerer`, and its session opened (`201`); or
    /// refused.
    func post(
        _ request: Request,
        from address: String,
        to endpointPath: String,
        answerer: Answerer
    ) async throws -> Response {
        if let denied = unauthorized(request) { return denied }
        let offer: String
        switch await readOffer(request, from: address) {
        case let .offer(text): offer = text
        case let .refusal(response): return response
        }
        if let full = admit(address) { return full }
        let answer: String
        let session: any WHIPEndpointSession
        do {
            (answer, session) = try await answerer(offer)
        } catch {
            return answerFailed(error, from: address)
        }
        return openSession(session, answer: answer, from: address, at: endpointPath)
    }

    /// The offer of a `POST`, or the refusal to send instead.
    private enum OfferRead {
        case offer(String)
        case refusal(Response)
    }

    /// Reads the offer of a `POST` from `address`: refused when it is not `application/sdp`,
    /// over ``Configuration/maxOfferBytes``, late (not all in within the door's request
    /// timeout: the connection then closes), not UTF-8, or not an SDP.
    private func readOffer(_ request: Request, from address: String) async -> OfferRead {
        guard let contentType = request.headers[.contentType], WHIPClient.isSDP(contentType) else {
            return .refusal(
                refused(
                    .unsupportedMediaType,
                    "Content-Type must be application/sdp",
                    headers: [Self.acceptPost: "application/sdp"]
                )
            )
        }
        let limit = configuration.maxOfferBytes
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
            return .refusal(refused(.contentTooLarge, "offer of \(length) bytes is over the limit of \(limit) bytes"))
        }
        let requestBody = request.body
        let body: ByteBuffer
        do {
            // Stops reading at the limit (a chunked body has no Content-Length to refuse first),
            // and at the door's request timeout (a body trickled byte by byte holds a connection).
            let timeout = door.configuration.requestTimeout
            guard let collected = try await withTimeout(timeout, { try await requestBody.collect(upTo: limit) }) else {
                door.closed(address, .slowBody)
                return .refusal(
                    refused(
                        .requestTimeout,
                        "the offer did not arrive within \(timeout)",
                        headers: [.connection: "close"]
                    )
                )
            }
            body = collected
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            return .refusal(refused(.contentTooLarge, "offer is over the limit of \(limit) bytes"))
        } catch {
            return .refusal(refused(.badRequest, "cannot read the offer body: \(error)"))
        }
        guard let offer = String(validating: body.readableBytesView, as: UTF8.self) else {
            return .refusal(refused(.badRequest, "the offer is not UTF-8"))
        }
        // An SDP starts with its version line (RFC 8866 §5).
        guard offer.hasPrefix("v=0") else {
            return .refusal(
                refused(
                    .badRequest,
                    offer.isEmpty ? "empty offer" : "the body is not an SDP offer (no v=0 first line)"
                )
            )
        }
        return .offer(offer)
    }

    /// The reply to an offer from `address` that the answerer failed on (its slot released):
    /// a ``WHIPOfferRejected`` is the client's fault, any other error `500`.
    private func answerFailed(_ error: any Error, from address: String) -> Response {
        if let rejected = error as? WHIPOfferRejected {
            state.withLock { $0.release(address) }
            logger.info("WHIP offer rejected: \(rejected.reason)")
            return refused(rejected.kind == .unusable ? .unprocessableContent : .badRequest, rejected.description)
        }
        state.withLock {
            $0.release(address)
            $0.stats.answererErrors += 1
        }
        logger.error("WHIP answerer failed: \(error)")
        return Self.text(.internalServerError, "cannot answer the offer: \(error)")
    }

    /// Opens the session answered for an offer from `address` at `endpointPath`, with its
    /// watcher, and replies `201 Created` with the answer, its `Location`, `ETag` and `Link`s.
    private func openSession(
        _ session: any WHIPEndpointSession,
        answer: String,
        from address: String,
        at endpointPath: String
    ) -> Response {
        let id = UUID().uuidString.lowercased()
        let (timeout, lifetime) = (configuration.connectTimeout, configuration.maxSessionDuration)
        let open = state.withLock { state in
            // The watcher takes the lock only once it has something to end: after this returns.
            let watcher = Task { [weak self] in
                _ = await self?.watch(id, session, timeout: timeout, lifetime: lifetime)
            }
            state.sessions[id] = Entry(
                session: session,
                path: endpointPath,
                address: address,
                watcher: watcher,
                etag: "\"\(id)\""
            )
            state.stats.sessionsCreated += 1
            if endpointPath != configuration.path { state.stats.viewerSessionsCreated += 1 }
            return state.sessions.count
        }
        logger.info(
            "\(endpointPath == configuration.path ? "WHIP" : "WHEP") session created (\(open) open)",
            metadata: ["session": "\(id)"]
        )
        var headers: HTTPFields = [
            .contentType: "application/sdp", .location: "\(endpointPath)/\(id)", .eTag: "\"\(id)\"",
        ]
        addLinks(to: &headers)
        return Response(
            status: .created,
            headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(string: answer))
        )
    }

    /// Counts an offer from `address` against the limits; nil when it may be answered (the
    /// slot is taken: release it if no session comes of it), else the refusal to send.
    private func admit(_ address: String) -> Response? {
        let (maxSessions, maxPerAddress) = (configuration.maxSessions, configuration.maxSessionsPerAddress)
        let refusal: HTTPResponse.Status? = state.withLock { state in
            if state.admitted >= maxSessions {
                state.stats.rejectedSessionLimit += 1
                return .serviceUnavailable
            }
            if state.admittedByAddress[address, default: 0] >= maxPerAddress {
                state.stats.rejectedAddressLimit += 1
                return .tooManyRequests
            }
            state.admitted += 1
            state.admittedByAddress[address, default: 0] += 1
            return nil
        }
        guard let refusal else { return nil }
        let retryAfter: HTTPFields = [.retryAfter: "\(Self.retryAfterSeconds)"]
        if refusal == .serviceUnavailable {
            logger.info("WHIP offer refused: \(maxSessions) sessions open")
            return Self.text(
                refusal,
                "the endpoint has \(maxSessions) sessions open, its limit: retry later",
                headers: retryAfter
            )
        }
        logger.info("WHIP offer from \(address) refused: \(maxPerAddress) sessions open for that address")
        return Self.text(
            refusal,
            "\(maxPerAddress) sessions are open from your address, the limit: retry later",
            headers: retryAfter
        )
    }
}
