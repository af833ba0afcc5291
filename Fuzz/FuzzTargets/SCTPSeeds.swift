import Foundation
import SwiftRTCSCTP

/// The seeds of `SctpFuzzer`, recorded from real exchanges between two associations in memory
/// (`swiftrtc-fuzz record-sctp-seeds <folder>`; Fuzz/README.md): A is the association the
/// fuzzer tests, B the peer; what B sent to A is written as the input's packets, what A did
/// (connect, send, reset) as its ops, so that the body plays B to a new association. A few
/// seeds add hand-made packets to a real handshake (HEARTBEAT, SHUTDOWN, ERROR, unknown and
/// unnegotiated chunk types, a DATA train, a restart INIT, a bad checksum and tag).
///
/// Tags and TSNs are random, so each recording gives other bytes (the body fixes them up).
public func recordSctpSeeds() throws -> [(name: String, bytes: [UInt8])] {
    var seeds: [(String, [UInt8])] = []
    func record(_ name: String, setup: UInt8 = 0, _ scenario: (SctpSeedRecorder) throws -> Void) throws {
        let recorder = try SctpSeedRecorder(setup: setup)
        defer { recorder.close() }
        try scenario(recorder)
        seeds.append((name, recorder.seed))
    }
    let text = Array("hello, data channel".utf8)

    try record("handshake-we-connect-first.bin") { pair in
        try pair.connectA()
        try pair.connectB()
    }
    try record("handshake-peer-init-waits-for-our-connect.bin", setup: 4) { pair in
        try pair.connectB()
        try pair.connectA()
    }
    try record("messages-both-ways.bin") { pair in
        try pair.handshake()
        try pair.sendB(text, stream: 0, ppid: 51)
        try pair.sendB([1, 2, 3], stream: 1, ppid: 53)
        try pair.sendB([0], stream: 2, ppid: 56)
        try pair.sendB([0], stream: 3, ppid: 57)
        try pair.sendB(SctpFuzzTarget.message(size: 4000, seed: 9), stream: 4, ppid: 53)
        try pair.sendB(text, stream: 65534, ppid: 51, reliability: .init(ordered: false))
        try pair.sendA(size: 100, stream: 1, ppid: 51)
        try pair.sendA(size: 3000, stream: 3, ppid: 53)
        try pair.sendA(size: 1, stream: 5, ppid: 57, flags: 0x08)
        try pair.settle()
    }
    try record("large-message-reassembled.bin") { pair in
        try pair.handshake()
        try pair.sendB(SctpFuzzTarget.message(size: 100_000, seed: 1), stream: 6, ppid: 53)
        try pair.settle()
    }
    try record("message-over-a-4k-limit.bin", setup: 2) { pair in
        try pair.handshake()
        try pair.sendB(SctpFuzzTarget.message(size: 6000, seed: 2), stream: 8, ppid: 53)
        try pair.sendB(text, stream: 8, ppid: 51)
        try pair.settle()
    }
    try record("partial-reliability-forward-tsn.bin") { pair in
        try pair.handshake()
        // The first message is lost and expires: when A's SACK tells of the gap, B gives it up
        // and moves A's cumulative TSN on (FORWARD-TSN).
        pair.dropNextData = 1
        try pair.sendB(text, stream: 10, ppid: 51, reliability: .init(ordered: false, maxPacketLifeTime: 1))
        Thread.sleep(forTimeInterval: 0.01)
        try pair.sendB(text, stream: 10, ppid: 51, reliability: .init(ordered: false, maxRetransmits: 0))
        try pair.sendB(text, stream: 12, ppid: 51, reliability: .init(maxPacketLifeTime: 1000))
        try pair.settle()
    }
    try record("stream-resets-both-ways.bin") { pair in
        try pair.handshake()
        try pair.sendB(text, stream: 1, ppid: 51)
        try pair.sendA(size: 10, stream: 2, ppid: 51)
        try pair.resetB([1, 3])
        try pair.resetA([2])
        try pair.settle()
    }
    try record("abort.bin") { pair in
        try pair.handshake()
        try pair.sendB(text, stream: 0, ppid: 51)
        pair.b.close()
        pair.pump()
    }
    try record("heartbeat-shutdown.bin") { pair in
        try pair.handshake()
        let info: [UInt8] = [0, 1, 0, 12, 1, 2, 3, 4, 5, 6, 7, 8]
        pair.inject([[SctpWire.ChunkType.heartbeat, 0] + info])
        pair.inject([[SctpWire.ChunkType.shutdown, 0] + SctpWire.be32(pair.aInitialTSN &- 1)])
        pair.inject([[SctpWire.ChunkType.shutdownComplete, 0]])
    }
    try record("error-unknown-and-unnegotiated-chunks.bin") { pair in
        try pair.handshake()
        pair.inject([
            [SctpWire.ChunkType.error, 0, 0, 1, 0, 8, 0, 5, 0, 0],  // invalid stream identifier
            [0xBF, 0, 1, 2, 3, 4],  // unknown, skip
            [0xFF, 0, 1, 2],  // unknown, skip and report
            [0x84, 0, 0, 0, 0, 0],  // PAD
            // I-DATA
            [64, 3] + SctpWire.be32(pair.bNextTSN) + [0, 1, 0, 0] + SctpWire.be32(0) + SctpWire.be32(51) + text,
            [15, 0, 0, 1, 0, 1] + [UInt8](repeating: 0xAA, count: 20),  // AUTH
            [0xC1, 0, 0, 0, 0, 1],  // ASCONF
            [0x7F, 0, 9, 9],  // unknown, stop and report
        ])
        pair.inject([[0x3F, 0]])  // unknown, stop and discard
        pair.inject([
            [SctpWire.ChunkType.data, 3] + SctpWire.be32(pair.bNextTSN) + [0, 1, 0, 0] + SctpWire.be32(51) + text
        ])
    }
    try record("data-train-one-message-of-200-fragments.bin") { pair in
        try pair.handshake()
        let fragment = SctpFuzzTarget.message(size: 1000, seed: 3)
        pair.injectTrain(
            [SctpWire.ChunkType.data, 3] + SctpWire.be32(pair.bNextTSN) + [0, 7, 0, 0] + SctpWire.be32(53) + fragment,
            count: 200
        )
    }
    try record("restart-init-and-bad-checksum-and-tag.bin") { pair in
        try pair.handshake()
        if let first = pair.bInit { pair.inject(raw: first, op: 0x08) }
        var bad = SctpWire.packet(tag: 0, chunks: [[SctpWire.ChunkType.heartbeat, 0, 0, 1, 0, 8, 1, 2, 3, 4]])
        bad[8] ^= 0xFF
        pair.inject(raw: bad, op: 0x18)
        pair.inject(raw: SctpWire.packet(tag: 0x1234_5678, chunks: [[SctpWire.ChunkType.cookieAck, 0]]), op: 0x08)
    }
    return seeds
}

/// Two associations wired back to back on one thread (each packet handed over as it is
/// made): the recording of B's packets to A and A's ops, as ``playSctpInput(_:)`` reads them.
final class SctpSeedRecorder: @unchecked Sendable {
    let a: SctpAssociation
    let b: SctpAssociation
    private let setup: UInt8
    private let queue = Locked<[(toA: Bool, packet: [UInt8])]>([])
    private var ops: [UInt8] = []
    private(set) var aInitialTSN: UInt32 = 0
    /// B's first INIT, and the TSN of B's next DATA chunk when B has sent no data itself.
    private(set) var bInit: [UInt8]?
    private(set) var bNextTSN: UInt32 = 0
    /// DATA packets of B to lose before they reach A.
    var dropNextData = 0
    let eventsAtA = Locked<[SctpAssociation.Event]>([])

    init(setup: UInt8) throws {
        self.setup = setup
        var configuration = SctpAssociation.Configuration()
        configuration.maxMessageSize = [256 * 1024, 64 * 1024, 4096, 1000][Int(setup & 3)]
        let (queue, events) = (queue, eventsAtA)
        a = try SctpAssociation(
            configuration: configuration,
            send: { packet in queue.withLock { $0.append((false, Array(packet))) } },
            onEvent: { event in events.withLock { $0.append(event) } }
        )
        b = try SctpAssociation(
            send: { packet in queue.withLock { $0.append((true, Array(packet))) } },
            onEvent: { _ in }
        )
    }

    var seed: [UInt8] { [setup] + SctpWire.be32(aInitialTSN) + ops }

    /// Hands over every packet made, until none is left.
    func pump() {
        while let (toA, packet) = queue.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
            let chunks = SctpWire.chunks(packet)
            if toA {
                if dropNextData > 0, chunks.contains(where: { $0.type == SctpWire.ChunkType.data }) {
                    dropNextData -= 1
                    continue
                }
                for chunk in chunks where chunk.type <= SctpWire.ChunkType.initiationAck && chunk.length >= 20 {
                    if chunk.type == SctpWire.ChunkType.initiation, bInit == nil { bInit = packet }
                    bNextTSN = SctpWire.u32(packet, chunk.offset + 16)
                }
                let echo = chunks.first?.type == SctpWire.ChunkType.cookieEcho
                record(packet, op: echo ? 0x40 : 0x00)
                packet.withUnsafeBytes { a.receive($0) }
            } else {
                for chunk in chunks where chunk.type == SctpWire.ChunkType.initiation && chunk.length >= 20 {
                    aInitialTSN = SctpWire.u32(packet, chunk.offset + 16)
                }
                packet.withUnsafeBytes { b.receive($0) }
            }
        }
    }

    private func record(_ packet: [UInt8], op: UInt8) {
        ops += [op] + SctpWire.be16(UInt16(packet.count)) + packet
    }

    func connectA() throws {
        if setup & 4 != 0 { ops.append(2) }
        try a.connect()
        pump()
    }

    func connectB() throws {
        try b.connect()
        pump()
    }

    /// Both connect, A first, and the association comes up.
    func handshake() throws {
        try connectA()
        try connectB()
        guard eventsAtA.withLock({ $0.contains(.connected) }) else { throw SctpError.call("handshake", 0) }
    }

    /// Waits past B's delayed SACK (200 ms) and hands over what the timers made.
    func settle() throws {
        Thread.sleep(forTimeInterval: 0.25)
        pump()
    }

    func sendA(size: Int, stream: UInt16, ppid: UInt32, flags: UInt8 = 0) throws {
        ops += [3 | flags] + SctpWire.be16(stream) + SctpWire.be32(ppid) + SctpWire.be16(UInt16(size))
        let message = SctpFuzzTarget.message(size: size, seed: UInt8(truncatingIfNeeded: stream))
        let reliability = SctpAssociation.Reliability(ordered: flags & 0x08 == 0)
        try message.withUnsafeBytes { try a.send($0, stream: stream, ppid: ppid, reliability: reliability) }
        pump()
    }

    func sendB(
        _ message: [UInt8],
        stream: UInt16,
        ppid: UInt32,
        reliability: SctpAssociation.Reliability = .init()
    ) throws {
        try message.withUnsafeBytes { try b.send($0, stream: stream, ppid: ppid, reliability: reliability) }
        pump()
    }

    func resetA(_ streams: [UInt16]) throws {
        ops += [4, UInt8(streams.count)] + streams.flatMap(SctpWire.be16)
        try a.resetStreams(streams)
        pump()
    }

    func resetB(_ streams: [UInt16]) throws {
        try b.resetStreams(streams)
        pump()
    }

    /// A hand-made packet of B's with these chunks, to A.
    func inject(_ chunks: [[UInt8]]) {
        inject(raw: SctpWire.packet(tag: 0, chunks: chunks), op: 0)
    }

    /// A packet to A as it is; `op`'s flags say what the body fixes up (the recorder leaves
    /// the tag 0: A's own is only the body's to set, when it plays the seed).
    func inject(raw packet: [UInt8], op: UInt8) {
        record(packet, op: op)
        pump()
    }

    /// A train op: `count` copies of the DATA packet (see ``fuzzSCTP(_:)``).
    func injectTrain(_ chunk: [UInt8], count: Int) {
        let packet = SctpWire.packet(tag: 0, chunks: [chunk])
        ops += [1, UInt8(count - 1)] + SctpWire.be16(UInt16(packet.count)) + packet
    }

    func close() {
        a.close()
        b.close()
    }
}
