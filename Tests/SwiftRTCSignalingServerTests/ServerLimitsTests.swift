import Foundation
import SwiftRTCSignaling
import TestScheduling
import Testing

@testable import SwiftRTCSignalingServer

/// The limits that keep strangers from taking the server: connections in total and per client
/// address, and password checks running at once. Each refusal is the protocol's `error` (429,
/// answering the client's first message), closes the connection, and is counted in
/// ``SignalingServer/counters``. The refusals wait a second for the client's first message, so
/// these tests take the real-time slot: beside a load test the hello can take longer.
@Suite(.realTime) struct ServerLimitsTests {
    /// Waits until the server has `count` connections open (a client's close reaches it later).
    static func waitForConnections(_ count: Int, on server: RunningServer) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while await server.server.hub.connectionCount != count {
            guard ContinuousClock.now < deadline else {
                throw TestTimeout(description: "the server did not get to \(count) connections")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Logged-in raw clients for `users` (each login is answered, so the server counts them).
    static func connect(_ users: [String], to server: RunningServer) async throws -> [RawClient] {
        var clients: [RawClient] = []
        for user in users {
            let raw = try await server.raw()
            try await raw.login(user)
            clients.append(raw)
        }
        return clients
    }

    @Test func aConnectionOverTheTotalLimitIsRefusedAndClosed() async throws {
        var configuration = SignalingServer.Configuration()
        configuration.maxConnections = 3
        let server = try await RunningServer.start(configuration)
        var clients = try await Self.connect(["alice", "bob", "carol"], to: server)
        let refused = try await server.raw()
        // The refusal answers the hello.
        refused.send(.text(#"{"type":"hello","id":"h4","token":"\#(TestUsers.token("dave"))"}"#))
        let error = try await refused.nextError()
        #expect(error.code == .tooManyMessages)
        #expect(error.replyTo == "h4")
        #expect(error.reason.contains("3 connections open"), "\(error.reason)")
        try await refused.inbox.waitFinished()
        #expect(server.server.counters.connectionsOverTotalLimit == 1)
        #expect(server.server.counters.connectionsOverAddressLimit == 0)
        // The connections already open are served; a place given back can be taken again.
        try await HostileInputTests.stillServes(clients[1])
        await clients.removeFirst().close()
        try await Self.waitForConnections(2, on: server)
        clients += try await Self.connect(["dave"], to: server)
        for client in clients { await client.close() }
        await server.stop()
    }

    @Test func aConnectionOverTheLimitOfItsAddressIsRefusedAndClosed() async throws {
        var configuration = SignalingServer.Configuration()
        configuration.maxConnectionsPerAddress = 2
        let server = try await RunningServer.start(configuration)
        var clients = try await Self.connect(["alice", "bob"], to: server)
        for says in [true, false] {
            let refused = try await server.raw()
            // A client that says nothing gets the refusal after a second.
            if says { refused.send(.text(#"{"type":"hello","id":"h3","token":"\#(TestUsers.token("carol"))"}"#)) }
            let error = try await refused.nextError()
            #expect(error.code == .tooManyMessages)
            #expect(error.replyTo == (says ? "h3" : nil))
            #expect(error.reason.contains("2 connections are open from your address"), "\(error.reason)")
            try await refused.inbox.waitFinished()
        }
        #expect(server.server.counters.connectionsOverAddressLimit == 2)
        #expect(server.server.counters.connectionsOverTotalLimit == 0)
        await clients.removeFirst().close()
        try await Self.waitForConnections(1, on: server)
        clients += try await Self.connect(["carol"], to: server)
        for client in clients { await client.close() }
        await server.stop()
    }

    /// A password check costs a PBKDF2 derivation (here 5 000 000 iterations, about a second,
    /// so that the two hellos overlap for sure): with one check allowed at a time, of two
    /// hellos sent together one is checked and the other refused at once (429, closed).
    @Test func aHelloOverTheLimitOfPasswordChecksIsRefusedAtOnce() async throws {
        // Python's hashlib, 5 000 000 iterations, password "correct horse".
        let slow = try PasswordHash(
            parsing: "pbkdf2-sha256$5000000$c2xvdy10ZXN0LXNhbHQxNg==$oStnNyA0O7yT5gqQgcwXRjRbB6h7VyZpBM7G43VAsEM="
        )
        var configuration = SignalingServer.Configuration()
        configuration.maxConcurrentPasswordChecks = 1
        let server = try await RunningServer.start(
            configuration,
            credentials: try SignalingCredentials.users(["erin": slow, "frank": slow])
        )
        let clients = [try await server.raw(), try await server.raw()]
        for (client, user) in zip(clients, ["erin", "frank"]) {
            client.send(.text(#"{"type":"hello","id":"h","token":"\#(user):correct horse"}"#))
        }
        var welcomed = 0
        var refused: [RawClient] = []
        for client in clients {
            let reply = try await client.next()
            switch reply.body {
            case .welcome: welcomed += 1
            case let .error(error):
                #expect(error.code == .tooManyMessages)
                #expect(error.reason.contains("logins are being checked"), "\(error.reason)")
                #expect(error.replyTo == "h")
                refused.append(client)
            default: Issue.record("unexpected \(reply)")
            }
        }
        #expect(welcomed == 1)
        #expect(refused.count == 1)
        for client in refused { try await client.inbox.waitFinished() }
        #expect(server.server.counters.passwordChecksOverLimit == 1)
        // The place is given back after each check.
        #expect(server.server.hub.passwordChecks.count == 0)
        let later = try await server.raw()
        later.send(.text(#"{"type":"hello","token":"frank:correct horse"}"#))
        guard case .welcome = try await later.next().body else {
            Issue.record("frank was not welcomed")
            return
        }
        for client in clients + [later] { await client.close() }
        await server.stop()
    }

    @Test(arguments: [
        ("192.0.2.7", "192.0.2.7"),
        ("::ffff:192.0.2.7", "192.0.2.7"),
        ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),
        ("2001:db8:1:2::9", "2001:db8:1:2::/64"),
        ("::1", "0:0:0:0::/64"),
        (nil, "local"),
    ])
    func clientAddressesCountAsOneClientPerIPv4AddressOrIPv6Slash64(ip: String?, key: String) {
        #expect(ClientAddress.key(forIP: ip) == key)
    }

    @Test func theCountersStartAtZeroAndNameThemselves() async throws {
        let server = try await RunningServer.start()
        #expect(server.server.counters == SignalingServer.Counters())
        #expect(
            server.server.counters.description.hasPrefix("connectionsOverTotalLimit=0 connectionsOverAddressLimit=0")
        )
        await server.stop()
    }
}
