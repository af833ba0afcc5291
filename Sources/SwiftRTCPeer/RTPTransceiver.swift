import SwiftRTCSDP
import Synchronization

/// A sender and a receiver sharing one media section (W3C `RTCRtpTransceiver`).
public final class RTPTransceiver: Sendable {
    /// audio or video.
    public let kind: MediaKind
    /// Sends the local track.
    public let sender: RTPSender
    /// Receives the remote track.
    public let receiver: RTPReceiver
    /// The `a=msid` stream id of the local track.
    let streamId: String
    private let state: Mutex<(mid: String?, direction: MediaDirection, current: MediaDirection?)>

    /// `sendEncodings`: simulcast, checked by the caller; sent highest resolution first.
    init(
        kind: MediaKind,
        direction: MediaDirection,
        track: MediaStreamTrack?,
        streamId: String,
        mid: String? = nil,
        sendEncodings: [RTPEncodingParameters] = []
    ) {
        self.kind = kind
        self.streamId = streamId
        let encodings = sendEncodings.sorted { $0.scaleResolutionDownBy < $1.scaleResolutionDownBy }
        func newSender(_ encoding: RTPEncodingParameters?, layers: [RTPSender] = []) -> RTPSender {
            RTPSender(
                kind: kind,
                track: track,
                ssrc: UInt32.random(in: 1...UInt32.max),
                rtxSsrc: kind == .video ? UInt32.random(in: 1...UInt32.max) : nil,
                encoding: encoding,
                layers: layers
            )
        }
        sender = newSender(encodings.first, layers: encodings.dropFirst().map { newSender($0) })
        receiver = RTPReceiver(kind: kind, trackId: "remote-\(kind)-\(sender.ssrc)")
        state = Mutex((mid, direction, nil))
    }

    /// The section's mid, once negotiated.
    public var mid: String? { state.withLock { $0.mid } }

    /// What this side wants to do; takes effect at the next negotiation.
    public var direction: MediaDirection {
        get { state.withLock { $0.direction } }
        set { state.withLock { $0.direction = newValue } }
    }

    /// The direction negotiated last (nil before).
    public var currentDirection: MediaDirection? { state.withLock { $0.current } }

    func setMid(_ mid: String?) { state.withLock { $0.mid = mid } }
    func setCurrentDirection(_ direction: MediaDirection?) { state.withLock { $0.current = direction } }

    /// The transceiver as JSEP takes it.
    var jsep: LocalTransceiver {
        var transceiver = LocalTransceiver(
            kind: kind,
            direction: direction,
            mid: mid,
            streamId: streamId,
            trackId: sender.track?.id ?? "-",
            ssrc: sender.ssrc,
            rtxSsrc: sender.rtxSsrc
        )
        transceiver.simulcastRids = sender.simulcastSenders.compactMap(\.encoding?.rid)
        return transceiver
    }
}
