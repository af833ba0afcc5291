import Foundation
import Logging
import SwiftRTCDataChannel
import SwiftRTCJanus
import SwiftRTCPeer
import SwiftRTCSDP

// Publishing: this bot's tracks sent into the room, stopped, muted.
extension ConferenceSession {
    /// Sends a publisher's ``localAudioTrack`` and ``localVideoTrack`` into the room: offer,
    /// Janus's answer; the others get it in ``ConferenceSessionEvent/publishersReceived(_:)``.
    /// ``join(_:room:options:)`` does it for a publisher; call it to publish again after
    /// ``unpublish()``. Nothing for a listener, or while published.
    public func publish() async throws(ConferenceError) {
        guard role == .publisher, publishingConnection == nil else { return }
        let connection: PeerConnection
        do { connection = try PeerConnection(configuration: options.connection) } catch {
            throw .connection("\(error)")
        }
        publishingConnection = connection
        follow(candidatesOf: connection, to: publisherHandle)
        do {
            if let localAudioTrack { _ = try await connection.addTrack(localAudioTrack) }
            if let localVideoTrack {
                if options.simulcast {
                    _ = try await connection.addTransceiver(
                        .video,
                        direction: .sendonly,
                        track: localVideoTrack,
                        sendEncodings: RTPEncodingParameters.threeLayers
                    )
                } else {
                    _ = try await connection.addTrack(localVideoTrack)
                }
            }
            if options.data { publishingChannel = try await connection.createDataChannel(label: Self.dataLabel) }
            try await connection.setLocalDescription(try await connection.createOffer())
            let offer = try await gathered(connection)
            let reply = try await publisherHandle.message(
                ["request": "publish"],
                jsep: JanusJSEP(type: "offer", sdp: offer)
            )
            guard let answer = reply.jsep, answer.type == "answer" else {
                throw ConferenceError.unexpectedReply("publish answered \(reply.data) without an SDP answer")
            }
            try await connection.setRemoteDescription(SignalingDescription(type: .answer, sdp: answer.sdp))
        } catch {
            throw ConferenceError(error)
        }
    }

    /// Stops publishing (VideoRoom's `unpublish`): the room is told (the others get
    /// ``ConferenceSessionEvent/publisherLeft(id:)``) and the publishing connection closes. The
    /// bot stays in the room with its subscriptions; ``publish()`` sends again.
    ///
    /// Returns once Janus has hung up its side of the connection (at most 5 s): an offer that
    /// reached it before would be taken for the old connection's, which Janus then drops
    /// (`471 Invalid PeerConnection`).
    public func unpublish() async throws(ConferenceError) {
        guard let connection = publishingConnection, !ended else { return }
        publishingConnection = nil
        publishingChannel = nil
        let hangups = publisherHangups
        do { _ = try await publisherHandle.message(["request": "unpublish"]) } catch {
            await connection.close()
            throw ConferenceError(error)
        }
        await connection.close()
        let deadline = ContinuousClock.now + .seconds(5)
        while publisherHangups == hangups, !ended, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Mutes or unmutes what this bot publishes of `kind`: its track sends silence or black
    /// frames, and Janus stops (or goes back to) relaying the stream to the room (`configure`
    /// with the stream's `send`). Nothing when nothing of `kind` is published.
    public func setMuted(_ muted: Bool, kind: MediaKind) async throws(ConferenceError) {
        guard let track = kind == .audio ? localAudioTrack : localVideoTrack, let connection = publishingConnection
        else { return }
        track.isEnabled = !muted
        guard let mid = await connection.transceivers.first(where: { $0.sender.track === track })?.mid else { return }
        do {
            _ = try await publisherHandle.message(
                ["request": "configure", "streams": [["mid": .string(mid), "send": .bool(!muted)]]]
            )
        } catch {
            throw ConferenceError(error)
        }
    }
}
