import Foundation
import SwiftRTCSCTP
import Synchronization
import Testing

/// Two associations of usrsctp, back to back in memory (each packet one makes is handed to the
/// other on a queue of its own, as DTLS would carry it): they come up, carry messages of every
/// size up to the limit in order and out of order, reassemble large ones, drop one over the
/// limit (counted), and tell of a stream reset.
@Suite struct SctpAssociationTests {
    /// What an association delivered.
    final class Received: Sendable {
        let events = Mutex<[SctpAssociation.Event]>([])
        func append(_ event: SctpAssociation.Event) { events.withLock { $0.append(event) } }
        func wait(timeout: Duration = .seconds(10), _ done: @escaping ([SctpAssociation.Event]) -> Bool) async -> Bool {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if done(events.withLock { $0 }) { return true }
                try? await Task.sleep(for: .milliseconds(10))
            }
            return done(events.withLock { $0 })
        }
        var messages: [(stream: UInt16, ppid: UInt32, data: [UInt8])] {
            events.withLock {
                $0.compactMap {
                    if case let .message(stream, ppid, data) = $0 { (stream, ppid, data) } else { nil }
                }
            }
        }
    }

    /// The largest of the sizes noted.
    final class Largest: Sendable {
        private let largest = Atomic<Int>(0)
        func note(_ size: Int) { _ = largest.max(size, ordering: .relaxed) }
        var value: Int { largest.load(ordering: .relaxed) }
    }

    /// A and B, wired to each other, both connecting (B a moment after A's INIT has reached
    /// it: the INIT waits for B's connect).
    final class Pair: Sendable {
        let a: SctpAssociation
        let b: SctpAssociation
        let atA = Received()
        let atB = Received()
        /// The largest packet either made.
        let largestPacket = Largest()

        init(maxMessageSize: Int = 256 * 1024) throws {
            let toA = DispatchQueue(label: "to-a"), toB = DispatchQueue(label: "to-b")
            let peerOfA = Mutex<SctpAssociation?>(nil), peerOfB = Mutex<SctpAssociation?>(nil)
            var configuration = SctpAssociation.Configuration()
            configuration.maxMessageSize = maxMessageSize
            let (atA, atB, largest) = (atA, atB, largestPacket)
            a = try SctpAssociation(
                configuration: configuration,
                send: { packet in
                    largest.note(packet.count)
                    let bytes = Array(packet)
                    toB.async { bytes.withUnsafeBytes { peerOfA.withLock { $0 }?.receive($0) } }
                },
                onEvent: { atA.append($0) }
            )
            b = try SctpAssociation(
                configuration: configuration,
                send: { packet in
                    largest.note(packet.count)
                    let bytes = Array(packet)
                    toA.async { bytes.withUnsafeBytes { peerOfB.withLock { $0 }?.receive($0) } }
                },
                onEvent: { atB.append($0) }
            )
            peerOfA.withLock { $0 = b }
            peerOfB.withLock { $0 = a }
            try a.connect()
            try b.connect()
        }

        func close() {
            a.close()
            b.close()
        }
    }

    static func bytes(_ count: Int, seed: UInt8) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
    }

    @Test func bothEndsComeUpAndCarryMessagesOfEverySize() async throws {
        let pair = try Pair()
        defer { pair.close() }
        #expect(await pair.atA.wait { $0.contains(.connected) })
        #expect(await pair.atB.wait { $0.contains(.connected) })
        let sizes = [1, 100, 1200, 16 * 1024, 64 * 1024, 256 * 1024]
        for (index, size) in sizes.enumerated() {
            let message = Self.bytes(size, seed: UInt8(index))
            try message.withUnsafeBytes { try pair.a.send($0, stream: 1, ppid: 53) }
        }
        #expect(
            await pair.atB.wait { events in
                events.count { if case .message = $0 { true } else { false } } == sizes.count
            }
        )
        let received = pair.atB.messages
        #expect(received.map(\.data.count) == sizes)
        #expect(received.enumerated().allSatisfy { $1.data == Self.bytes(sizes[$0], seed: UInt8($0)) && $1.ppid == 53 })
        // Cut into packets that fit the path (RFC 8261 §5), 1200 bytes at most.
        #expect(pair.largestPacket.value <= SctpAssociation.Configuration().maxPacketSize)
        // The other way, text on another stream.
        try Array("hello".utf8).withUnsafeBytes { try pair.b.send($0, stream: 3, ppid: 51) }
        #expect(await pair.atA.wait { _ in pair.atA.messages.first?.data == Array("hello".utf8) })
        #expect(pair.atA.messages.first?.stream == 3)
    }

    @Test func unorderedAndPartiallyReliableMessagesArrive() async throws {
        let pair = try Pair()
        defer { pair.close() }
        #expect(await pair.atA.wait { $0.contains(.connected) })
        for index in 0..<100 {
            let reliability = SctpAssociation.Reliability(ordered: false, maxRetransmits: 0)
            try [UInt8(index)].withUnsafeBytes { try pair.a.send($0, stream: 2, ppid: 53, reliability: reliability) }
        }
        // No loss in memory: every one arrives, in whatever order.
        #expect(await pair.atB.wait { _ in pair.atB.messages.count == 100 })
        #expect(Set(pair.atB.messages.map { $0.data[0] }) == Set(0..<100))
    }

    @Test func aMessageOverTheLimitIsDroppedAndCounted() async throws {
        let pair = try Pair(maxMessageSize: 64 * 1024)
        defer { pair.close() }
        #expect(await pair.atA.wait { $0.contains(.connected) })
        try Self.bytes(200 * 1024, seed: 1).withUnsafeBytes { try pair.a.send($0, stream: 1, ppid: 53) }
        try Array("after".utf8).withUnsafeBytes { try pair.a.send($0, stream: 1, ppid: 51) }
        #expect(await pair.atB.wait { _ in pair.atB.messages.count == 1 })
        #expect(pair.atB.messages.first?.data == Array("after".utf8))
        #expect(pair.b.droppedOversizedMessages == 1)
    }

    @Test func aStreamResetIsTold() async throws {
        let pair = try Pair()
        defer { pair.close() }
        #expect(await pair.atA.wait { $0.contains(.connected) })
        try [1].withUnsafeBytes { try pair.a.send($0, stream: 7, ppid: 53) }
        #expect(await pair.atB.wait { _ in pair.atB.messages.count == 1 })
        try pair.a.resetStreams([7])
        #expect(await pair.atB.wait { $0.contains(.streamsReset([7])) })
    }

    /// While B holds reading, A's messages wait in B's receive buffer until its window closes
    /// and A's sends are refused for room; lifted, everything arrives in order and A is told
    /// of room again.
    @Test func aHoldOnReadingStopsTheSenderAndItsLiftDeliversEverything() async throws {
        let pair = try Pair()
        defer { pair.close() }
        #expect(await pair.atA.wait { $0.contains(.connected) })
        #expect(await pair.atB.wait { $0.contains(.connected) })
        pair.b.holdReading()
        var sent = 0
        var refused = false
        let deadline = ContinuousClock.now + .seconds(10)
        // B's 1 MiB receive buffer and A's 1 MiB send buffer fill: A is refused.
        while !refused, ContinuousClock.now < deadline {
            do {
                try Self.bytes(16 * 1024, seed: UInt8(truncatingIfNeeded: sent)).withUnsafeBytes {
                    try pair.a.send($0, stream: 1, ppid: 53)
                }
                sent += 1
            } catch SctpAssociation.SendError.bufferFull {
                // Room may come back once what was in flight is acknowledged: try a while.
                try await Task.sleep(for: .milliseconds(50))
                refused =
                    (try? Self.bytes(16 * 1024, seed: 0).withUnsafeBytes {
                        try pair.a.send($0, stream: 2, ppid: 53)
                    }) == nil
            }
        }
        #expect(refused)
        #expect(sent * 16 * 1024 > 1 << 20, "more than B's receive buffer was taken: \(sent) messages")
        try await Task.sleep(for: .milliseconds(200))
        #expect(pair.atB.messages.isEmpty)
        pair.b.liftReadingHold()
        #expect(await pair.atB.wait { _ in pair.atB.messages.count >= sent })
        let received = pair.atB.messages.filter { $0.stream == 1 }
        #expect(received.count == sent)
        #expect(
            received.enumerated().allSatisfy { $1.data == Self.bytes(16 * 1024, seed: UInt8(truncatingIfNeeded: $0)) }
        )
        #expect(await pair.atA.wait { $0.contains(.sendBufferHasRoom) })
    }
    /// A lost INIT, COOKIE or first message is sent again after a second, not RFC 4960's
    /// three, and backing off stops at ten seconds: the bounds WebRTC stacks give usrsctp.
    @Test func retransmissionStartsAtOneSecondAndBacksOffToTen() async throws {
        let pair = try Pair()
        defer { pair.close() }
        #expect(await pair.atA.wait { $0.contains(.connected) })
        for association in [pair.a, pair.b] {
            let bounds = try #require(association.retransmissionTimeoutBounds)
            #expect(bounds.initial == 1000 && bounds.min == 1000 && bounds.max == 10_000, "\(bounds)")
        }
        pair.close()
        #expect(pair.a.retransmissionTimeoutBounds == nil)
    }

    /// Streams are served round robin, so a short message on one stream goes right after the
    /// long one being sent on another, not after every long one queued before it: B holds
    /// reading while A queues long messages on stream 1 (more than B's window and A's buffer
    /// take at once) and then a short one on stream 2. Once B reads again, the short one
    /// arrives after the long one that was being sent when it was queued. (I-DATA, which would
    /// put it between that one's pieces, is off: usrsctp's stalled under load.)
    @Test func aShortMessageGoesRightAfterTheLongOneBeingSent() async throws {
        let pair = try Pair()
        defer { pair.close() }
        #expect(await pair.atA.wait { $0.contains(.connected) })
        #expect(await pair.atB.wait { $0.contains(.connected) })
        pair.b.holdReading()
        var long = 0
        while long < 12 {
            let sent =
                (try? Self.bytes(256 * 1024, seed: UInt8(long)).withUnsafeBytes {
                    try pair.a.send($0, stream: 1, ppid: 53)
                }) != nil
            guard sent else { break }
            long += 1
            try await Task.sleep(for: .milliseconds(20))
        }
        try await Task.sleep(for: .milliseconds(200))
        try [7].withUnsafeBytes { try pair.a.send($0, stream: 2, ppid: 53) }
        try await Task.sleep(for: .milliseconds(100))
        pair.b.liftReadingHold()
        #expect(await pair.atB.wait { _ in pair.atB.messages.count == long + 1 })
        let order = pair.atB.messages.map(\.stream)
        let short = try #require(order.firstIndex(of: 2))
        // B's 1 MiB window (less usrsctp's own overhead) held three long messages and part of
        // the fourth, which was being sent when the short one was queued: it goes right after
        // that one (measured: after 4), ahead of the long ones queued before it.
        #expect(long > 5, "\(long) long messages taken")
        #expect(short <= 4, "the short message came after \(short) long ones of \(long): \(order)")
    }

    /// Sends and stream resets racing the association's close (an ABORT closes it on whatever
    /// thread hears it) never touch the freed socket: each call works or is refused (EBADF),
    /// and every call after the close is refused.
    @Test func callsRacingTheCloseAreRefused() async throws {
        for _ in 0..<20 {
            let pair = try Pair()
            defer { pair.close() }
            #expect(await pair.atA.wait { $0.contains(.connected) })
            let refused = Largest()
            let counts = Mutex<[Int: Int]>([:])
            DispatchQueue.concurrentPerform(iterations: 3) { index in
                guard index > 0 else {
                    usleep(2000)
                    return pair.a.close()
                }
                for count in 0..<5_000_000 {
                    do {
                        try [UInt8(truncatingIfNeeded: count)].withUnsafeBytes {
                            try pair.a.send($0, stream: UInt16(index), ppid: 53)
                        }
                        if index == 2, count % 64 == 0 { try pair.a.resetStreams([2]) }
                    } catch let error as SctpAssociation.SendError where error == .refused(errno: EBADF) {
                        counts.withLock { $0[index] = count }
                        return
                    } catch let error as SctpError where error == .call("SCTP_RESET_STREAMS", EBADF) {
                        counts.withLock { $0[index] = count }
                        return
                    } catch {}
                }
            }
            refused.note(counts.withLock { $0.count })
            #expect(refused.value == 2, "both senders were refused once the association closed")
            #expect(throws: SctpError.call("SCTP_RESET_STREAMS", EBADF)) { try pair.a.resetStreams([1]) }
            #expect(throws: SctpAssociation.SendError.refused(errno: EBADF)) {
                try [1].withUnsafeBytes { try pair.a.send($0, stream: 1, ppid: 53) }
            }
        }
    }
}
