import SwiftRTCCore
import SwiftRTCRTP

/// The receive side of generic NACK (RFC 4585 §6.2.1), as an interceptor-like unit: it sees
/// every received sequence number of one stream (originals and repaired ones), and on each
/// ``poll(now:)`` builds the NACK for what is missing. Each missing packet is asked for at
/// most ``NackGenerator/maximumRetries`` times, the requests spaced by about the round-trip
/// time (``retryInterval``), and given up ``NackGenerator/maximumTime`` seconds after the hole
/// was noticed; giving up is reported (``takeAbandoned()``) so the caller can ask for a
/// keyframe. Times are seconds of any monotonic clock, passed in (tests inject their own).
public struct NackRequester: Sendable {
    /// Requests are spaced by the round-trip time, but never closer than this (seconds).
    public static let minimumRetryInterval = 0.02
    /// The round-trip time assumed until one is measured (seconds).
    public static let defaultRoundTripTime = 0.1

    /// The SSRC the NACKs are sent from (this side's sender, or 1 without one).
    public let senderSSRC: UInt32
    /// The stream the NACKs are about.
    public private(set) var mediaSSRC: UInt32?
    var generator: NackGenerator
    /// The last measured round-trip time (from RTCP SR/RR: A - LSR - DLSR), seconds.
    public var roundTripTime: Double?
    /// NACK feedback messages built (W3C inbound-rtp `nackCount`).
    public private(set) var nacksSent = 0
    /// Sequence numbers asked for, retries included.
    public private(set) var packetsRequested = 0
    var abandonedReported = 0
    var restartsReported = 0
    /// Restarts of the generators of earlier SSRCs.
    var restartsBefore = 0

    /// - Parameters:
    ///   - senderSSRC: the SSRC the NACKs are sent from.
    ///   - maximumRetries: requests per missing packet at most.
    ///   - maximumTime: seconds after which a missing packet is given up.
    public init(senderSSRC: UInt32, maximumRetries: Int = 10, maximumTime: Double = 1.0) {
        self.senderSSRC = senderSSRC
        generator = NackGenerator(maximumRetries: maximumRetries, maximumTime: maximumTime)
    }

    /// How long between two requests for the same packet: the round-trip time (or the default
    /// before one is measured) plus a little, at least ``minimumRetryInterval``.
    public var retryInterval: Double {
        max(Self.minimumRetryInterval, (roundTripTime ?? Self.defaultRoundTripTime) + 0.005)
    }

    /// Packets currently missing.
    public var missingCount: Int { generator.missingCount }
    /// Missing packets that arrived after all (repaired by a retransmission, or late).
    public var recovered: Int { generator.recovered }
    /// Missing packets given up on.
    public var abandoned: Int { generator.abandoned }
    /// Sequence jumps beyond the missing list that started it over (of every SSRC seen).
    public var jumpsRestarted: Int { restartsBefore + generator.jumpsRestarted }

    /// Notes a received packet of the stream (`ssrc`: the media SSRC, also for an unwrapped
    /// RTX packet). A new SSRC starts over.
    public mutating func received(sequenceNumber: UInt16, ssrc: UInt32, at now: Double) {
        if mediaSSRC != ssrc {
            if mediaSSRC != nil {
                restartsBefore += generator.jumpsRestarted
                generator = NackGenerator(
                    maximumRetries: generator.maximumRetries,
                    maximumAge: Int(generator.maximumAge),
                    maximumMissing: generator.maximumMissing,
                    maximumTime: generator.maximumTime
                )
                abandonedReported = 0
                restartsReported = 0
            }
            mediaSSRC = ssrc
        }
        generator.received(sequenceNumber, at: now)
    }

    /// The NACK to send now, or nil when nothing is due.
    public mutating func poll(now: Double) -> GenericNACK? {
        guard let mediaSSRC else { return nil }
        let due = generator.sequenceNumbersToRequest(now: now, retryInterval: retryInterval)
        guard !due.isEmpty else { return nil }
        nacksSent += 1
        packetsRequested += due.count
        return GenericNACK(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, lost: due)
    }

    /// Whether packets were given up on since the last call (or a jump skipped some): the
    /// frames they belonged to are lost, and the decoder will need a keyframe.
    public mutating func takeAbandoned() -> Bool {
        defer {
            abandonedReported = generator.abandoned
            restartsReported = generator.jumpsRestarted
        }
        return generator.abandoned > abandonedReported || generator.jumpsRestarted > restartsReported
    }
}
