import ArgumentParser
import Foundation

/// The bot report of DESIGN.md ("Interop contract"): what a `callbot` run connected, sent,
/// received and decoded, written as JSON with `--report FILE`. A value the bot cannot know is
/// `null` (written, not left out). Field names are the contract: add fields, never rename.
struct BotReport: Codable, Sendable, Equatable {
    /// Per-kind counters shared by audio and video.
    struct Audio: Codable, Sendable, Equatable {
        var rtpPacketsSent: Int?
        var rtpPacketsReceived: Int?
        var framesDecoded: Int?
        /// RMS of all decoded PCM, full scale 1.0.
        var rms: Double?
        /// Loss and repair (the bot report's fields, DESIGN.md "Interop contract"; taken from the
        /// W3C stats by `CallMonitor.fillQuality`): concealed / total samples received (0...1),
        /// average jitter buffer delay (ms), cumulative lost, packets recovered by Opus FEC.
        var concealmentRate: Double?
        var jitterBufferMs: Double?
        var packetsLost: Int?
        var fecRecovered: Int?

        enum CodingKeys: String, CodingKey {
            case rtpPacketsSent = "rtp_packets_sent", rtpPacketsReceived = "rtp_packets_received"
            case framesDecoded = "frames_decoded", rms
            case concealmentRate = "concealment_rate", jitterBufferMs = "jitter_buffer_ms"
            case packetsLost = "packets_lost", fecRecovered = "fec_recovered"
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(rtpPacketsSent, forKey: .rtpPacketsSent)
            try c.encode(rtpPacketsReceived, forKey: .rtpPacketsReceived)
            try c.encode(framesDecoded, forKey: .framesDecoded)
            try c.encode(rms, forKey: .rms)
            try c.encode(concealmentRate, forKey: .concealmentRate)
            try c.encode(jitterBufferMs, forKey: .jitterBufferMs)
            try c.encode(packetsLost, forKey: .packetsLost)
            try c.encode(fecRecovered, forKey: .fecRecovered)
        }
    }

    struct Video: Codable, Sendable, Equatable {
        var rtpPacketsSent: Int?
        var rtpPacketsReceived: Int?
        var framesDecoded: Int?
        /// Size of the last decoded frame.
        var width: Int?
        var height: Int?
        /// The VP8 encoder's target bitrate at the end (kbit/s).
        var targetKbps: Int?
        /// Loss and repair (the bot report's fields, DESIGN.md "Interop contract"; taken from the
        /// W3C stats by `CallMonitor.fillQuality`): frames sent, the longest gap between decoded
        /// frames (ms), cumulative lost after retransmissions, NACK/PLI/FIR messages each way,
        /// retransmissions sent.
        var framesSent: Int?
        var freezeMaxMs: Int?
        /// Freezes by the W3C rule (gap > max(3 × average, average + 150 ms)) and their total (ms).
        var freezeCount: Int?
        var totalFreezesDurationMs: Int?
        var packetsLost: Int?
        var nackSent: Int?
        var nackReceived: Int?
        var retransmittedPacketsSent: Int?
        var pliSent: Int?
        var pliReceived: Int?
        var firSent: Int?
        var firReceived: Int?

        enum CodingKeys: String, CodingKey {
            case rtpPacketsSent = "rtp_packets_sent", rtpPacketsReceived = "rtp_packets_received"
            case framesDecoded = "frames_decoded", width, height
            case targetKbps = "target_kbps"
            case framesSent = "frames_sent", freezeMaxMs = "freeze_max_ms", packetsLost = "packets_lost"
            case freezeCount = "freeze_count", totalFreezesDurationMs = "total_freezes_duration_ms"
            case nackSent = "nack_sent", nackReceived = "nack_received", retransmittedPacketsSent =
                "retransmitted_packets_sent"
            case pliSent = "pli_sent", pliReceived = "pli_received", firSent = "fir_sent", firReceived = "fir_received"
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(rtpPacketsSent, forKey: .rtpPacketsSent)
            try c.encode(rtpPacketsReceived, forKey: .rtpPacketsReceived)
            try c.encode(framesDecoded, forKey: .framesDecoded)
            try c.encode(width, forKey: .width)
            try c.encode(height, forKey: .height)
            try c.encode(targetKbps, forKey: .targetKbps)
            try c.encode(framesSent, forKey: .framesSent)
            try c.encode(freezeMaxMs, forKey: .freezeMaxMs)
            try c.encode(freezeCount, forKey: .freezeCount)
            try c.encode(totalFreezesDurationMs, forKey: .totalFreezesDurationMs)
            try c.encode(packetsLost, forKey: .packetsLost)
            try c.encode(nackSent, forKey: .nackSent)
            try c.encode(nackReceived, forKey: .nackReceived)
            try c.encode(retransmittedPacketsSent, forKey: .retransmittedPacketsSent)
            try c.encode(pliSent, forKey: .pliSent)
            try c.encode(pliReceived, forKey: .pliReceived)
            try c.encode(firSent, forKey: .firSent)
            try c.encode(firReceived, forKey: .firReceived)
        }
    }

    /// `callbot`.
    var peer = "callbot"
    /// `whip-client`, `whip-server`, or for a call session `caller` or `callee`.
    var role: String
    /// Whether the connection reached `connected` (ICE and DTLS).
    var connected = false
    /// Milliseconds from the start of negotiation to ICE `connected`.
    var iceConnectedMs: Int?
    /// Milliseconds from the start of negotiation to DTLS `connected`.
    var dtlsConnectedMs: Int?
    var audio = Audio()
    var video = Video()
    /// What went wrong, one sentence each.
    var errors: [String] = []
    /// How long the call ran, from the start of negotiation to its end.
    var durationMs: Int?
    /// The selected candidate pair: local and remote candidate types and the protocol.
    var localCandidateType: String?
    var remoteCandidateType: String?
    var candidateProtocol: String?
    /// For `whip-server`: how many sessions it answered.
    var sessions: Int?
    /// For `whip-server`: the endpoint's counters (sessions it ended itself, requests refused).
    var whipEndpoint: WhipEndpoint?
    /// The send-side bandwidth estimate at the end (kbit/s; W3C availableOutgoingBitrate).
    var bandwidthEstimateKbps: Int?
    /// What DTLS negotiated, by IANA name (W3C transport `srtpCipher`, `dtlsCipher`), e.g.
    /// `SRTP_AES128_CM_HMAC_SHA1_80` and `TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256`.
    var srtpCipher: String?
    var dtlsCipher: String?
    /// For `call` and `answer`: the call session's id, the other users, and how it ended
    /// (the call record's result).
    var callId: String?
    var callUsers: [String]?
    var callResult: String?
    /// The data channels: those `whip --data-channel` opened, those a peer opened to
    /// `whip-server --echo-data`.
    var dataChannels: [DataChannelRow]?
    /// For `conference`: one row per publisher it subscribed to (a publisher that joined again
    /// has a row per stay), and how often it joined the room again after Janus ended its session.
    var publishers: [PublisherRow]?
    var rejoins: Int?

    /// What one room publisher's streams delivered to a `conference` bot; `layer` is the
    /// simulcast layer received (null: the publisher sends one).
    struct PublisherRow: Codable, Sendable, Equatable {
        var id: Int64
        var display: String?
        var audioFramesDecoded = 0
        var videoFramesDecoded = 0
        var packetsLost = 0
        var dataMessagesReceived = 0
        var layer: Int?

        init(id: Int64, display: String?) {
            self.id = id
            self.display = display
        }

        enum CodingKeys: String, CodingKey {
            case id, display, audioFramesDecoded = "audio_frames_decoded", videoFramesDecoded = "video_frames_decoded"
            case packetsLost = "packets_lost", dataMessagesReceived = "data_messages_received", layer
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(id, forKey: .id)
            try c.encode(display, forKey: .display)
            try c.encode(audioFramesDecoded, forKey: .audioFramesDecoded)
            try c.encode(videoFramesDecoded, forKey: .videoFramesDecoded)
            try c.encode(packetsLost, forKey: .packetsLost)
            try c.encode(dataMessagesReceived, forKey: .dataMessagesReceived)
            try c.encode(layer, forKey: .layer)
        }
    }

    /// One data channel: what went each way, how long it took to open (from its creation, or
    /// for a channel the peer opened from the start of the session), the median echo round trip.
    struct DataChannelRow: Codable, Sendable, Equatable {
        var label: String
        var messagesSent = 0
        var messagesReceived = 0
        var bytesSent = 0
        var bytesReceived = 0
        var echoMismatches = 0
        var openMs: Int?
        var echoMs: Double?

        init(label: String) { self.label = label }

        enum CodingKeys: String, CodingKey {
            case label, messagesSent = "messages_sent", messagesReceived = "messages_received"
            case bytesSent = "bytes_sent", bytesReceived = "bytes_received", echoMismatches = "echo_mismatches"
            case openMs = "open_ms", echoMs = "echo_ms"
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(label, forKey: .label)
            try c.encode(messagesSent, forKey: .messagesSent)
            try c.encode(messagesReceived, forKey: .messagesReceived)
            try c.encode(bytesSent, forKey: .bytesSent)
            try c.encode(bytesReceived, forKey: .bytesReceived)
            try c.encode(echoMismatches, forKey: .echoMismatches)
            try c.encode(openMs, forKey: .openMs)
            try c.encode(echoMs, forKey: .echoMs)
        }
    }

    enum CodingKeys: String, CodingKey {
        case peer, role, connected, audio, video, errors, sessions
        case iceConnectedMs = "ice_connected_ms", dtlsConnectedMs = "dtls_connected_ms", durationMs = "duration_ms"
        case localCandidateType = "local_candidate_type", remoteCandidateType = "remote_candidate_type"
        case candidateProtocol = "candidate_protocol"
        case bandwidthEstimateKbps = "bandwidth_estimate_kbps"
        case srtpCipher = "srtp_cipher", dtlsCipher = "dtls_cipher"
        case whipEndpoint = "whip_endpoint"
        case callId = "call_id", callUsers = "call_users", callResult = "call_result"
        case dataChannels = "data_channels", publishers, rejoins
    }

    /// What `whip-server`'s endpoint counted (`WHIPEndpoint.Stats`).
    struct WhipEndpoint: Codable, Sendable, Equatable {
        var sessionsCreated: Int
        var viewerSessionsCreated: Int
        var endedByClient: Int
        var timedOut: Int
        var failed: Int
        var rejectedSessionLimit: Int
        var rejectedAddressLimit: Int
        var unauthorized: Int
        var badRequests: Int
        var answererErrors: Int
        var trickles: Int
        var iceRestarts: Int

        enum CodingKeys: String, CodingKey {
            case sessionsCreated = "sessions_created", viewerSessionsCreated = "viewer_sessions_created"
            case endedByClient = "ended_by_client", timedOut = "timed_out", failed
            case rejectedSessionLimit = "rejected_session_limit", rejectedAddressLimit = "rejected_address_limit"
            case unauthorized, badRequests = "bad_requests", answererErrors = "answerer_errors"
            case trickles, iceRestarts = "ice_restarts"
        }
    }

    init(role: String) { self.role = role }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(peer, forKey: .peer)
        try c.encode(role, forKey: .role)
        try c.encode(connected, forKey: .connected)
        try c.encode(iceConnectedMs, forKey: .iceConnectedMs)
        try c.encode(dtlsConnectedMs, forKey: .dtlsConnectedMs)
        try c.encode(audio, forKey: .audio)
        try c.encode(video, forKey: .video)
        try c.encode(errors, forKey: .errors)
        try c.encode(durationMs, forKey: .durationMs)
        try c.encode(localCandidateType, forKey: .localCandidateType)
        try c.encode(remoteCandidateType, forKey: .remoteCandidateType)
        try c.encode(candidateProtocol, forKey: .candidateProtocol)
        try c.encode(sessions, forKey: .sessions)
        try c.encode(bandwidthEstimateKbps, forKey: .bandwidthEstimateKbps)
        try c.encode(srtpCipher, forKey: .srtpCipher)
        try c.encode(dtlsCipher, forKey: .dtlsCipher)
        try c.encode(whipEndpoint, forKey: .whipEndpoint)
        try c.encode(callId, forKey: .callId)
        try c.encode(callUsers, forKey: .callUsers)
        try c.encode(callResult, forKey: .callResult)
        try c.encodeIfPresent(dataChannels, forKey: .dataChannels)
        try c.encodeIfPresent(publishers, forKey: .publishers)
        try c.encodeIfPresent(rejoins, forKey: .rejoins)
    }

    /// The report as pretty-printed JSON with sorted keys.
    func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// Writes the report to `path` (atomically, so a reader never sees half a report).
    func write(to path: String) throws {
        var data = try json()
        data.append(0x0A)
        try data.write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}

extension BotReport {
    /// Ends a run: prints the report's summary line, writes it to `path` if given, and exits
    /// 0 when the call connected without errors, 1 otherwise.
    func finish(writingTo path: String?, failure: ExitCode = CallbotExit.failed) throws {
        printLine("REPORT \(String(decoding: (try? compactJSON()) ?? Data(), as: UTF8.self))")
        if let path {
            do { try write(to: path) } catch {
                log("error: cannot write the report to \(path): \(error.localizedDescription)")
                throw ExitCode.failure
            }
        }
        if !connected || !errors.isEmpty { throw failure }
    }

    /// The report on one line, keys sorted.
    func compactJSON() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}
