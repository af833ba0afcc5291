import Foundation
import SwiftRTCSCTP

/// SCTP packets from a peer into a real `SctpAssociation` (usrsctp in AF_CONN mode), as DTLS
/// hands them over: the association under test connects (its INIT goes nowhere) and the input
/// plays the peer, packet by packet, mixed with what the application does (connect, send,
/// reset streams, close). usrsctp handles a packet on the thread that gives it
/// (`usrsctp_conninput`), so each input is played synchronously; a new association per input.
///
/// usrsctp drops a packet whose CRC32c or verification tag is wrong before looking at it, and
/// our association's tags and initial TSN are random: the body fixes each packet up before it
/// goes in, unless the op's flags say not to:
/// - the verification tag becomes our INIT's initiate tag (not in a packet that starts with
///   an INIT, whose tag is 0);
/// - TSNs of ours the peer refers to (SACK and SHUTDOWN cumulative TSN, RE-CONFIG response
///   sequence numbers and our next TSN) move by the difference between our initial TSN and
///   the one the input was recorded against (its header);
/// - with flag 0x40, a COOKIE-ECHO carries the state cookie of our last INIT-ACK (so that the
///   peer's side of a simultaneous open can complete);
/// - the CRC32c is computed again.
///
/// Input: `[setup][our initial TSN when recorded: u32]`, then ops, each an op byte (low three
/// bits the kind, the rest its flags):
/// - 0, 6, 7: a packet from the peer, `[length: u16][packet]`; flags 0x08 tag as is, 0x10
///   checksum as is, 0x20 TSNs as is, 0x40 our cookie into its COOKIE-ECHO;
/// - 1: a train, `[count - 1: u8][length: u16][packet]`: the packet `count` times, a DATA chunk
///   first in it numbered on (TSN + i), the B bit on the first only and the E bit on the last
///   only: one message of `count` fragments (up to 256);
/// - 2: connect (when setup bit 2 held it back; packets before it wait in the association);
/// - 3: we send `[stream: u16][ppid: u32][size: u16]` bytes; flags 0x08 unordered,
///   0x10 given up after 0 retransmissions, 0x20 after 0 ms;
/// - 4: we reset `[count: u8 % 8]` outgoing streams `[stream: u16]...`;
/// - 5: we close (the association ends; later packets are ignored).
///
/// Setup: bits 0-1 the message size limit (256 KiB, 64 KiB, 4 KiB, 1000 bytes), bit 2 connect
/// only at op 2.
///
/// Checks: no message over the limit is delivered, nothing is delivered once `close()` has
/// returned, and every packet we send is a well-formed SCTP packet of at most the configured
/// size. usrsctp itself is not instrumented: the fuzzer sees only our side of it.
public func fuzzSCTP(_ bytes: UnsafeRawBufferPointer) {
    _ = playSctpInput(bytes)
}

/// What one input did to the association: the events it delivered and what it sent.
public struct SctpInputOutcome: Sendable {
    public var events: [SctpAssociation.Event]
    /// Packets the association sent, in order.
    public var sent: [[UInt8]]
    /// Whether the association's INIT was seen (it connected).
    public var connected: Bool { events.contains(.connected) }
    /// The messages delivered.
    public var messages: [(stream: UInt16, ppid: UInt32, data: [UInt8])] {
        events.compactMap { if case let .message(stream, ppid, data) = $0 { (stream, ppid, data) } else { nil } }
    }
}

/// Plays one input of ``fuzzSCTP(_:)`` and returns what the association did (the seed tests
/// check that the recorded seeds bring it up and deliver their messages).
public func playSctpInput(_ bytes: UnsafeRawBufferPointer) -> SctpInputOutcome {
    var input = FuzzInput(bytes)
    let setup = input.u8()
    let recordedTSN = input.u32()
    var configuration = SctpAssociation.Configuration()
    configuration.maxMessageSize = [256 * 1024, 64 * 1024, 4096, 1000][Int(setup & 3)]
    guard let target = try? SctpFuzzTarget(configuration: configuration) else {
        fatalError("no association could be made")
    }
    if setup & 4 == 0 { target.connect() }

    while !input.isAtEnd {
        let op = input.u8()
        switch op & 7 {
        case 1:
            let count = Int(input.u8()) + 1
            let template = Array(input.chunk())
            for index in 0..<count {
                var packet = template
                let chunks = SctpWire.chunks(packet)
                if let first = chunks.first, first.type == SctpWire.ChunkType.data, first.length >= 16 {
                    SctpWire.put32(&packet, first.offset + 4, SctpWire.u32(packet, first.offset + 4) &+ UInt32(index))
                    var flags = first.flags
                    if index > 0 { flags &= ~0x02 }
                    if index < count - 1 { flags &= ~0x01 }
                    packet[first.offset + 1] = flags
                }
                target.receive(packet, flags: op, recordedTSN: recordedTSN)
                if target.isClosed { break }
            }
        case 2:
            target.connect()
        case 3:
            let stream = input.u16(), ppid = input.u32(), size = Int(input.u16())
            target.send(size: size, stream: stream, ppid: ppid, flags: op)
        case 4:
            let streams = (0..<Int(input.u8() % 8)).map { _ in input.u16() }
            try? target.association.resetStreams(streams)
        case 5:
            target.close()
        default:
            target.receive(Array(input.chunk()), flags: op, recordedTSN: recordedTSN)
        }
        target.noteSent()
    }
    target.close()
    return target.outcome
}

/// The association under test, what it sent (our tags and cookie are read from it) and what
/// it told, with the checks on both.
final class SctpFuzzTarget: Sendable {
    let association: SctpAssociation
    let configuration: SctpAssociation.Configuration
    private struct State {
        var sent: [[UInt8]] = []
        var unread = 0
        var events: [SctpAssociation.Event] = []
        var closed = false
        /// Our INIT's initiate tag and initial TSN, the state cookie of our last INIT-ACK.
        var tag: UInt32?
        var initialTSN: UInt32?
        var cookie: [UInt8]?
        var connected = false
    }
    private let state = Locked(State())

    init(configuration: SctpAssociation.Configuration) throws(SctpError) {
        self.configuration = configuration
        let state = self.state
        let limit = configuration.maxMessageSize, largest = configuration.maxPacketSize
        association = try SctpAssociation(
            configuration: configuration,
            send: { packet in
                guard packet.count >= SctpWire.headerSize, packet.count <= largest + 12 else {
                    fatalError("the association sent a packet of \(packet.count) bytes (limit \(largest))")
                }
                let bytes = Array(packet)
                state.withLock { $0.sent.append(bytes) }
            },
            onEvent: { event in
                if case let .message(_, _, data) = event, data.count > limit {
                    fatalError("a message of \(data.count) bytes was delivered over the limit of \(limit)")
                }
                state.withLock { state in
                    if state.closed { fatalError("the association delivered \(event) after close() returned") }
                    state.events.append(event)
                }
            }
        )
    }

    var isClosed: Bool { state.withLock { $0.closed } }

    var outcome: SctpInputOutcome {
        state.withLock { SctpInputOutcome(events: $0.events, sent: $0.sent) }
    }

    func connect() {
        guard !state.withLock({ $0.connected || $0.closed }) else { return }
        state.withLock { $0.connected = true }
        try? association.connect()
        noteSent()
    }

    /// A packet from the peer, fixed up as the op's flags say (see ``fuzzSCTP(_:)``).
    func receive(_ original: [UInt8], flags: UInt8, recordedTSN: UInt32) {
        noteSent()
        var packet = original
        let (tag, initialTSN, cookie) = state.withLock { ($0.tag, $0.initialTSN, $0.cookie) }
        var chunks = SctpWire.chunks(packet)
        if flags & 0x40 != 0, let cookie, let echo = chunks.first(where: { $0.type == SctpWire.ChunkType.cookieEcho }) {
            let end = min(packet.count, echo.offset + ((echo.length + 3) & ~3))
            let length = UInt16(clamping: 4 + cookie.count)
            var replaced = [SctpWire.ChunkType.cookieEcho, echo.flags] + SctpWire.be16(length) + cookie
            replaced += [UInt8](repeating: 0, count: (4 - replaced.count % 4) % 4)
            packet.replaceSubrange(echo.offset..<end, with: replaced)
            chunks = SctpWire.chunks(packet)
        }
        if flags & 0x08 == 0, let tag, packet.count >= SctpWire.headerSize,
            chunks.first?.type != SctpWire.ChunkType.initiation
        {
            SctpWire.put32(&packet, 4, tag)
        }
        if flags & 0x20 == 0, let initialTSN {
            Self.translate(&packet, chunks: chunks, by: initialTSN &- recordedTSN)
        }
        if flags & 0x10 == 0 { SctpWire.setChecksum(&packet) }
        packet.withUnsafeBytes { association.receive($0) }
    }

    /// Moves the peer's references to our TSNs and stream reset sequence numbers (which
    /// start at our initial TSN, RFC 6525 §5.1) by `delta`.
    static func translate(_ packet: inout [UInt8], chunks: [SctpWire.Chunk], by delta: UInt32) {
        guard delta != 0 else { return }
        func move(_ at: Int) { SctpWire.put32(&packet, at, SctpWire.u32(packet, at) &+ delta) }
        for chunk in chunks {
            switch chunk.type {
            case SctpWire.ChunkType.sack, SctpWire.ChunkType.shutdown:
                if chunk.length >= 8 { move(chunk.offset + 4) }
            case SctpWire.ChunkType.reconfig:
                var offset = chunk.offset + 4
                let end = chunk.offset + chunk.length
                while offset + 4 <= end {
                    let type = SctpWire.u16(packet, offset), length = Int(SctpWire.u16(packet, offset + 2))
                    guard length >= 4, offset + length <= end else { break }
                    switch type {
                    case 13 where length >= 16: move(offset + 8)  // outgoing reset: the response sequence number
                    case 16 where length >= 12:  // a response to our request
                        move(offset + 4)
                        if length >= 20 { move(offset + 16) }  // the receiver's (our) next TSN
                    default: break
                    }
                    offset += (length + 3) & ~3
                }
            default:
                break
            }
        }
    }

    func send(size: Int, stream: UInt16, ppid: UInt32, flags: UInt8) {
        let message = SctpFuzzTarget.message(size: size, seed: UInt8(truncatingIfNeeded: stream))
        let reliability = SctpAssociation.Reliability(
            ordered: flags & 0x08 == 0,
            maxRetransmits: flags & 0x10 != 0 ? 0 : nil,
            maxPacketLifeTime: flags & 0x20 != 0 ? 0 : nil
        )
        _ = message.withUnsafeBytes { buffer -> Bool in
            do throws(SctpAssociation.SendError) {
                try association.send(buffer, stream: stream, ppid: ppid, reliability: reliability)
                return true
            } catch {
                return false
            }
        }
    }

    /// The bytes a send op sends (the recorder sends the same).
    static func message(size: Int, seed: UInt8) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ Int(seed)) }
    }

    /// Reads what we sent since the last look: our INIT's tag and TSN, our INIT-ACK's cookie;
    /// counts the chunk types; checks each packet's chunks lie within it.
    func noteSent() {
        let fresh = state.withLock { state -> ArraySlice<[UInt8]> in
            defer { state.unread = state.sent.count }
            return state.sent[state.unread...]
        }
        for packet in fresh {
            let chunks = SctpWire.chunks(packet)
            let used = chunks.last.map { $0.offset + $0.length } ?? SctpWire.headerSize
            if chunks.isEmpty || (packet.count - used) >= 4 {
                fatalError("the association sent a malformed packet: \(packet.prefix(64))")
            }
            for chunk in chunks {
                switch chunk.type {
                case SctpWire.ChunkType.initiation where chunk.length >= 20:
                    let tag = SctpWire.u32(packet, chunk.offset + 4), tsn = SctpWire.u32(packet, chunk.offset + 16)
                    state.withLock {
                        $0.tag = tag
                        $0.initialTSN = tsn
                    }
                case SctpWire.ChunkType.initiationAck where chunk.length >= 20:
                    let tag = SctpWire.u32(packet, chunk.offset + 4), tsn = SctpWire.u32(packet, chunk.offset + 16)
                    var offset = chunk.offset + 20
                    let end = chunk.offset + chunk.length
                    var cookie: [UInt8]?
                    while offset + 4 <= end {
                        let type = SctpWire.u16(packet, offset), length = Int(SctpWire.u16(packet, offset + 2))
                        guard length >= 4, offset + length <= end else { break }
                        if type == 7 { cookie = Array(packet[offset + 4..<offset + length]) }
                        offset += (length + 3) & ~3
                    }
                    state.withLock {
                        $0.tag = tag
                        $0.initialTSN = tsn
                        if let cookie { $0.cookie = cookie }
                    }
                default:
                    break
                }
            }
        }
    }

    func close() {
        association.close()
        noteSent()
        state.withLock { $0.closed = true }
    }
}
