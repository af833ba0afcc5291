import Foundation

extension WebSocketSignalingChannel {
    /// A channel's connections, one after the other: the first login (each URL once, in
    /// order), then after each drop the attempts to log in again, until the channel closes.
    struct Connections: Sendable {
        let servers: [URL]
        let login: Login
        let timeout: Duration
        let reconnectFor: Duration
        let outbox: SignalingOutbox
        let deliver: AsyncStream<SignalingMessage>.Continuation
        let states: AsyncStream<SignalingConnectionState>.Continuation

        /// Runs until the channel closes for good; `first` gets the user of the first welcome,
        /// or why no server welcomed the token.
        func run(first: OneShot<Result<String, SignalingChannelError>>) async {
            var failures: [String] = []
            var refused = false
            for (index, url) in servers.enumerated() {
                let end = await WebSocketSignalingChannel.link(
                    to: url,
                    login: login,
                    timeout: timeout,
                    deliver: deliver,
                    outbox: outbox
                ) { [outbox, states] user, writer in
                    guard outbox.attach(writer) else { return false }
                    states.yield(.connected(url))
                    first.resolve(.success(user))
                    return true
                }
                switch end {
                case let .failed(reason):
                    failures.append("signaling server \(url.absoluteString): \(reason)")
                case let .refused(reason):
                    refused = true
                    failures.append("signaling server \(url.absoluteString): \(reason)")
                case let .ended(closeCode, reason):
                    // Welcomed, then dropped: `first` holds the user.
                    guard case let .success(user) = await first.value else { return }
                    await reconnect(as: user, after: index, closeCode: closeCode, reason: reason)
                    return
                }
            }
            outbox.close()
            finish(nil)
            let reasons = failures.joined(separator: "; ")
            first.resolve(.failure(refused ? .refused(reasons) : .transport(reasons)))
        }

        /// Logs in again as `user` after each drop, until the channel closes for good.
        private func reconnect(as user: String, after index: Int, closeCode: Int?, reason: String) async {
            var index = index
            var end = (closeCode: closeCode, reason: reason)
            while true {
                outbox.detach()
                if outbox.isClosed { return finish(.closedByClient) }
                if end.closeCode == 1008 { return finish(.closedByServer(code: 1008, reason: end.reason)) }
                var lastError =
                    end.closeCode.map {
                        "the server closed the connection (\($0)\(end.reason.isEmpty ? "" : ": \(end.reason)"))"
                    }
                    ?? end.reason
                login.logger.info("signaling: connection lost, reconnecting: \(lastError)")
                let started = ContinuousClock.now
                var delay = WebSocketSignalingChannel.firstReconnectDelay
                var attempt = 0
                attempts: while true {
                    attempt += 1
                    states.yield(.reconnecting(attempt: attempt, lastError: lastError))
                    try? await Task.sleep(for: delay * Double.random(in: 0.75...1.25))
                    if outbox.isClosed { return finish(.closedByClient) }
                    let remaining = reconnectFor - (ContinuousClock.now - started)
                    guard remaining > .zero else { return finish(.gaveUp(after: reconnectFor, lastError: lastError)) }
                    delay = min(delay * 2, WebSocketSignalingChannel.maxReconnectDelay)
                    index = (index + 1) % servers.count
                    let url = servers[index]
                    let result = await WebSocketSignalingChannel.link(
                        to: url,
                        login: login,
                        timeout: min(timeout, remaining),
                        deliver: deliver,
                        outbox: outbox
                    ) { [outbox, states, login, attempt] welcomed, writer in
                        guard welcomed == user, outbox.attach(writer) else { return false }
                        login.logger.info("signaling: reconnected to \(url.absoluteString) (attempt \(attempt))")
                        states.yield(.connected(url))
                        return true
                    }
                    switch result {
                    case let .failed(reason):
                        lastError = "\(url.absoluteString): \(reason)"
                    case let .refused(reason):
                        if outbox.isClosed { return finish(.closedByClient) }
                        return finish(.refused("\(url.absoluteString) \(reason)"))
                    case let .ended(closeCode, reason):
                        end = (closeCode, reason)
                        break attempts
                    }
                }
            }
        }

        /// Closes the outbox and the channel's streams (`reason` nil: the first login failed).
        private func finish(_ reason: SignalingConnectionState.CloseReason?) {
            outbox.close()
            if let reason {
                login.logger.info("signaling: channel \(reason)")
                states.yield(.closed(reason))
            }
            states.finish()
            deliver.finish()
        }
    }
}
