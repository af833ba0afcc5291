import CNice
import Glibc
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

    /// Sends the datagrams in order (one `iovec` each): with one `sendmmsg` per
    /// ``DirectRoute/batchLimit`` when the selected pair is plain UDP, else one by one through
    /// libnice. Returns how many went out, from the first; stops at the first the socket
    /// refused. Safe from any thread, no allocation.
    package func send(batch datagrams: UnsafeBufferPointer<iovec>) -> Int {
        guard !core.isClosed.load(ordering: .relaxed) else { return 0 }
        if let sent = core.directRoute.send(batch: datagrams) { return sent }
        var sent = 0
        for datagram in datagrams {
            guard send(UnsafeRawBufferPointer(start: datagram.iov_base, count: datagram.iov_len)) else { break }
            sent += 1
        }
        return sent
    }
}
