import Foundation
import SwiftRTC

/// The signaling the demo's two bots use, inside the process.
struct DemoSignaling: Sendable, CustomStringConvertible {
    let hub: InProcessSignalingHub

    static func start(users: [String]) async throws -> DemoSignaling {
        DemoSignaling(hub: InProcessSignalingHub())
    }

    var description: String { "in-process hub" }

    func channel(for user: String) async throws -> any SignalingChannel { hub.connect(user: user) }

    func stop() async {}
}
