import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import ServiceLifecycle
import SwiftRTCCore
import SwiftRTCSDP
import SwiftRTCSignaling
import Synchronization

// `PATCH` of a session URL (RFC 9725 §4.3): trickled candidates and ICE restarts.
extension WHIPEndpoint {
    /// A `PATCH` of session `id` at `path`: trickled candidates or an ICE restart.
    func patch(_ request: Request, id: String, at path: String) async throws -> Response {
        if let denied = unauthorized(request) { return denied }
        guard let entry = state.withLock({ $0.sessions[id] }), entry.path == path else {
            return Self.text(.notFound, "no \(path == configuration.path ? "WHIP" : "WHEP") session \(id)")
        }
        guard let contentType = request.headers[.contentType],
            contentType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
                == Self.fragmentType
        else {
            return refused(
                .unsupportedMediaType,
                "Content-Type must be \(Self.fragmentType)",
                headers: [Self.acceptPatch: Self.fragmentType]
            )
        }
        let requestBody = request.body
        let body: ByteBuffer
        do {
            let timeout = door.configuration.requestTimeout
            guard
                let collected = try await withTimeout(
                    timeout,
                    { try await requestBody.collect(upTo: Self.maxFragmentBytes) }
                )
            else {
                return refused(
                    .requestTimeout,
                    "the fragment did not arrive within \(timeout)",
                    headers: [.connection: "close"]
                )
            }
            body = collected
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            return refused(.contentTooLarge, "a fragment is at most \(Self.maxFragmentBytes) bytes")
        } catch {
            return refused(.badRequest, "cannot read the fragment: \(error)")
        }
        guard let text = String(validating: body.readableBytesView, as: UTF8.self) else {
            return refused(.badRequest, "the fragment is not UTF-8")
        }
        let fragment: TrickleICEFragment
        do { fragment = try TrickleICEFragment(parsing: text) } catch {
            return refused(.badRequest, "the fragment does not parse: \(error)")
        }
        guard let ifMatch = request.headers[.ifMatch]?.trimmingCharacters(in: .whitespaces) else {
            return refused(.preconditionRequired, "a PATCH needs If-Match: the session's ETag, or * for an ICE restart")
        }
        if ifMatch == "*" { return await restartICE(entry.session, with: fragment, id: id) }
        guard ifMatch == entry.etag else {
            return refused(.preconditionFailed, "If-Match \(ifMatch) is not the session's entity tag")
        }
        do {
            try await entry.session.addCandidates(fragment)
        } catch {
            return patchFailed(error)
        }
        state.withLock { $0.stats.trickles += 1 }
        return Response(status: .noContent)
    }

    /// An ICE restart of session `id` (its `PATCH` with `If-Match: *`).
    private func restartICE(
        _ session: any WHIPEndpointSession,
        with fragment: TrickleICEFragment,
        id: String
    ) async -> Response {
        guard fragment.usernameFragment != nil, fragment.password != nil else {
            return refused(.badRequest, "an ICE restart carries the new a=ice-ufrag and a=ice-pwd")
        }
        let maxRestarts = configuration.maxICERestarts
        let allowed = state.withLock { state -> Bool in
            guard let restarts = state.sessions[id]?.restarts, restarts < maxRestarts else {
                state.stats.rejectedRestarts += 1
                return false
            }
            state.sessions[id]?.restarts = restarts + 1
            return true
        }
        guard allowed else {
            return Self.text(.tooManyRequests, "the session has restarted ICE \(maxRestarts) times, its limit")
        }
        let answer: TrickleICEFragment
        do { answer = try await session.restartICE(fragment) } catch { return patchFailed(error) }
        let etag = "\"\(UUID().uuidString.lowercased())\""
        state.withLock { state in
            state.sessions[id]?.etag = etag
            state.stats.iceRestarts += 1
        }
        logger.info("ICE restarted", metadata: ["session": "\(id)"])
        return Response(
            status: .ok,
            headers: [.contentType: Self.fragmentType, .eTag: etag],
            body: ResponseBody(byteBuffer: ByteBuffer(string: answer.sdpfrag))
        )
    }

    /// The reply to a `PATCH` the session failed on.
    private func patchFailed(_ error: any Error) -> Response {
        switch error {
        case is WHIPPatchUnsupported:
            return refused(.methodNotAllowed, "\(error): put all candidates in the offer", headers: [.allow: "DELETE"])
        case let rejected as WHIPOfferRejected:
            return refused(rejected.kind == .unusable ? .unprocessableContent : .badRequest, rejected.reason)
        default:
            state.withLock { $0.stats.answererErrors += 1 }
            logger.error("WHIP PATCH failed: \(error)")
            return Self.text(.internalServerError, "cannot take the fragment: \(error)")
        }
    }
}
