import ArgumentParser
import Foundation
import SwiftRTC
import Synchronization

/// `--chat` of `call`, `answer` and `conference`: the call's chat channel
/// (``CallSession/messages()``), or the room's data, on the terminal. Each line of standard
/// input goes to everyone in the call once it has connected (in a room: to everyone subscribed
/// to the bot); each message the others send is printed as `PREFIX: chat USER: TEXT`.
struct ChatOptions: ParsableArguments {
    @Flag(
        name: .customLong("chat"),
        help:
            "Send each line of standard input to everyone in the call or room (once connected); print what the others send as 'PREFIX: chat USER: TEXT'."
    )
    var enabled = false

    /// With `--chat`: standard input's lines, read from now on; nil without.
    func input() -> ChatInput? { enabled ? ChatInput() : nil }
}

/// Standard input's lines for the call in progress, read on a thread of their own (never the
/// cooperative pool): each goes to everyone in the call that connected last (lines read
/// before a call connected wait for it; at most ``maxWaitingLines`` are read ahead, then the
/// reading waits). Empty lines are not sent.
final class ChatInput: Sendable {
    /// Lines read and not yet sent, at most.
    static let maxWaitingLines = 256

    private let target = ChatTarget()

    init() {
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        let room = DispatchSemaphore(value: Self.maxWaitingLines)
        Thread.detachNewThread {
            while let line = readLine(strippingNewline: true) {
                guard !line.isEmpty else { continue }
                room.wait()
                continuation.yield(line)
            }
            continuation.finish()
        }
        let target = target
        Task {
            for await line in lines {
                room.signal()
                let send = await target.sender()
                do { try await send(line) } catch { log("chat: \(error)") }
            }
        }
    }

    /// Standard input's lines go to `room` (everyone subscribed to this bot) until
    /// ``detach(_:)``.
    func attach(_ room: ConferenceSession) async {
        await target.attach(ObjectIdentifier(room)) { try await room.send(.text($0)) }
    }

    func detach(_ room: ConferenceSession) async { await target.detach(ObjectIdentifier(room)) }

    /// Prints what the others in `session` send, as `PREFIX: chat USER: TEXT` (and an
    /// `EVENT` line with `eventsJSON`), and sends them standard input's lines once it has
    /// connected, until it ends. Call before starting or accepting the call; the task ends
    /// with the session.
    func follow(_ session: CallSession, prefix: String, eventsJSON: Bool) async -> Task<Void, Never> {
        let messages = await session.messages()
        let events = await session.events()
        let target = target
        let printing = Task {
            for await chat in messages {
                printLine("\(prefix): chat \(chat.from): \(Self.text(of: chat.message))")
                guard eventsJSON else { continue }
                var fields: [String: any Sendable] = ["event": "chat", "session": session.id, "user": chat.from]
                switch chat.message {
                case .text(let text): fields["text"] = text
                case .binary(let bytes): fields["bytes"] = bytes.count
                }
                EventLine.print(fields)
            }
        }
        return Task {
            for await event in events {
                if case .connected = event {
                    await target.attach(ObjectIdentifier(session)) { try await session.sendToAll(.text($0)) }
                }
            }
            await target.detach(ObjectIdentifier(session))
            await printing.value
        }
    }

    /// A message as one printable line: text with its control characters escaped (`\n`,
    /// `\u{1B}`...: a peer's text never moves the terminal's cursor or splits the line),
    /// bytes as `[N bytes]`.
    static func text(of message: DataChannel.Message) -> String {
        switch message {
        case .binary(let bytes): return "[\(bytes.count) bytes]"
        case .text(let text):
            var line = ""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\n": line += "\\n"
                case "\r": line += "\\r"
                case "\t": line += "\t"
                case "\\": line += "\\\\"
                default:
                    // C0 and C1 controls, and the bidirectional overrides that reorder a line.
                    if scalar.properties.generalCategory == .control || (0x202A...0x202E).contains(scalar.value)
                        || (0x2066...0x2069).contains(scalar.value)
                    {
                        line += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
                    } else {
                        line.unicodeScalars.append(scalar)
                    }
                }
            }
            return line
        }
    }
}

/// Where standard input's lines go: the call that connected last (or the conference room
/// joined), while it lasts.
actor ChatTarget {
    /// Sends one line.
    typealias Send = @Sendable (String) async throws -> Void
    private var current: (id: ObjectIdentifier, send: Send)?
    private var waiting: [CheckedContinuation<Send, Never>] = []

    /// Lines go to `send` from now on, until `id` is detached.
    func attach(_ id: ObjectIdentifier, send: @escaping Send) {
        current = (id, send)
        for waiter in waiting { waiter.resume(returning: send) }
        waiting = []
    }

    func detach(_ id: ObjectIdentifier) {
        if current?.id == id { current = nil }
    }

    /// The target in place, once there is one.
    func sender() async -> Send {
        if let current { return current.send }
        return await withCheckedContinuation { waiting.append($0) }
    }
}
