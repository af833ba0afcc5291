import CNice
import SwiftRTCSDP

/// libnice's signals, turned into the agent's state and events. libnice emits them on the
/// transport thread or on the thread of the call that caused them.
extension IceAgentCore {
    private typealias StateChanged = @convention(c) (OpaquePointer?, guint, guint, guint, gpointer?) -> Void
    private typealias NewCandidate =
        @convention(c) (OpaquePointer?, UnsafeMutablePointer<NiceCandidate>?, gpointer?) -> Void
    private typealias GatheringDone = @convention(c) (OpaquePointer?, guint, gpointer?) -> Void
    private typealias NewSelectedPair =
        @convention(c) (
            OpaquePointer?, guint, guint, UnsafeMutablePointer<NiceCandidate>?,
            UnsafeMutablePointer<NiceCandidate>?, gpointer?
        ) -> Void

    private static func core(_ userData: gpointer?) -> IceAgentCore {
        Unmanaged<IceAgentCore>.fromOpaque(userData!).takeUnretainedValue()
    }

    private static let stateChanged: StateChanged = { _, _, component, niceState, userData in
        guard component == IceAgentCore.componentID else { return }
        let mapped: IceConnectionState? =
            switch NiceComponentState(niceState) {
            case NICE_COMPONENT_STATE_CONNECTING: .checking
            case NICE_COMPONENT_STATE_CONNECTED: .connected
            case NICE_COMPONENT_STATE_READY: .completed
            case NICE_COMPONENT_STATE_FAILED: .failed
            default: nil  // disconnected (idle) and gathering: still new
            }
        guard let mapped else { return }
        core(userData).updateState { consent, now in consent.transportChanged(to: mapped, now: now) }
    }

    private static let newCandidate: NewCandidate = { _, candidate, userData in
        guard let candidate, candidate.pointee.component_id == IceAgentCore.componentID else { return }
        core(userData).gathered(IceCandidate(nice: candidate))
    }

    private static let gatheringDone: GatheringDone = { _, _, userData in
        core(userData).gatheringFinished()
    }

    private static let newSelectedPair: NewSelectedPair = { _, _, component, local, remote, userData in
        guard component == IceAgentCore.componentID, let local, let remote else { return }
        let pair = IceCandidatePair(local: IceCandidate(nice: local), remote: IceCandidate(nice: remote))
        let core = core(userData)
        guard !core.isClosed.load(ordering: .relaxed) else { return }
        core.directRoute.select(
            agent: core.agent,
            streamID: core.streamID,
            componentID: IceAgentCore.componentID,
            local: local,
            remote: remote
        )
        let direct = core.directRoute.isActive ? ", sent on its socket" : ", sent through libnice"
        IceAgentCore.logger.info("ICE selected pair \(pair)\(direct)")
        core.state.withLock { $0.selectedPair = pair }
    }

    func connectSignals(userData: UnsafeMutableRawPointer) {
        let instance = UnsafeMutableRawPointer(agent)
        func connect(_ name: String, _ callback: GCallback) -> UInt {
            UInt(g_signal_connect_data(instance, name, callback, userData, nil, GConnectFlags(0)))
        }
        let handlers = [
            connect("component-state-changed", unsafeBitCast(Self.stateChanged, to: GCallback.self)),
            connect("new-candidate-full", unsafeBitCast(Self.newCandidate, to: GCallback.self)),
            connect("candidate-gathering-done", unsafeBitCast(Self.gatheringDone, to: GCallback.self)),
            connect("new-selected-pair-full", unsafeBitCast(Self.newSelectedPair, to: GCallback.self)),
        ]
        state.withLock { $0.signalHandlers = handlers }
    }
}
