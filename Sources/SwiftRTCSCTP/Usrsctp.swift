import CUsrsctp
import Foundation
import Synchronization

/// usrsctp's one instance in the process, and the associations it serves by id (the
/// `AF_CONN` address each registered): a packet or a callback for an association already
/// closed finds nothing and is dropped.
enum Usrsctp {
    /// The associations by id, in shards (by id) so that packets of different associations
    /// on different threads do not wait for one lock: every packet out and every upcall
    /// looks its association up.
    private static let shards = (0..<16).map { _ in Shard() }
    private final class Shard: Sendable {
        let associations = Mutex<[Int: SctpAssociation]>([:])
    }
    static let nextID = Atomic<Int>(0)
    private static let started = Mutex(false)

    /// Starts usrsctp once (its timer thread; ECN off, as WebRTC stacks run it).
    static func start() {
        started.withLock { started in
            guard !started else { return }
            started = true
            usrsctp_init(0, output, nil)
            usrsctp_sysctl_set_sctp_ecn_enable(0)
            usrsctp_sysctl_set_sctp_pr_enable(1)
        }
    }

    static func register(_ association: SctpAssociation, id: Int) {
        shards[id & 15].associations.withLock { $0[id] = association }
    }

    static func forget(_ id: Int) {
        shards[id & 15].associations.withLock { _ = $0.removeValue(forKey: id) }
    }

    private static func association(_ pointer: UnsafeMutableRawPointer?) -> SctpAssociation? {
        guard let pointer else { return nil }
        let id = Int(bitPattern: pointer)
        return shards[id & 15].associations.withLock { $0[id] }
    }

    /// usrsctp has a packet for the association whose address is `address`.
    static let output: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, Int, UInt8, UInt8) -> Int32 =
        {
            address,
            buffer,
            length,
            _,
            _ in
            guard let buffer, let association = association(address) else { return 0 }
            association.transmit(UnsafeRawBufferPointer(start: buffer, count: length))
            return 0
        }

    /// The socket whose association's id is `arg` is readable or writable: after usrsctp
    /// handled a packet of the peer's (on the thread that handed it over) or a timer, with
    /// its own locks released, so the association may read and send from here.
    static let upcall: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Void = {
        socket,
        arg,
        _ in
        guard let socket, let association = association(arg) else { return }
        association.ready(usrsctp_get_events(socket))
    }
}

/// `SCTP_GET_SNDBUF_USE` (usrsctp's `struct sctp_sockstat`, not in its public header): the
/// bytes the association has queued to send, and those it holds received.
struct SendBufferUse {
    static let option: Int32 = 0x1101
    var associationID: sctp_assoc_t = 0
    var queuedToSend: UInt32 = 0
    var heldReceived: UInt32 = 0
}
