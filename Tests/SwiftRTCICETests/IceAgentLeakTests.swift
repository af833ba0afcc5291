import CNice
import Foundation
import Synchronization
import Testing
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

    var sockets = Set<String>()   // "socket:[inode]" of every socket the agents had
    let agentCount = 200
    for _ in 0..<(agentCount / 20) {
        var agents: [IceAgent] = []
        for index in 0..<20 {
            let agent = try IceAgent(configuration: loopback(index % 2 == 0 ? .controlling : .controlled), pool: pool)
            g_object_weak_ref(UnsafeMutableRawPointer(agent.core.agent).assumingMemoryBound(to: GObject.self),
                              { _, _ in finalizedAgents.add(1, ordering: .relaxed) }, nil)
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
