import CNice
import Foundation
import Synchronization
import Testing
import TransportTestSupport

@testable import SwiftRTCICE

/// NiceAgent GObjects finalized so far (GLib weak references count them).
private let finalizedAgents = Atomic<Int>(0)

/// Opening and closing many agents leaves nothing behind. The test runs in parallel with the
/// rest of the package, so it checks the resources of its own agents exactly (their socket
/// descriptors, their GObjects, its pool's threads) rather than process-wide totals that
/// other tests move.
@Test func closingManyAgentsFreesSocketsGObjectsAndThreads() async throws {
    let pool = TransportThreadPool(threadCount: 2, name: "ice-leak")
    // A new thread takes its name once it runs.
    #expect(await poolThreads(become: 2))

    var sockets = Set<String>()  // "socket:[inode]" of every socket the agents had
    let agentCount = 200
    for _ in 0..<(agentCount / 20) {
        var agents: [IceAgent] = []
        for index in 0..<20 {
            let agent = try IceAgent(configuration: loopback(index % 2 == 0 ? .controlling : .controlled), pool: pool)
            g_object_weak_ref(
                UnsafeMutableRawPointer(agent.core.agent).assumingMemoryBound(to: GObject.self),
                { _, _ in finalizedAgents.add(1, ordering: .relaxed) },
                nil
            )
            try await agent.startGathering()
            let own = socketIdentities(of: agent)
            #expect(own.count == 1, "one UDP socket on 127.0.0.1 per agent")
            sockets.formUnion(own)
            agents.append(agent)
        }
        for agent in agents { await agent.close() }
    }
    #expect(sockets.count == agentCount)

    // Every socket is closed (a descriptor number may be reused, an inode may not).
    let open = Set(openDescriptorTargets())
    #expect(sockets.isDisjoint(with: open))
    // Every NiceAgent is finalized once the last Swift reference went.
    let deadline = ContinuousClock.now + .seconds(5)
    while finalizedAgents.load(ordering: .relaxed) < agentCount && ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(5))
    }
    #expect(finalizedAgents.load(ordering: .relaxed) == agentCount)
    // The agents started no threads of their own; the pool's end with it.
    #expect(threadNames().filter { $0.hasPrefix("ice-leak-") }.count == 2)
    pool.shutdown()
    #expect(threadNames().filter { $0.hasPrefix("ice-leak-") }.isEmpty)
}

private func poolThreads(become count: Int) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(2)
    while threadNames().filter({ $0.hasPrefix("ice-leak-") }).count != count && ContinuousClock.now < deadline {
        try? await Task.sleep(for: .milliseconds(1))
    }
    return threadNames().filter { $0.hasPrefix("ice-leak-") }.count == count
}

/// "socket:[inode]" of each socket libnice holds for the agent's component.
private func socketIdentities(of agent: IceAgent) -> Set<String> {
    guard let array = nice_agent_get_sockets(agent.core.agent, agent.core.streamID, 1) else { return [] }
    defer { g_ptr_array_unref(array) }
    var identities = Set<String>()
    for index in 0..<Int(array.pointee.len) {
        guard let socket = array.pointee.pdata[index] else { continue }
        let descriptor = g_socket_get_fd(socket.assumingMemoryBound(to: GSocket.self))
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)") {
            identities.insert(target)
        }
    }
    return identities
}

/// What each open descriptor of the process points at.
private func openDescriptorTargets() -> [String] {
    let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return descriptors.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)") }
}

/// The names of the threads of the process.
private func threadNames() -> [String] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
        .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
}

/// The candidate sockets get the configured receive buffer (the kernel reports twice the
/// size asked for; without CAP_NET_ADMIN it caps the request at net.core.rmem_max).
@Test func candidateSocketsGetTheConfiguredReceiveBuffer() async throws {
    let requested = 1 << 20
    let agent = try IceAgent(
        configuration: .init(role: .controlling, localAddresses: ["127.0.0.1"], receiveBufferSize: requested)
    )
    try await agent.startGathering()
    let array = try #require(nice_agent_get_sockets(agent.core.agent, agent.core.streamID, 1))
    defer { g_ptr_array_unref(array) }
    #expect(array.pointee.len == 1)
    let socket = try #require(array.pointee.pdata[0])
    var size: Int32 = 0
    var length = socklen_t(MemoryLayout<Int32>.size)
    #expect(
        getsockopt(g_socket_get_fd(socket.assumingMemoryBound(to: GSocket.self)), SOL_SOCKET, SO_RCVBUF, &size, &length)
            == 0
    )
    let rmemMax =
        Int(
            (try? String(contentsOfFile: "/proc/sys/net/core/rmem_max", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? "0"
        ) ?? 0
    // Root with CAP_NET_ADMIN gets it all (SO_RCVBUFFORCE); otherwise rmem_max caps it.
    let granted = geteuid() == 0 ? [requested, min(requested, rmemMax)] : [min(requested, rmemMax)]
    #expect(granted.map { 2 * $0 }.contains(Int(size)))
    await agent.close()
}
