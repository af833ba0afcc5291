import SwiftRTC
import Synchronization

/// What a `whip-server`'s WHEP viewers are sent: the media the newest WHIP session receives
/// (on air), decoded and pushed into two local tracks that every viewer's connection sends,
/// each encoding it for its own viewer. When that session ends the viewers get nothing more
/// until a new one is put on air.
final class Broadcast: Sendable {
    let audio = MediaStreamTrack(kind: .audio)
    let video = MediaStreamTrack(kind: .video)
    /// The number of the session on air.
    private let onAir = Atomic<Int>(0)

    /// Puts session `number` on air: each track `connection` receives is pushed into the
    /// broadcast's track of its kind while no newer session is on air. The tasks end with
    /// the received tracks; cancel them when the session ends.
    func putOnAir(session number: Int, receivedBy connection: PeerConnection) async -> [Task<Void, Never>] {
        onAir.store(number, ordering: .relaxed)
        var tasks: [Task<Void, Never>] = []
        for transceiver in await connection.transceivers where transceiver.kind == .audio || transceiver.kind == .video
        {
            let local = transceiver.kind == .audio ? audio : video
            let frames = transceiver.receiver.track.frames()
            tasks.append(
                Task {
                    for await frame in frames where self.onAir.load(ordering: .relaxed) == number { local.push(frame) }
                }
            )
        }
        return tasks
    }
}
