import ArgumentParser
import Foundation
import SwiftRTC

/// What `call` and `answer` set on their call sessions beyond media: the ICE policy
/// (`--relay-only` of ``IceOptions``), bandwidth caps, how long a connection may stay
/// disconnected, and custom items.
struct CallSessionOptions: ParsableArguments {
    @OptionGroup var bandwidth: BandwidthOptions

    @Option(
        help: ArgumentHelp(
            "Seconds a connection may stay disconnected before the call gives up on it (at least 10).",
            valueName: "SECONDS"
        )
    )
    var disconnectTimeout: Double = 30

    @Option(
        name: .customLong("custom-item"),
        help: ArgumentHelp(
            "A custom item of the call, set once the call starts (or is accepted); repeatable.",
            valueName: "KEY=VALUE"
        )
    )
    var customItems: [String] = []

    @Option(
        help: ArgumentHelp(
            "Mute the audio and video this many seconds after connecting (the others get a media settings notice).",
            valueName: "SECONDS"
        )
    )
    var muteAfter: Double?

    @Option(
        help: ArgumentHelp(
            "Send video at this size (default: the source's size), at most 4096x4096.",
            valueName: "WIDTHxHEIGHT"
        )
    )
    var videoSize: VideoSize?

    @Option(
        name: .customLong("max-fps"),
        help: ArgumentHelp("Send at most this many video frames a second (1 to 60).", valueName: "FPS")
    )
    var maxFPS: Int = 30

    @Option(
        help: ArgumentHelp(
            "Write each other user's latest video picture to DIR/snapshot-USER.png every stats interval.",
            valueName: "DIR"
        )
    )
    var snapshots: String?

    @Option(
        help: ArgumentHelp(
            "Write the bot report (JSON, DESIGN.md) of the call with the first other user to FILE when it ends (answer: of the last call).",
            valueName: "FILE"
        )
    )
    var report: String?

    func validate() throws {
        guard disconnectTimeout >= 10, disconnectTimeout <= 3600 else {
            throw ValidationError("--disconnect-timeout must be 10 to 3600 seconds")
        }
        _ = try items()
        try ReportPath.check(report)
        guard (1...60).contains(maxFPS) else { throw ValidationError("--max-fps must be 1 to 60") }
        if let snapshots {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: snapshots, isDirectory: &isDirectory), isDirectory.boolValue
            else { throw ValidationError("--snapshots \(snapshots): no such folder") }
        }
        try Seconds.check(muteAfter, "--mute-after", above: 0, orEqual: true)
    }

    /// With `--mute-after`: mutes the session's audio and video that long after its first
    /// connection, and prints `PREFIX: muted`. Cancel the task when the call ends.
    func muteLater(_ session: CallSession, prefix: String) -> Task<Void, Never>? {
        guard let muteAfter else { return nil }
        return Task {
            for await event in await session.events() { if case .connected = event { break } }
            try? await Task.sleep(for: Seconds.duration(muteAfter))
            guard !Task.isCancelled else { return }
            await session.setLocalAudioEnabled(false)
            await session.setLocalVideoEnabled(false)
            printLine("\(prefix): muted")
        }
    }

    /// The custom items as a dictionary.
    func items() throws -> [String: String] { try SessionPrinter.userInfo(customItems, option: "--custom-item") }

    /// The call configuration of these options with the ICE servers and policy of `ice`.
    func configuration(
        ice: IceOptions,
        gatherAddresses: [String],
        dialing: Double = 5,
        answer: Double = 45
    ) throws -> CallConfiguration {
        CallConfiguration(
            iceServers: try ice.servers(),
            iceTransportPolicy: ice.relayOnly ? .relay : .all,
            gatherAddresses: gatherAddresses,
            videoSendSize: videoSize,
            maxVideoFrameRate: maxFPS,
            audioBandwidthCap: bandwidth.maxAudioKbps.map { $0 * 1000 },
            videoBandwidthCap: bandwidth.maxVideoKbps.map { $0 * 1000 },
            dialingTimeInterval: Seconds.duration(dialing),
            answerTimeInterval: Seconds.duration(answer),
            disconnectTimeInterval: Seconds.duration(disconnectTimeout)
        )
    }
}

/// `WIDTHxHEIGHT`, 16 to 4096 each side.
extension VideoSize: ExpressibleByArgument {
    public init?(argument: String) {
        let parts = argument.lowercased().split(separator: "x")
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
            (16...4096).contains(width), (16...4096).contains(height)
        else { return nil }
        self.init(width: width, height: height)
    }
}
