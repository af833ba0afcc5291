import CNice
import SwiftRTCCore

/// The one component of an agent, as the layers above see it: a ``DatagramSender``.
public final class IceComponent: DatagramSender {
    let core: IceAgentCore

    init(core: IceAgentCore) {
        self.core = core
    }

    /// Sends one datagram on the selected pair: with `sendto` on its socket when the pair is
    /// plain UDP, else through libnice (`nice_agent_send`: a relayed pair, before a pair is
    /// selected). Safe from any thread, no allocation; `false` before a pair is selected,
    /// after close, or if the socket refused.
    public func send(_ datagram: UnsafeRawBufferPointer) -> Bool {
        guard let base = datagram.baseAddress, !core.isClosed.load(ordering: .relaxed) else { return false }
        if let sent = core.directRoute.send(base, count: datagram.count) { return sent }
        let sent = nice_agent_send(
            core.agent,
            core.streamID,
            IceAgentCore.componentID,
            UInt32(datagram.count),
            base.assumingMemoryBound(to: CChar.self)
        )
        return Int(sent) == datagram.count
    }
}
