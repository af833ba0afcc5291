import CUsrsctp
import Foundation
import Synchronization

/// One SCTP association whose packets travel over something that is not a socket: usrsctp in
/// `AF_CONN` mode (RFC 8261: SCTP over DTLS). Packets it makes go to `send`; packets from the
/// peer come in through ``receive(_:)``. Both ends connect (as WebRTC does: SCTP handles the
/// simultaneous open), on port 5000 unless told otherwise (`a=sctp-port`, RFC 8841).
///
/// What the association delivers (it is up, a message, streams reset, it ended) goes to
/// `onEvent`, read from usrsctp on the thread that made it readable (the one that handed it
/// the peer's packet) or that lifted the last ``holdReading()``: the layer above keeps what it
/// needs (the data channels), so nothing is queued here. While a hold stands, what the peer
/// sends stays in usrsctp's receive buffer: its window closes and the peer waits (RFC 9260
/// §6.2), as a socket's peer waits for a slow reader. Messages are reassembled up to
/// ``Configuration/maxMessageSize``; a longer one is dropped and counted
/// (``droppedOversizedMessages``).
public final class SctpAssociation: Sendable {
    /// Ports and sizes.
    public struct Configuration: Sendable, Hashable {
        /// The local SCTP port (`a=sctp-port` of our description).
        public var localPort: UInt16 = 5000
        /// The peer's SCTP port (`a=sctp-port` of its description).
        public var remotePort: UInt16 = 5000
        /// The largest message taken from the peer (`a=max-message-size`, RFC 8841).
        public var maxMessageSize = 256 * 1024
        /// Streams each way (the stream limit of data channels, RFC 8831: 65535).
        public var streams: UInt16 = 65535
        /// The largest SCTP packet to make: what one DTLS record carries (RFC 8261 §5: no
        /// path MTU discovery here), at least 576.
        public var maxPacketSize = 1200 {
            didSet { maxPacketSize = max(576, maxPacketSize) }
        }

        /// Ports 5000, messages up to 256 KiB, 65535 streams.
        public init() {}
    }

    /// What the association tells the layer above.
    public enum Event: Sendable, Equatable {
        /// The association is up: messages can be sent.
        case connected
        /// A whole message on `stream` with payload protocol `ppid`.
        case message(stream: UInt16, ppid: UInt32, data: [UInt8])
        /// The peer reset these incoming streams (its channels on them are closed).
        case streamsReset([UInt16])
        /// Half the send buffer is free again after a send was refused as ``SendError/bufferFull``
        /// (told on the thread that handed the association the peer's acknowledgement).
        case sendBufferHasRoom
        /// The association ended (shut down, aborted, or it could not be set up).
        case closed(String)
    }

    /// How a message is delivered (RFC 8831 §6.1).
    public struct Reliability: Sendable, Hashable {
        /// Delivered in the order sent on its stream.
        public var ordered = true
        /// Given up after this many retransmissions (partial reliability, RFC 3758).
        public var maxRetransmits: UInt32?
        /// Given up this many milliseconds after it was first sent.
        public var maxPacketLifeTime: UInt32?

        /// Reliable and ordered unless told otherwise.
        public init(ordered: Bool = true, maxRetransmits: UInt32? = nil, maxPacketLifeTime: UInt32? = nil) {
            self.ordered = ordered
            self.maxRetransmits = maxRetransmits
            self.maxPacketLifeTime = maxPacketLifeTime
        }
    }

    /// Why a message was not taken.
    public enum SendError: Error, Sendable, Equatable {
        /// The send buffer (or usrsctp's queue) is full: try again when it drains
        /// (``Event/sendBufferHasRoom``).
        case bufferFull
        /// Over ``Configuration/maxMessageSize`` or the association is not up; usrsctp's errno.
        case refused(errno: Int32)
    }

    public let configuration: Configuration
    let id: Int
    /// usrsctp's socket: usrsctp locks it itself, so any thread may use it, through
    /// ``withSocket(_:)`` only.
    nonisolated(unsafe) private let socket: OpaquePointer
    /// Calls on ``socket`` in progress (twice their number), and whether ``close()`` was
    /// called (the low bit). usrsctp frees a socket when it is closed, so the last call to
    /// leave closes it: a send racing the close of an aborted association never uses freed
    /// memory. One atomic word: a send takes no lock of ours for it.
    let users = Atomic<Int>(0)
    let output: @Sendable (UnsafeRawBufferPointer) -> Void
    let onEvent: @Sendable (Event) -> Void
    /// Messages coming in pieces, dropped until their last piece: a message within the limit
    /// is always read whole (the read buffer fits it, and usrsctp hands a message over before
    /// its end only past half its receive buffer, twice the limit), so a piece without its end
    /// is of a longer one. By stream, order and number (at fragment interleave level 2, pieces
    /// of messages on several streams may alternate). At most ``maxMessagesInPieces``.
    let inPieces = Mutex<Set<UInt64>>([])
    /// Messages over the limit that may come in pieces at once, at most: a peer that starts
    /// more has its association aborted.
    public static let maxMessagesInPieces = 64
    let oversized = Atomic<Int>(0)
    let malformed = Atomic<Int>(0)
    let isClosed = Atomic<Bool>(false)
    /// Holds on reading that stand (``holdReading()``): while any does, nothing is read.
    let holds = Atomic<Int>(0)
    /// Whether a thread is reading now (one at a time, so messages are delivered in order),
    /// and whether more became readable, or a hold was lifted, while it read.
    let reading = Mutex<(active: Bool, again: Bool)>((false, false))
    /// Where a message is read into, by the one thread reading: room for the largest message
    /// taken (at least 64 KiB), so one within the limit is read whole. Its pages are touched
    /// only as messages need them.
    nonisolated(unsafe) let readBuffer: UnsafeMutableRawBufferPointer
    /// A send was refused for room: the next time half the send buffer is free is told.
    let wantsRoom = Atomic<Bool>(false)
    /// Packets from the peer that came before ``connect()`` (its INIT, when it connected
    /// first): usrsctp would abort an association it has not asked for, so they wait.
    let early = Mutex<(connecting: Bool, packets: [[UInt8]])>((false, []))
    /// Packets held before ``connect()``, at most (more are dropped; the peer resends).
    public static let maxEarlyPackets = 16

    /// Messages dropped for being longer than ``Configuration/maxMessageSize``.
    public var droppedOversizedMessages: Int { oversized.load(ordering: .relaxed) }

    /// The peer's packets dropped before usrsctp saw them: a parameter list of a chunk was
    /// malformed (a parameter shorter than its header or past its chunk, which usrsctp 0.9.5
    /// would loop on forever).
    public var droppedMalformedPackets: Int { malformed.load(ordering: .relaxed) }

    /// Sets up the association (nothing is sent until ``connect()``).
    /// - Parameters:
    ///   - send: takes each SCTP packet to send to the peer (into DTLS), on usrsctp's threads.
    ///   - onEvent: takes what the association delivers, on usrsctp's threads.
    public init(
        configuration: Configuration = Configuration(),
        send: @escaping @Sendable (UnsafeRawBufferPointer) -> Void,
        onEvent: @escaping @Sendable (Event) -> Void
    ) throws(SctpError) {
        Usrsctp.start()
        self.configuration = configuration
        output = send
        self.onEvent = onEvent
        id = Usrsctp.nextID.add(1, ordering: .relaxed).newValue
        guard
            let socket = usrsctp_socket(
                AF_CONN,
                Int32(SOCK_STREAM.rawValue),
                Int32(IPPROTO_SCTP),
                nil,
                nil,
                0,
                nil
            )
        else { throw .call("usrsctp_socket", errno) }
        self.socket = socket
        readBuffer = .allocate(byteCount: max(configuration.maxMessageSize, 64 << 10), alignment: 16)
        usrsctp_register_address(UnsafeMutableRawPointer(bitPattern: id))
        Usrsctp.register(self, id: id)
        do throws(SctpError) {
            try Self.setOptions(socket, configuration)
            // Told when readable or writable (after usrsctp handled a packet, its locks
            // released): we read then, and only while nothing holds reading.
            guard usrsctp_set_upcall(socket, Usrsctp.upcall, UnsafeMutableRawPointer(bitPattern: id)) == 0 else {
                throw .call("usrsctp_set_upcall", errno)
            }
        } catch {
            close()
            throw error
        }
    }

    /// Binds to the local port and starts the association towards the peer's.
    public func connect() throws(SctpError) {
        guard try withSocket({ socket throws(SctpError) in try connect(socket) }) != nil else {
            throw .call("usrsctp_connect", EBADF)
        }
        let waiting = early.withLock { early in
            early.connecting = true
            defer { early.packets = [] }
            return early.packets
        }
        for packet in waiting { packet.withUnsafeBytes { receive($0) } }
    }

    func connect(_ socket: OpaquePointer) throws(SctpError) {
        var local = Self.address(configuration.localPort, id: id)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                usrsctp_bind(socket, UnsafeMutablePointer(mutating: $0), socklen_t(MemoryLayout<sockaddr_conn>.size))
            }
        }
        guard bound == 0 else { throw .call("usrsctp_bind", errno) }
        var remote = Self.address(configuration.remotePort, id: id)
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                usrsctp_connect(socket, UnsafeMutablePointer(mutating: $0), socklen_t(MemoryLayout<sockaddr_conn>.size))
            }
        }
        // Non-blocking: the handshake goes on (EINPROGRESS); `connected` says when it is up.
        guard connected == 0 || errno == EINPROGRESS else { throw .call("usrsctp_connect", errno) }
        // Packets of at most `maxPacketSize` (no path MTU discovery): with DTLS, UDP and IP
        // around them they stay under IPv6's minimum MTU.
        var parameters = sctp_paddrparams()
        withUnsafeMutableBytes(of: &parameters.spp_address) { storage in
            withUnsafeBytes(of: &remote) { storage.copyMemory(from: $0) }
        }
        parameters.spp_assoc_id = sctp_assoc_t(SCTP_FUTURE_ASSOC)
        parameters.spp_flags = UInt32(SPP_PMTUD_DISABLE) | UInt32(SPP_HB_ENABLE)
        parameters.spp_hbinterval = Self.heartbeatInterval
        // usrsctp leaves the 12-byte common header out of an AF_CONN path's MTU (measured:
        // 1200 gave packets of 1212 bytes).
        parameters.spp_pathmtu = UInt32(configuration.maxPacketSize - 12)
        let sized = withUnsafeBytes(of: parameters) {
            usrsctp_setsockopt(socket, Int32(IPPROTO_SCTP), SCTP_PEER_ADDR_PARAMS, $0.baseAddress, socklen_t($0.count))
        }
        guard sized == 0 else { throw .call("setsockopt SCTP_PEER_ADDR_PARAMS", errno) }
    }

    static func address(_ port: UInt16, id: Int) -> sockaddr_conn {
        var address = sockaddr_conn()
        address.sconn_family = UInt16(AF_CONN)
        address.sconn_port = port.bigEndian
        address.sconn_addr = UnsafeMutableRawPointer(bitPattern: id)
        return address
    }

    /// An SCTP packet from the peer (DTLS application data).
    public func receive(_ packet: UnsafeRawBufferPointer) {
        guard let base = packet.baseAddress, !isClosed.load(ordering: .relaxed) else { return }
        guard SctpParameterCheck.isWellFormed(packet) else {
            malformed.add(1, ordering: .relaxed)
            return
        }
        let held = early.withLock { early in
            guard !early.connecting else { return false }
            if early.packets.count < Self.maxEarlyPackets { early.packets.append(Array(packet)) }
            return true
        }
        guard !held else { return }
        // As a call on the socket: a close meanwhile waits for it to return. usrsctp_close
        // racing usrsctp_conninput for the same address frees the association under the packet
        // (a crash inside usrsctp, and heap corruption that aborted CI runs later, elsewhere).
        _ = withSocket { _ in usrsctp_conninput(UnsafeMutableRawPointer(bitPattern: id), base, packet.count, 0) }
    }

    /// Sends one message on `stream` with payload protocol `ppid` (RFC 8831 §8: 50 DCEP,
    /// 51 text, 53 binary, 56/57 empty text/binary).
    public func send(
        _ message: UnsafeRawBufferPointer,
        stream: UInt16,
        ppid: UInt32,
        reliability: Reliability = Reliability()
    ) throws(SendError) {
        var info = sctp_sendv_spa()
        info.sendv_flags = UInt32(SCTP_SEND_SNDINFO_VALID)
        info.sendv_sndinfo.snd_sid = stream
        info.sendv_sndinfo.snd_ppid = ppid.bigEndian
        info.sendv_sndinfo.snd_flags = UInt16(SCTP_EOR) | (reliability.ordered ? 0 : UInt16(SCTP_UNORDERED))
        if let retransmits = reliability.maxRetransmits {
            info.sendv_flags |= UInt32(SCTP_SEND_PRINFO_VALID)
            info.sendv_prinfo.pr_policy = UInt16(SCTP_PR_SCTP_RTX)
            info.sendv_prinfo.pr_value = retransmits
        } else if let lifetime = reliability.maxPacketLifeTime {
            info.sendv_flags |= UInt32(SCTP_SEND_PRINFO_VALID)
            info.sendv_prinfo.pr_policy = UInt16(SCTP_PR_SCTP_TTL)
            info.sendv_prinfo.pr_value = lifetime
        }
        let failure = withSocket { socket in
            let sent = withUnsafeMutablePointer(to: &info) {
                usrsctp_sendv(
                    socket,
                    message.baseAddress,
                    message.count,
                    nil,
                    0,
                    $0,
                    socklen_t(MemoryLayout<sctp_sendv_spa>.size),
                    UInt32(SCTP_SENDV_SPA),
                    0
                )
            }
            return sent < 0 ? errno : 0
        }
        guard let failure else { throw .refused(errno: EBADF) }
        guard failure != 0 else { return }
        // ENOBUFS: usrsctp's own chunk or memory limits for now (many small messages queued
        // at once, several associations busy); room comes back as for a full buffer.
        if failure == EWOULDBLOCK || failure == EAGAIN || failure == ENOBUFS {
            wantsRoom.store(true, ordering: .relaxed)
            throw .bufferFull
        }
        throw .refused(errno: failure)
    }

    /// Stops reading until the matching ``liftReadingHold()``: what the peer sends waits in
    /// usrsctp's receive buffer (at most its size, then the peer's window is closed). The layer
    /// above holds while a reader of its own is full. Holds count: reading goes on once every
    /// one is lifted.
    public func holdReading() { holds.add(1, ordering: .sequentiallyConsistent) }

    /// Lifts a hold of ``holdReading()``; the last one reads what waited, on this thread.
    public func liftReadingHold() {
        guard holds.subtract(1, ordering: .sequentiallyConsistent).newValue <= 0 else { return }
        readAvailable()
    }

    /// Resets our outgoing `streams` (closing the channels on them, RFC 8831 §6.7).
    public func resetStreams(_ streams: [UInt16]) throws(SctpError) {
        guard !streams.isEmpty else { return }
        let size = MemoryLayout<sctp_reset_streams>.size + streams.count * MemoryLayout<UInt16>.size
        let request = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        defer { request.deallocate() }
        let header = request.bindMemory(to: sctp_reset_streams.self, capacity: 1)
        header.pointee.srs_assoc_id = sctp_assoc_t(SCTP_ALL_ASSOC)
        header.pointee.srs_flags = UInt16(SCTP_STREAM_RESET_OUTGOING)
        header.pointee.srs_number_streams = UInt16(clamping: streams.count)
        let list = (request + MemoryLayout<sctp_reset_streams>.size).bindMemory(
            to: UInt16.self,
            capacity: streams.count
        )
        for (index, stream) in streams.enumerated() { list[index] = stream }
        let failure = withSocket { socket in
            usrsctp_setsockopt(socket, Int32(IPPROTO_SCTP), SCTP_RESET_STREAMS, request, socklen_t(size)) == 0
                ? 0 : errno
        }
        guard let failure else { throw .call("SCTP_RESET_STREAMS", EBADF) }
        guard failure == 0 else { throw .call("SCTP_RESET_STREAMS", failure) }
    }

    /// Ends the association (an ABORT: linger 0) and forgets it; nothing is delivered after.
    /// The socket is closed once no call uses it any more (at once, or by the last to leave).
    public func close() {
        isClosed.store(true, ordering: .relaxed)
        let before = users.bitwiseOr(1, ordering: .acquiringAndReleasing).oldValue
        // Closed now by this call, with no call in progress: released here.
        if before == 0 { release() }
    }

    /// `body` on the socket, or nil when the association is closed.
    func withSocket<Result, Failure: Error>(
        _ body: (OpaquePointer) throws(Failure) -> Result
    ) throws(Failure) -> Result? {
        var current = users.load(ordering: .relaxed)
        while true {
            guard current & 1 == 0 else { return nil }
            let (exchanged, original) = users.weakCompareExchange(
                expected: current,
                desired: current + 2,
                ordering: .acquiring
            )
            if exchanged { break }
            current = original
        }
        defer {
            // The last call to leave a closed socket (only the closed bit left) releases it.
            if users.subtract(2, ordering: .acquiringAndReleasing).newValue == 1 { release() }
        }
        return try body(socket)
    }

    func release() {
        usrsctp_close(socket)
        usrsctp_deregister_address(UnsafeMutableRawPointer(bitPattern: id))
        Usrsctp.forget(id)
    }

    deinit {
        close()
        readBuffer.deallocate()
    }
}
