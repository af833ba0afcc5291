import Synchronization

/// Routes each datagram received on an ICE component to the layer that reads it (RFC 7983):
/// DTLS records to DTLS, RTP and RTCP to SRTP. Runs on the transport thread that received
/// the datagram, synchronously, without allocating: the handler sees the receive buffer,
/// which is valid only during the call.
///
/// Datagrams nobody handles (no handler set for their kind, or an unknown first byte) are
/// dropped and counted in ``dropped``.
public final class DatagramDemultiplexer: Sendable {
    /// Reads one datagram, on the transport thread. The bytes are valid only during the call.
    public typealias Handler = @Sendable (UnsafeRawBufferPointer) -> Void

    /// The kinds a handler can be registered for.
    public enum Route: Sendable, Hashable, CaseIterable {
        case dtls, rtp, rtcp
        /// STUN that libnice did not consume itself (it consumes ICE checks and TURN).
        case stun
    }

    /// A handler in a box: taking a class reference out of the lock costs a retain, while
    /// taking a closure out through the generic `withLock` allocated a reabstraction thunk
    /// per datagram (found with the ICE benchmark's allocation stacks).
    private final class Box: Sendable {
        let handler: Handler
        init(_ handler: @escaping Handler) { self.handler = handler }
    }

    private struct Handlers {
        var dtls: Box?
        var rtp: Box?
        var rtcp: Box?
        var stun: Box?
    }

    private let handlers = Mutex(Handlers())
    private let droppedCount = Atomic<UInt64>(0)

    /// Creates a demultiplexer with no handlers (everything is dropped until handlers are set).
    public init() {}

    /// Sets (or with `nil` removes) the handler for one route. Safe from any thread.
    public func setHandler(_ handler: Handler?, for route: Route) {
        let box = handler.map(Box.init)
        handlers.withLock { handlers in
            switch route {
            case .dtls: handlers.dtls = box
            case .rtp: handlers.rtp = box
            case .rtcp: handlers.rtcp = box
            case .stun: handlers.stun = box
            }
        }
    }

    /// Datagrams dropped because nothing handles their kind.
    public var dropped: UInt64 { droppedCount.load(ordering: .relaxed) }

    /// Classifies `datagram` and hands it to the handler of its kind, or drops and counts it.
    @inline(__always)
    public func deliver(_ datagram: UnsafeRawBufferPointer) {
        let box: Box? = handlers.withLock { handlers in
            switch DatagramKind(classifying: datagram) {
            case .dtls: handlers.dtls
            case .rtp: handlers.rtp
            case .rtcp: handlers.rtcp
            case .stun: handlers.stun
            case .zrtp, .turnChannel, .unknown: nil
            }
        }
        if let box {
            box.handler(datagram)
        } else {
            droppedCount.add(1, ordering: .relaxed)
        }
    }
}
