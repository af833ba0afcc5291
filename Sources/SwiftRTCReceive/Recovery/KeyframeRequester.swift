import SwiftRTCCore
import SwiftRTCRTP

/// Asks a video sender for a keyframe, as an interceptor-like unit: a picture loss indication
/// (RFC 4585 §6.3.1) when `nack pli` was negotiated, else a full intra request (RFC 5104
/// §4.3.1, with its command sequence number) when only `ccm fir` was, else nothing. Requests
/// are rate limited to one per ``interval(roundTripTime:)``: the round-trip time plus 100 ms,
/// at least 300 ms (a keyframe takes a round trip to come). Times are seconds of any
/// monotonic clock, passed in.
public struct KeyframeRequester: Sendable {
    /// How a keyframe is asked for.
    public enum Method: Sendable, Hashable {
        /// Picture loss indication (`a=rtcp-fb:<pt> nack pli`).
        case pli
        /// Full intra request (`a=rtcp-fb:<pt> ccm fir`).
        case fir
    }

    /// The least time between two requests, seconds.
    public static let minimumInterval = 0.3

    /// What the negotiation allows; nil when neither PLI nor FIR was negotiated.
    public let method: Method?
    /// The SSRC the requests are sent from.
    public let senderSSRC: UInt32
    var lastRequest: Double?
    /// The FIR command sequence number, one up per new request (RFC 5104 §4.3.1.1).
    var firSequence: UInt8 = 0
    /// PLIs built (W3C inbound-rtp `pliCount`).
    public private(set) var pliSent = 0
    /// FIRs built (W3C inbound-rtp `firCount`).
    public private(set) var firSent = 0
    /// Needs for a keyframe the rate limit held back: at most one per request sent (however
    /// often a keyframe is asked for within the interval, as every feedback tick does while
    /// one is needed), so a peer whose frames keep failing is seen in the stats.
    public private(set) var rateLimited = 0
    var heldBack = false

    /// Picks PLI over FIR, as browsers do.
    public init(senderSSRC: UInt32, pli: Bool, fir: Bool) {
        self.senderSSRC = senderSSRC
        method = pli ? .pli : fir ? .fir : nil
    }

    /// The least time between two requests for a round-trip time (seconds).
    public static func interval(roundTripTime: Double?) -> Double {
        max(minimumInterval, (roundTripTime ?? 0) + 0.1)
    }

    /// Whether a request may go out at `now`.
    public func mayRequest(now: Double, roundTripTime: Double?) -> Bool {
        guard method != nil else { return false }
        guard let lastRequest else { return true }
        return now - lastRequest >= Self.interval(roundTripTime: roundTripTime)
    }

    /// The request for a keyframe from `mediaSSRC` at `now`, or nil when rate limited or
    /// nothing was negotiated.
    public mutating func request(mediaSSRC: UInt32, now: Double, roundTripTime: Double?) -> RTCPPacket? {
        guard let method else { return nil }
        guard mayRequest(now: now, roundTripTime: roundTripTime) else {
            if !heldBack {
                heldBack = true
                rateLimited += 1
            }
            return nil
        }
        lastRequest = now
        heldBack = false
        switch method {
        case .pli:
            pliSent += 1
            return .pictureLossIndication(PictureLossIndication(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC))
        case .fir:
            firSent += 1
            firSequence &+= 1
            return .fullIntraRequest(
                FullIntraRequest(
                    senderSSRC: senderSSRC,
                    mediaSSRC: 0,
                    entries: [.init(ssrc: mediaSSRC, sequenceNumber: firSequence)]
                )
            )
        }
    }
}
