import SwiftRTCDataChannel
import SwiftRTCPeer

/// Data in the room. A publisher's connection carries a data channel beside its media; Janus
/// relays each message sent on it to every subscriber of that publisher, on a channel of the
/// subscription connection that Janus opens for the publisher and labels with its id
/// (VideoRoom's `relay_data`, one channel per publisher whatever the sender's label).
extension ConferenceSession {
    /// The label of a publisher's own channel (Janus relays under the publisher's id instead).
    static let dataLabel = "data"
    /// How long ``send(_:)`` waits for the publishing channel to open.
    static let dataOpenTimeout = Duration.seconds(10)

    /// Sends `message` to the room: Janus relays it to everyone subscribed to this publisher,
    /// who gets it on ``ConferenceSessionEvent/remoteDataChannel(publisher:channel:)``. Waits
    /// (at most 10 s) for the publishing connection's channel to open. Janus keeps nothing:
    /// a subscriber whose connection is not up yet (one who just joined) misses the message.
    /// - Throws: ``ConferenceError/messageNotSent(_:)`` for a listener, without
    ///   ``Options/data``, while not published, when the channel did not open, or when it
    ///   refused the message (over the peer's size limit, too much waiting to be sent).
    public func send(_ message: DataChannel.Message) async throws(ConferenceError) {
        guard let channel = publishingChannel else {
            throw .messageNotSent(
                role == .listener ? "a listener publishes nothing" : "no data channel is published (Options.data)"
            )
        }
        guard await Self.opened(channel, within: Self.dataOpenTimeout) else {
            throw .messageNotSent("the data channel is \(channel.state.rawValue)")
        }
        do { try channel.send(message) } catch { throw .messageNotSent("\(error)") }
    }

    /// Whether `channel` opened within `timeout`.
    static func opened(_ channel: DataChannel, within timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while channel.state == .connecting, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        return channel.state == .open
    }

    /// A channel Janus opened on the subscription: a publisher's data when its label is a
    /// publisher's id, else closed and counted (``dataChannelsRefused``), as is one past
    /// ``maxRememberedPublishers``.
    func dataChannelArrived(_ channel: DataChannel) {
        guard let publisher = Int64(channel.label), publisher > 0,
            remoteChannels[publisher] != nil || remoteChannels.count < Self.maxRememberedPublishers
        else {
            dataChannelsRefused += 1
            logger.warning("a data channel labelled '\(channel.label.prefix(64))' was refused")
            channel.close()
            return
        }
        if let old = remoteChannels[publisher] {
            dataMessagesReceived[publisher, default: 0] &+= old.statistics.messagesReceived
        }
        remoteChannels[publisher] = channel
        emit(.remoteDataChannel(publisher: publisher, channel: channel))
    }

    /// Messages each publisher's channels delivered so far.
    func dataMessages() -> [Int64: Int] {
        var total = dataMessagesReceived
        for (publisher, channel) in remoteChannels {
            total[publisher, default: 0] &+= channel.statistics.messagesReceived
        }
        return total
    }
}
