import CUsrsctp
import Foundation
import Synchronization

// From usrsctp, on its threads: what it sends and what it has read, delivered in order.
extension SctpAssociation {
    /// usrsctp says the socket is readable or writable (`SCTP_EVENT_*`).
    func ready(_ events: Int32) {
        if events & SCTP_EVENT_READ != 0 { readAvailable() }
        if events & SCTP_EVENT_WRITE != 0, wantsRoom.load(ordering: .relaxed), hasRoom() {
            wantsRoom.store(false, ordering: .relaxed)
            onEvent(.sendBufferHasRoom)
        }
    }

    /// Whether half the send buffer is free (`SCTP_GET_SNDBUF_USE`: the bytes queued to send).
    func hasRoom() -> Bool {
        var use = SendBufferUse()
        var size = socklen_t(MemoryLayout<SendBufferUse>.size)
        let queued = withSocket { socket in
            usrsctp_getsockopt(socket, Int32(IPPROTO_SCTP), SendBufferUse.option, &use, &size) == 0
                ? Int(use.queuedToSend) : 0
        }
        return (queued ?? 0) <= Self.sendBuffer(configuration) / 2
    }

    /// Reads what usrsctp holds while nothing holds reading, and delivers it. One thread
    /// reads at a time; one that finds another reading leaves the rest to it.
    func readAvailable() {
        let claimed = reading.withLock { reading in
            guard !reading.active else {
                reading.again = true
                return false
            }
            reading.active = true
            return true
        }
        guard claimed else { return }
        while true {
            while holds.load(ordering: .sequentiallyConsistent) <= 0, readOne() {}
            let done = reading.withLock { reading in
                guard !reading.again else {
                    reading.again = false
                    return false
                }
                reading.active = false
                return true
            }
            if done { return }
        }
    }

    /// Reads one message (or piece) or notification and delivers it: false when there was none.
    func readOne() -> Bool {
        var info = sctp_rcvinfo()
        var infoSize = socklen_t(MemoryLayout<sctp_rcvinfo>.size)
        var infoType: UInt32 = 0
        var flags: Int32 = 0
        let count = withSocket { socket in
            usrsctp_recvv(
                socket,
                readBuffer.baseAddress,
                readBuffer.count,
                nil,
                nil,
                &info,
                &infoSize,
                &infoType,
                &flags
            )
        }
        guard let count, count > 0 else { return false }
        deliver(UnsafeRawBufferPointer(rebasing: readBuffer[..<count]), info: info, flags: flags)
        return true
    }

    func transmit(_ packet: UnsafeRawBufferPointer) {
        output(packet)
    }

    func deliver(_ data: UnsafeRawBufferPointer, info: sctp_rcvinfo, flags: Int32) {
        if flags & Int32(MSG_NOTIFICATION) != 0 {
            // Notifications arrive whole.
            notification(data)
            return
        }
        let last = flags & Int32(MSG_EOR) != 0
        let unordered: UInt64 = info.rcv_flags & UInt16(SCTP_UNORDERED) != 0 ? 1 << 16 : 0
        let key = UInt64(info.rcv_sid) << 17 | unordered | UInt64(info.rcv_ssn)
        let piece = inPieces.withLock { inPieces -> Piece in
            if last { return inPieces.remove(key) == nil ? .whole : .end }
            if inPieces.contains(key) { return .more }
            guard inPieces.count < Self.maxMessagesInPieces else { return .tooMany }
            inPieces.insert(key)
            return .more
        }
        switch piece {
        case .whole where data.count <= configuration.maxMessageSize:
            onEvent(.message(stream: info.rcv_sid, ppid: UInt32(bigEndian: info.rcv_ppid), data: Array(data)))
        case .whole, .end:
            oversized.add(1, ordering: .relaxed)
        case .more:
            break
        case .tooMany:
            onEvent(.closed("the peer sent more than \(Self.maxMessagesInPieces) messages over the limit at once"))
        }
    }

    /// Where a read falls in its message.
    enum Piece {
        /// All of it; its end; a piece before the end (of a message over the limit).
        case whole, end, more
        /// A piece of one more message over the limit than ``maxMessagesInPieces``.
        case tooMany
    }

    func notification(_ data: UnsafeRawBufferPointer) {
        guard data.count >= MemoryLayout<sctp_tlv>.size else { return }
        let header = data.loadUnaligned(as: sctp_tlv.self)
        switch Int32(header.sn_type) {
        case SCTP_ASSOC_CHANGE:
            guard data.count >= MemoryLayout<sctp_assoc_change>.size else { return }
            let change = data.loadUnaligned(as: sctp_assoc_change.self)
            switch Int32(change.sac_state) {
            case SCTP_COMM_UP: onEvent(.connected)
            case SCTP_COMM_LOST: onEvent(.closed("the association was lost"))
            case SCTP_SHUTDOWN_COMP: onEvent(.closed("the association was shut down"))
            case SCTP_CANT_STR_ASSOC: onEvent(.closed("the association could not be set up"))
            default: break
            }
        case SCTP_STREAM_RESET_EVENT:
            let headerSize = MemoryLayout<sctp_stream_reset_event>.size
            guard data.count >= headerSize else { return }
            let event = data.loadUnaligned(as: sctp_stream_reset_event.self)
            guard Int32(event.strreset_flags) & SCTP_STREAM_RESET_INCOMING_SSN != 0 else { return }
            let count = min((data.count - headerSize) / 2, Int(event.strreset_length) / 2)
            let streams = (0..<max(0, count)).map {
                data.loadUnaligned(fromByteOffset: headerSize + $0 * 2, as: UInt16.self)
            }
            onEvent(.streamsReset(streams))
        default:
            break
        }
    }
}
