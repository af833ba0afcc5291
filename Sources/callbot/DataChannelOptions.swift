import ArgumentParser
import SwiftRTC

/// `callbot whip`'s data channel: `--data-channel LABEL` opens one before the offer and sends
/// `--data-messages` messages of `--data-size` bytes on it (text, or `--data-binary`), counting
/// the echoes a `whip-server --echo-data` (or any echoing peer) returns.
struct DataChannelOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Open a data channel with this label and send messages on it.", valueName: "LABEL"))
    var dataChannel: String?

    @Option(help: ArgumentHelp("How many messages --data-channel sends. (default: 10)", valueName: "N"))
    var dataMessages: Int?

    @Option(help: ArgumentHelp("The size of each message, 1 to 262144 bytes. (default: 100)", valueName: "BYTES"))
    var dataSize: Int?

    @Flag(help: "Let the data channel's messages arrive out of order.")
    var dataUnordered = false

    @Option(help: ArgumentHelp("Give a --data-channel message up after K retransmissions.", valueName: "K"))
    var dataMaxRetransmits: UInt32?

    @Flag(help: "Send binary messages on --data-channel (default: text).")
    var dataBinary = false

    /// The largest message (the data section's `a=max-message-size`).
    static let maxSize = PeerConnection.maxDataMessageSize

    func validate() throws {
        let given = dataMessages != nil || dataSize != nil || dataUnordered || dataMaxRetransmits != nil || dataBinary
        if dataChannel == nil, given {
            throw ValidationError(
                "--data-messages, --data-size, --data-unordered, --data-max-retransmits and --data-binary need --data-channel LABEL"
            )
        }
        if let label = dataChannel, label.utf8.count > 65535 {
            throw ValidationError("--data-channel's label is longer than 65535 bytes")
        }
        if let count = dataMessages, !(1...1_000_000).contains(count) {
            throw ValidationError("--data-messages takes 1 to 1000000")
        }
        if let size = dataSize, !(1...Self.maxSize).contains(size) {
            throw ValidationError("--data-size takes 1 to \(Self.maxSize) bytes")
        }
    }

    /// The exercise these flags ask for (nil without `--data-channel`).
    var exercise: DataChannelExercise.Plan? {
        guard let label = dataChannel else { return nil }
        return DataChannelExercise.Plan(
            label: label,
            messages: dataMessages ?? 10,
            size: dataSize ?? 100,
            binary: dataBinary,
            options: DataChannel.Options(ordered: !dataUnordered, maxRetransmits: dataMaxRetransmits)
        )
    }
}
