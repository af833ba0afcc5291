import SwiftRTC
import Synchronization

/// What callbot does on data channels: sends numbered messages and matches their echoes
/// (`whip --data-channel`), or echoes what a peer sends (`whip-server --echo-data`); each
/// channel becomes a row of the report (`data_channels`).
///
/// Message `i` of `size` bytes is the same in every interop peer (Interop/README.md): text
/// `"\(i):"` then letters `a + (i + k) % 26`, cut to `size`; binary bytes `(i * 31 + k) & 0xff`.
enum DataChannelExercise {
    /// What `whip --data-channel` sends.
    struct Plan: Sendable {
        var label: String
        var messages: Int
        var size: Int
        var binary: Bool
        var options: DataChannel.Options
    }

    /// The most bytes waiting in a channel before the sender waits for it to drain.
    static let maxBuffered = 1 << 20

    /// Message `index` of `size` bytes.
    static func message(_ index: Int, size: Int, binary: Bool) -> DataChannel.Message {
        if binary {
            return .binary((0..<size).map { UInt8(truncatingIfNeeded: index &* 31 &+ $0) })
        }
        var text = Array("\(index):".utf8)
        var k = 0
        while text.count < size {
            text.append(UInt8(ascii: "a") + UInt8((index + k) % 26))
            k += 1
        }
        return .text(String(decoding: text.prefix(size), as: UTF8.self))
    }

    /// Sends the plan's messages on `channel` and counts the echoes until all are back,
    /// `deadline` passes or the task is cancelled; the row for the report, and what went wrong.
    static func run(
        _ plan: Plan,
        on channel: DataChannel,
        created: ContinuousClock.Instant,
        deadline: ContinuousClock.Instant
    ) async -> (BotReport.DataChannelRow, errors: [String]) {
        var row = BotReport.DataChannelRow(label: plan.label)
        var errors: [String] = []
        let opened = await withDeadline(deadline) { await channel.opened() } ?? false
        guard opened else { return (row, ["data channel \(plan.label) did not open"]) }
        row.openMs = CallMonitor.milliseconds(ContinuousClock.now - created)
        let echoes = EchoMatcher()
        let receiving = Task {
            for await message in channel.messages {
                echoes.received(message)
                if echoes.count == plan.messages { break }
            }
        }
        channel.bufferedAmountLowThreshold = maxBuffered / 2
        for index in 0..<plan.messages {
            let message = message(index, size: plan.size, binary: plan.binary)
            echoes.sent(message)
            do {
                if channel.bufferedAmount > maxBuffered,
                    await withDeadline(deadline, { await channel.bufferedAmountLow() }) == nil
                {
                    break
                }
                try channel.send(message)
            } catch {
                errors.append("data channel \(plan.label): \(error)")
                break
            }
            if ContinuousClock.now > deadline || Task.isCancelled { break }
        }
        _ = await withDeadline(deadline) { await receiving.value }
        receiving.cancel()
        let statistics = channel.statistics
        row.messagesSent = statistics.messagesSent
        row.bytesSent = statistics.bytesSent
        row.messagesReceived = statistics.messagesReceived
        row.bytesReceived = statistics.bytesReceived
        row.echoMismatches = echoes.mismatches
        row.echoMs = echoes.medianRoundTripMs
        if echoes.count < plan.messages {
            errors.append("data channel \(plan.label): \(echoes.count) of \(plan.messages) echoes came back")
        }
        return (row, errors)
    }

    /// Echoes every message of `channel` back on it, until it closes.
    static func echo(_ channel: DataChannel) async {
        for await message in channel.messages {
            if channel.bufferedAmount > maxBuffered { await channel.bufferedAmountLow() }
            try? channel.send(message)
        }
    }
}

/// The messages sent and not yet echoed (a multiset: unordered channels echo in any order),
/// and the round trips of those that were.
final class EchoMatcher: Sendable {
    private struct State {
        var outstanding: [DataChannel.Message: [ContinuousClock.Instant]] = [:]
        var roundTrips: [Duration] = []
        var mismatches = 0
        var count = 0
    }
    private let state = Mutex(State())

    func sent(_ message: DataChannel.Message) {
        state.withLock { $0.outstanding[message, default: []].append(.now) }
    }

    func received(_ message: DataChannel.Message) {
        state.withLock { state in
            state.count += 1
            guard var times = state.outstanding[message], !times.isEmpty else {
                state.mismatches += 1
                return
            }
            state.roundTrips.append(.now - times.removeFirst())
            state.outstanding[message] = times.isEmpty ? nil : times
        }
    }

    var count: Int { state.withLock { $0.count } }
    var mismatches: Int { state.withLock { $0.mismatches } }

    var medianRoundTripMs: Double? {
        state.withLock { state in
            guard !state.roundTrips.isEmpty else { return nil }
            let sorted = state.roundTrips.sorted()
            let middle = sorted[sorted.count / 2]
            return Double(middle.components.seconds) * 1000 + Double(middle.components.attoseconds) / 1e15
        }
    }
}
