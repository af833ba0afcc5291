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

    /// A password check costs a PBKDF2 derivation (here 5 000 000 iterations, about a second):
    /// with one check allowed at a time, a hello from an address that failed a login before
    /// finds it taken and is refused at once (429, closed), unchecked.
    @Test func aHelloFromASuspectAddressOverTheLimitOfPasswordChecksIsRefusedAtOnce() async throws {
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
        // A wrong password first: this address (127.0.0.1) is a suspect from now on.
        let wrong = try await server.raw()
        wrong.send(.text(#"{"type":"hello","id":"w","token":"frank:wrong horse"}"#))
        #expect(try await wrong.nextError().code == .unauthenticated)
        // erin's check takes the one place; frank's hello, sent meanwhile, is refused at once.
        let erin = try await server.raw()
        erin.send(.text(#"{"type":"hello","id":"h","token":"erin:correct horse"}"#))
        let deadline = ContinuousClock.now + .seconds(30)
        while server.server.hub.passwordChecks.count == 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        let frank = try await server.raw()
        frank.send(.text(#"{"type":"hello","id":"h","token":"frank:correct horse"}"#))
        let refused = try await frank.nextError()
        #expect(refused.code == .tooManyMessages)
        #expect(refused.reason.contains("logins are being checked"), "\(refused.reason)")
        #expect(refused.replyTo == "h")
        try await frank.inbox.waitFinished()
        guard case .welcome = try await erin.next().body else {
            Issue.record("erin was not welcomed")
            return
        }
        #expect(server.server.counters.passwordChecksOverLimit == 1)
        // The place is given back after each check.
        #expect(server.server.hub.passwordChecks.count == 0)
        for client in [wrong, erin, frank] { await client.close() }
        await server.stop()
    }

    /// A login from an address never seen failing waits for a password check's place (up to
    /// a bound, and only so many at once) rather than being refused while strangers keep them busy.
    @Test func aCleanLoginWaitsForAPasswordChecksPlace() async throws {
        let gate = PasswordCheckGate(limit: 1)
        #expect(gate.tryEnter())
        let waiter = Task { await gate.enter(waitingAtMost: .seconds(60)) }
        try await Task.sleep(for: .milliseconds(50))
        #expect(!gate.tryEnter())
        gate.leave()
        #expect(await waiter.value)
        #expect(gate.count == 1)
        gate.leave()
        // Past the wait, a login is refused.
        #expect(gate.tryEnter())
        #expect(await gate.enter(waitingAtMost: .milliseconds(30)) == false)
        gate.leave()
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
