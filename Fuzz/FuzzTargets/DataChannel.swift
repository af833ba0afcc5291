import Foundation
import SwiftRTCDataChannel
import SwiftRTCSCTP

/// Data channels as a peer drives them: a `DataChannelTransport` (the side under test) and a
/// bare `SctpAssociation` as the peer, back to back in memory (each packet handed over on the
/// fuzzer's thread, where usrsctp handles it at once), so that everything the peer sends goes
/// through the transport's real receive path: the peer sends DCEP and data messages on any
/// stream with any PPID and reliability, opens channels by the thousand, resets streams,
/// aborts; the side under test creates, sends on, reads and closes channels. A new pair per
/// input; every DCEP payload the peer sends also goes through
/// `DataChannelProtocolMessage(parsing:)`.
///
/// Input: `[setup]`, then ops, each an op byte (low four bits the kind):
/// - 0, 14, 15: the peer sends `[stream: u16][ppid: u8][length: u16][bytes]`, ppid byte's low
///   three bits one of 50, 51, 53, 56, 57, 52, 54 or (7) a `u32` that follows; 0x08
///   unordered, 0x10 given up after 0 retransmissions;
/// - 1: the peer opens a channel: `[stream: u16][channel type: u8][priority: u16]
///   [reliability parameter: u32][label: u16 length + bytes][protocol: the same]` as a
///   `DATA_CHANNEL_OPEN` on that stream (any channel type byte);
/// - 2: the peer sends `[count: u16 % 2048 + 1]` times `[stream: u16][ppid: u8][length: u8]
///   [bytes]` (the 1024-unread limit of a channel);
/// - 3: the peer opens `[count: u16 % 1100 + 1]` channels on streams `[first: u16]`, +2, ...
///   labelled `[length: u8][bytes]` (the limit of 1024 channels not yet read);
/// - 4: the peer resets `[count: u8 % 8]` streams `[stream: u16]...`;
/// - 5: we create a channel: `[flags: u8][id: u16][parameter: u16][label][protocol]` (flags:
///   0x01 negotiated with that id, 0x02 unordered, 0x04 max retransmits, 0x08 max lifetime);
/// - 6: we send on channel `[index: u8]` a `[kind: u8]` (0 text, 1 binary, 2 empty text,
///   3 empty binary) of `[length: u16][bytes]`;
/// - 7: we close channel `[index: u8]`;
/// - 8: we read `[count: u8]` (0: all) of the channels the peer opened;
/// - 9: we read `[count: u16]` messages of channel `[index: u8]`;
/// - 10: we start the transport (when setup bit 3 held it back: the peer's INIT waits in the
///   transport; op 5 makes no channel before, as such a channel has no id to follow yet);
/// - 11: the peer aborts the association;
/// - 12: we close the transport;
/// - 13: the peer sends a `DATA_CHANNEL_ACK` on `[stream: u16]`.
///
/// Setup: bit 0 we are the DTLS client (even stream ids), bits 1-2 the peer's message size
/// limit (64 KiB, none, 16 bytes, 1 KiB), bit 3 start only at op 10, bit 4 the peer resets
/// its own stream when we reset ours (as RFC 8831 peers do).
///
/// The transport opens channels and sends what waited for room on a queue of its own: after
/// each op the pair waits until every channel of an association that is up has opened (and
/// what waited for room has gone, for a moment) before the next.
///
/// Checks: what parses as DCEP writes back as itself; what we send is well-formed (opens on our
/// channels with their label, protocol and kind; acks only for the peer's opens; data on our
/// channels, as sent, empty ones as one zero byte); channel ids have our parity; the peer's
/// channels come with its label, protocol and kind, on the stream it opened; a channel made before the
/// start has no id until then; each message read is one
/// the peer sent on that stream; the unread limits hold (no channel is lost: every open
/// acknowledged is read, and one over the limit is refused unacknowledged); sending on a channel
/// that is not open or over the peer's limit throws; once the transport is closed every
/// channel is closed.
public func fuzzDataChannel(_ bytes: UnsafeRawBufferPointer) {
    // The transport lets go of its channels on a queue of its own once they close: the input
    // ends when the transport and every channel are gone (none is kept by a cycle), so that
    // LeakSanitizer's per-input check never sees one alive (it takes the side table of a weak
    // reference to a live object for a leak; Fuzz/README.md).
    let lifetimes = playDataChannelInput(bytes)
    let deadline = ContinuousClock.now + .seconds(5)
    while lifetimes.contains(where: { $0.object != nil }) {
        guard ContinuousClock.now < deadline else {
            fatalError("\(lifetimes.filter { $0.object != nil }.count) transport or channel objects outlive the input")
        }
        Thread.sleep(forTimeInterval: 0.0002)
    }
}

/// A weak reference (to see an object go).
final class WeakReference {
    weak var object: AnyObject?
    init(_ object: AnyObject) { self.object = object }
}

/// Plays one input of ``fuzzDataChannel(_:)``; returns weak references to the transport and
/// every channel it made.
func playDataChannelInput(_ bytes: UnsafeRawBufferPointer) -> [WeakReference] {
    var input = FuzzInput(bytes)
    let setup = input.u8()
    guard let pair = try? DataChannelFuzzPair(setup: setup) else { fatalError("no transport could be made") }
    if setup & 0x08 == 0 { pair.start() }
    var budget = 6000  // messages the peer may send in one input
    while !input.isAtEnd {
        let op = input.u8()
        switch op & 0x0F {
        case 1:
            let stream = input.u16(), type = input.u8(), priority = input.u16(), parameter = input.u32()
            let label = Array(input.chunk()), name = Array(input.chunk())
            let open: [UInt8] =
                [0x03, type] + SctpWire.be16(priority) + SctpWire.be32(parameter)
                + SctpWire.be16(UInt16(label.count)) + SctpWire.be16(UInt16(name.count)) + label + name
            pair.peerSend(open, stream: stream, ppid: 50)
        case 2:
            let count = Int(input.u16() % 2048) + 1
            let stream = input.u16(), selector = input.u8()
            let ppid = selector & 7 == 7 ? input.u32() : DataChannelFuzzPair.ppid(selector)
            let data = Array(input.bytes(Int(input.u8())))
            for _ in 0..<min(count, budget) {
                pair.peerSend(data, stream: stream, ppid: ppid, selector: selector, pump: false)
            }
            budget -= min(count, budget)
            pair.pump()
        case 3:
            let count = Int(input.u16() % 1100) + 1
            let first = Int(input.u16())
            let label = Array(input.bytes(Int(input.u8())))
            let open = DataChannelProtocolMessage.open(DataChannelOpen(label: String(decoding: label, as: UTF8.self)))
            for index in 0..<min(count, budget) where first + 2 * index < 65535 {
                pair.peerSend(open.bytes, stream: UInt16(first + 2 * index), ppid: 50, pump: false)
            }
            budget -= min(count, budget)
            pair.pump()
        case 4:
            pair.peerReset((0..<Int(input.u8() % 8)).map { _ in input.u16() })
        case 5:
            let flags = input.u8(), id = input.u16(), parameter = UInt32(input.u16())
            let label = String(decoding: input.chunk(), as: UTF8.self)
            let name = String(decoding: input.chunk(), as: UTF8.self)
            let options = DataChannel.Options(
                ordered: flags & 0x02 == 0,
                maxRetransmits: flags & 0x04 != 0 ? parameter : nil,
                maxPacketLifeTime: flags & 0x08 != 0 ? parameter : nil,
                protocol: name,
                negotiatedID: flags & 0x01 != 0 ? id : nil
            )
            pair.create(label: label, options: options)
        case 6:
            let index = Int(input.u8()), kind = input.u8() % 4
            let data = Array(input.chunk())
            pair.send(on: index, kind: kind, data)
        case 7:
            pair.closeChannel(Int(input.u8()))
        case 8:
            let count = Int(input.u8())
            pair.readRemoteChannels(count == 0 ? Int.max : count)
        case 9:
            let index = Int(input.u8()), count = Int(input.u16())
            pair.readMessages(of: index, count)
        case 10:
            pair.start()
        case 11:
            pair.interrupted = true
            // The transport hears of it if its association was up.
            let connected = pair.transport.isConnected
            pair.peer.close()
            pair.pump()
            if connected {
                pair.transportClosed = true
                pair.checkAllClosed()
            }
        case 12:
            pair.interrupted = true
            pair.transport.close()
            pair.pump()
            pair.transportClosed = true
            pair.checkAllClosed()
        case 13:
            pair.peerSend([0x02], stream: input.u16(), ppid: 50)
        default:
            let stream = input.u16(), selector = input.u8()
            let ppid = selector & 7 == 7 ? input.u32() : DataChannelFuzzPair.ppid(selector)
            let data = Array(input.chunk())
            if budget > 0 {
                budget -= 1
                pair.peerSend(data, stream: stream, ppid: ppid, selector: selector)
            }
        }
    }
    pair.finish()
    return pair.lifetimes
}

/// The transport under test, the peer's association, the packets between them, and what the
/// checks need to know of what each side sent.
final class DataChannelFuzzPair: @unchecked Sendable {
    let transport = DataChannelTransport()
    let peer: SctpAssociation
    let isClient: Bool
    let peerLimit: Int
    let peerAnswersResets: Bool
    /// Packets on their way: to the peer (from the transport) or to the transport.
    private let wire = Locked<[(toPeer: Bool, packet: [UInt8])]>([])
    /// What the peer received and has not been checked yet.
    private let atPeer = Locked<[SctpAssociation.Event]>([])
    /// Channels we made, and those the peer opened that we read; what was read of each.
    private var created: [DataChannel] = []
    private var channels: [DataChannel] = []
    private var read: [ObjectIdentifier: Int] = [:]
    /// Our channels whose open the peer has received.
    private var opensSeen: Set<ObjectIdentifier> = []
    /// The peer's parseable opens per stream, and the messages it sent per stream.
    private var peerOpens: [UInt16: [DataChannelOpen]] = [:]
    private var peerSent: [UInt16: [DataChannel.Message: Int]] = [:]
    /// What we sent per stream (ppid byte + bytes).
    private var weSent: [UInt16: [[UInt8]: Int]] = [:]
    /// Channels the transport announced and we have not read (by the acks the peer got: it
    /// acknowledges only the channels it announced, never one refused over the limit of unread
    /// ones), all it acknowledged, and those we read.
    private var unread = 0
    private var acknowledged = 0
    private var channelsRead = 0
    /// Whether the association ended before the input did (acks may then be lost on the way).
    var interrupted = false
    /// Whether the transport is closed (we closed it, or the peer aborted and it has seen that).
    var transportClosed = false

    static let ppids: [UInt32] = [50, 51, 53, 56, 57, 52, 54]

    static func ppid(_ selector: UInt8) -> UInt32 { ppids[Int(selector & 7) % ppids.count] }

    init(setup: UInt8) throws {
        isClient = setup & 0x01 != 0
        peerLimit = [65536, 0, 16, 1024][Int(setup >> 1 & 3)]
        peerAnswersResets = setup & 0x10 != 0
        let (wire, atPeer) = (wire, atPeer)
        peer = try SctpAssociation(
            send: { packet in wire.withLock { $0.append((false, Array(packet))) } },
            onEvent: { event in atPeer.withLock { $0.append(event) } }
        )
        try peer.connect()
    }

    /// Starts the transport's association (once); its channels get their ids.
    func start() {
        guard !transport.isStarted else { return }
        var parameters = DataChannelTransport.Parameters(isDTLSClient: isClient)
        parameters.remoteMaxMessageSize = peerLimit
        let wire = wire
        try? transport.start(parameters) { packet in wire.withLock { $0.append((true, Array(packet))) } }
        if transport.isStarted {
            for channel in created where channel.options.negotiatedID == nil && channel.state != .closed {
                guard let id = channel.id, id % 2 == (isClient ? 0 : 1) else {
                    fatalError(
                        "channel \(channel.label) got id \(channel.id as Any) at the start (client: \(isClient))"
                    )
                }
            }
        }
        pump()
    }

    /// Hands over packets until none is left, checking what the peer receives as it comes
    /// (and answering resets when the peer does); then waits for the transport's own queue:
    /// every channel of an association that is up opens, and what waited for room goes.
    func pump() {
        let started = ContinuousClock.now
        while true {
            drain()
            let connected = transport.isConnected && !transportClosed
            let opening = connected && created.contains { $0.id != nil && $0.state == .connecting }
            // Ours, or an ack of the peer's open, waiting for room in the association.
            let buffered = connected && transport.isWaitingForRoom
            let waited = ContinuousClock.now - started
            guard opening || (buffered && waited < .milliseconds(200)) else { return }
            if opening, waited > .seconds(8) {
                fatalError("channels still connecting 8 s after the association came up")
            }
            Thread.sleep(forTimeInterval: 0.0005)
        }
    }

    private func drain() {
        while true {
            guard let (toPeer, packet) = wire.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else {
                guard checkPeerEvents() else { return }
                continue
            }
            packet.withUnsafeBytes { toPeer ? peer.receive($0) : transport.receive($0) }
            _ = checkPeerEvents()
        }
    }

    /// Checks the peer's new events; returns whether any made the peer send something.
    private func checkPeerEvents() -> Bool {
        let events = atPeer.withLock { events in
            defer { events = [] }
            return events
        }
        var sent = false
        for event in events {
            switch event {
            case let .message(stream, ppid, data):
                received(data, stream: stream, ppid: ppid)
            case let .streamsReset(streams):
                if peerAnswersResets {
                    try? peer.resetStreams(streams)
                    sent = true
                }
            case .closed:
                interrupted = true
            case .connected, .sendBufferHasRoom:
                break
            }
        }
        return sent
    }

    /// A message from the transport, at the peer.
    private func received(_ data: [UInt8], stream: UInt16, ppid: UInt32) {
        if ppid == PayloadProtocol.dcep.rawValue {
            guard let message = try? DataChannelProtocolMessage(parsing: data) else {
                fatalError("the transport sent DCEP that does not parse: \(data.prefix(32)) on \(stream)")
            }
            switch message {
            case .ack:
                guard peerOpens[stream] != nil else { fatalError("the transport acked stream \(stream), never opened") }
                acknowledged += 1
                unread += 1
                guard unread <= DataChannelTransport.maxUnreadRemoteChannels else {
                    fatalError("\(unread) channels acknowledged and unread, over the limit")
                }
            case .open(let open):
                guard
                    let channel = created.first(where: {
                        $0.id == stream && $0.options.negotiatedID == nil
                            && !opensSeen.contains(ObjectIdentifier($0))
                    })
                else { fatalError("the transport opened stream \(stream), not one of its channels waiting to open") }
                opensSeen.insert(ObjectIdentifier(channel))
                let expected = DataChannelOpen(
                    ordered: channel.options.ordered,
                    delivery: Self.delivery(channel.options),
                    label: channel.label,
                    protocol: channel.options.protocol
                )
                guard open == expected else {
                    fatalError("the transport's open \(open) is not its channel's \(expected)")
                }
            }
            return
        }
        guard [51, 53, 56, 57].contains(ppid) else { fatalError("the transport sent PPID \(ppid) on \(stream)") }
        let key = [UInt8(ppid)] + data
        guard let count = weSent[stream]?[key], count > 0 else {
            fatalError("the transport sent \(data.prefix(32)) (PPID \(ppid)) on \(stream), which we never sent")
        }
        weSent[stream]?[key] = count - 1
    }

    static func delivery(_ options: DataChannel.Options) -> DataChannelOpen.Delivery {
        if let count = options.maxRetransmits { return .maxRetransmits(count) }
        if let lifetime = options.maxPacketLifeTime { return .maxPacketLifeTime(milliseconds: lifetime) }
        return .reliable
    }

    /// The peer sends `data` (as DCEP when `ppid` is 50, which is parsed and written back too).
    func peerSend(_ data: [UInt8], stream: UInt16, ppid: UInt32, selector: UInt8 = 0, pump now: Bool = true) {
        if ppid == PayloadProtocol.dcep.rawValue { checkCodec(data, stream: stream) }
        let reliability = SctpAssociation.Reliability(
            ordered: selector & 0x08 == 0,
            maxRetransmits: selector & 0x10 != 0 ? 0 : nil
        )
        let message: DataChannel.Message? =
            switch ppid {
            case 51: .text(String(decoding: data, as: UTF8.self))
            case 53: .binary(data)
            case 56: .text("")
            case 57: .binary([])
            default: nil
            }
        let taken = data.withUnsafeBytes { buffer -> Bool in
            do throws(SctpAssociation.SendError) {
                try peer.send(buffer, stream: stream, ppid: ppid, reliability: reliability)
                return true
            } catch {
                return false
            }
        }
        if taken, let message { peerSent[stream, default: [:]][message, default: 0] += 1 }
        if now { pump() }
    }

    /// DCEP from the peer: what parses writes back as itself; what does not says why.
    private func checkCodec(_ data: [UInt8], stream: UInt16) {
        do throws(DataChannelProtocolError) {
            let message = try DataChannelProtocolMessage(parsing: data)
            guard let again = try? DataChannelProtocolMessage(parsing: message.bytes), again == message else {
                fatalError("DCEP \(message) does not write back as itself")
            }
            if case .open(let open) = message {
                guard message.bytes.count == 12 + open.label.utf8.count + open.protocol.utf8.count else {
                    fatalError("DCEP open \(open) writes \(message.bytes.count) bytes")
                }
                peerOpens[stream, default: []].append(open)
            }
        } catch {
            if case let .truncated(needed, got) = error, needed <= got {
                fatalError("DCEP refused as truncated, needing \(needed) of \(got) bytes")
            }
        }
    }

    func peerReset(_ streams: [UInt16]) {
        try? peer.resetStreams(streams)
        pump()
    }

    func create(label: String, options: DataChannel.Options) {
        guard let channel = try? transport.createDataChannel(label: label, options: options) else { return }
        if transportClosed, channel.state != .closed {
            fatalError("a channel created on a closed transport is \(channel.state)")
        }
        if let id = options.negotiatedID {
            guard channel.id == id else { fatalError("negotiated channel \(id) got id \(channel.id as Any)") }
        } else if transport.isStarted {
            guard let id = channel.id, id % 2 == (isClient ? 0 : 1) else {
                fatalError("channel \(channel.id as Any) has the wrong parity (DTLS client: \(isClient))")
            }
        } else if channel.id != nil {
            fatalError("channel \(channel.id as Any) has an id before the DTLS role is known")
        }
        created.append(channel)
        channels.append(channel)
        pump()
    }

    private func channel(_ index: Int) -> DataChannel? {
        channels.isEmpty ? nil : channels[index % channels.count]
    }

    func send(on index: Int, kind: UInt8, _ data: [UInt8]) {
        guard let channel = channel(index) else { return }
        let state = channel.state
        let (ppid, bytes): (UInt32, [UInt8])
        do throws(DataChannelError) {
            switch kind {
            case 0:
                let text = String(decoding: data, as: UTF8.self)
                (ppid, bytes) = text.isEmpty ? (56, []) : (51, Array(text.utf8))
                try channel.send(text)
            case 1:
                (ppid, bytes) = data.isEmpty ? (57, []) : (53, data)
                try channel.send(data)
            case 2:
                (ppid, bytes) = (56, [])
                try channel.send("")
            default:
                (ppid, bytes) = (57, [])
                try channel.send([UInt8]())
            }
        } catch {
            switch error {
            case .notOpen, .bufferFull, .refused: break
            case let .tooLarge(size, limit):
                guard limit == peerLimit, limit != 0, size > limit else {
                    fatalError("\(size) bytes refused as over the limit \(limit) (the peer's: \(peerLimit))")
                }
            case .noStreamLeft, .labelTooLong: fatalError("a send failed with \(error)")
            }
            return
        }
        guard state != .closed, peerLimit == 0 || bytes.count <= peerLimit, let id = channel.id else {
            fatalError("a send of \(bytes.count) bytes was taken by a \(state) channel (limit \(peerLimit))")
        }
        // An empty message goes as one zero byte (RFC 8831 §6.6).
        weSent[id, default: [:]][[UInt8(ppid)] + (bytes.isEmpty ? [0] : bytes), default: 0] += 1
        pump()
    }

    func closeChannel(_ index: Int) {
        channel(index)?.close()
        pump()
    }

    func readRemoteChannels(_ count: Int) {
        let wanted = min(count, unread)
        guard wanted > 0 else { return }
        let transport = transport
        let got = runBlocking {
            var iterator = transport.remoteChannels.makeAsyncIterator()
            var got: [DataChannel] = []
            while got.count < wanted, let channel = await iterator.next() { got.append(channel) }
            return got
        }
        unread -= got.count
        for channel in got { checkRemote(channel) }
    }

    private func checkRemote(_ channel: DataChannel) {
        channelsRead += 1
        // Of either parity: one of ours that was free is taken too (Janus opens on any).
        guard let id = channel.id else { fatalError("the peer's channel has no id") }
        let options = channel.options
        let opens = peerOpens[id] ?? []
        guard
            opens.contains(where: {
                channel.label == $0.label && options.protocol == $0.protocol && options.ordered == $0.ordered
                    && Self.delivery(options) == $0.delivery
            }), options.negotiatedID == nil
        else { fatalError("the peer's channel \(id) \(channel.label) \(options) is none of its opens \(opens)") }
        channels.append(channel)
    }

    func readMessages(of index: Int, _ count: Int) {
        guard let channel = channel(index) else { return }
        let statistics = channel.statistics
        // Nothing is dropped: the unread messages' limit holds the association's reading instead.
        let waiting = statistics.messagesReceived - read[ObjectIdentifier(channel), default: 0]
        guard waiting >= 0 else {
            fatalError(
                "channel \(channel.label): \(read[ObjectIdentifier(channel), default: 0]) read of \(statistics.messagesReceived)"
            )
        }
        readMessages(of: channel, min(count, waiting))
        // Reading may have lifted that hold: the transport read on here, and what it answered
        // (acks of the peer's opens) reaches the peer before anything else happens.
        pump()
    }

    private func readMessages(of channel: DataChannel, _ count: Int) {
        guard count > 0 else { return }
        let messages = runBlocking {
            var iterator = channel.messages.makeAsyncIterator()
            var got: [DataChannel.Message] = []
            while got.count < count, let message = await iterator.next() { got.append(message) }
            return got
        }
        read[ObjectIdentifier(channel), default: 0] += messages.count
        for message in messages {
            guard let id = channel.id, let sent = peerSent[id]?[message], sent > 0 else {
                fatalError("channel \(channel.id as Any) gave \(message), which the peer never sent on it")
            }
            peerSent[id]?[message] = sent - 1
        }
    }

    /// The transport, its core (internal: found by reflection) and every channel seen, weakly.
    var lifetimes: [WeakReference] {
        let core = Mirror(reflecting: transport).descendant("core").map { $0 as AnyObject }
        return ([transport] + channels).map(WeakReference.init) + (core.map { [WeakReference($0)] } ?? [])
    }

    /// Once the transport is closed, every channel is.
    func checkAllClosed() {
        for channel in channels where channel.state != .closed {
            fatalError("channel \(channel.label) (\(channel.id as Any)) is \(channel.state) after the transport closed")
        }
    }

    /// Closes both sides and reads what is left: every channel the transport announced, every
    /// message of every channel (all finished by now).
    func finish() {
        transport.close()
        transportClosed = true
        peer.close()
        pump()
        checkAllClosed()
        let transport = transport
        let left = runBlocking {
            var channels: [DataChannel] = []
            for await channel in transport.remoteChannels { channels.append(channel) }
            return channels
        }
        for channel in left { checkRemote(channel) }
        // Every channel acknowledged is read (one refused over the limit is never acknowledged).
        // A channel can be read with its ack not sent: acks wait in the channel's queue when
        // the association has no room, and the transport may close before they go.
        guard interrupted || channelsRead >= acknowledged else {
            fatalError("\(channelsRead) channels read of \(acknowledged) acknowledged")
        }
        for channel in channels { readMessages(of: channel, Int.max) }
    }
}
