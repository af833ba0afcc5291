import SwiftRTCCore
import SwiftRTCRTP

/// Send-side bandwidth estimation as GCC runs it in browsers: every packet's transport-wide
/// sequence number, size and send time go into a ``SendTimeHistory``; each transport-cc
/// feedback yields arrival times for the ``DelayBasedEstimator`` and a loss fraction for the
/// ``LossBasedEstimator``. Without transport-cc, receiver reports' fraction lost drives the
/// loss-based part alone. The target is the minimum of both, of the peer's REMB (an upper
/// bound when it sends one) and of ``maximumBitrate``, and at least ``minimumBitrate``.
///
/// ``packetSent(sequenceNumber:size:sendTime:)`` does not allocate; feedback handling (every
/// 50-100 ms) does, a little.
public struct SendSideBandwidthEstimator: Sendable {
    /// Chromium's start rate (bits/s).
    public static let defaultStartBitrate = 300_000
    /// The lowest target (bits/s).
    public static let defaultMinimumBitrate = 30_000
    /// The highest target without caps (bits/s).
    public static let defaultMaximumBitrate = 2_500_000

    private var history = SendTimeHistory()
    private var delayBased: DelayBasedEstimator
    private var lossBased: LossBasedEstimator
    /// The peer's last REMB (bits/s), an upper bound.
    public private(set) var remoteEstimate: Int?
    /// The round-trip time used for timing decisions (µs).
    public var roundTripTime: Int64 = 100_000
    /// Whether transport-cc feedback arrived (the delay-based part counts from then on).
    public private(set) var hasTransportFeedback = false
    /// The lowest target (bits/s).
    public let minimumBitrate: Int
    /// Feedback packets processed.
    public private(set) var feedbackCount: Int64 = 0

    /// The highest target (bits/s): the caps.
    public var maximumBitrate: Int {
        didSet {
            let range = minimumBitrate...max(minimumBitrate, maximumBitrate)
            delayBased.range = range
            lossBased.range = range
        }
    }

    /// Creates an estimator starting at `startBitrate`.
    public init(
        startBitrate: Int = defaultStartBitrate,
        minimumBitrate: Int = defaultMinimumBitrate,
        maximumBitrate: Int = defaultMaximumBitrate
    ) {
        self.minimumBitrate = minimumBitrate
        self.maximumBitrate = max(minimumBitrate, maximumBitrate)
        let range = minimumBitrate...max(minimumBitrate, maximumBitrate)
        delayBased = DelayBasedEstimator(startBitrate: startBitrate, range: range)
        lossBased = LossBasedEstimator(startBitrate: startBitrate, range: range)
    }

    /// The target bitrate for all media (bits/s).
    public var targetBitrate: Int {
        var target = min(lossBased.bitrate, maximumBitrate)
        if hasTransportFeedback { target = min(target, delayBased.bitrate) }
        if let remoteEstimate { target = min(target, remoteEstimate) }
        return max(minimumBitrate, target)
    }

    /// The delay-based estimate (bits/s).
    public var delayBasedBitrate: Int { delayBased.bitrate }
    /// The loss-based estimate (bits/s).
    public var lossBasedBitrate: Int { lossBased.bitrate }
    /// The last loss fraction (0...1).
    public var lossFraction: Double { lossBased.lossFraction }
    /// The delay-based detector's conclusion.
    public var usage: BandwidthUsage { delayBased.usage }
    /// Transport-cc reference-time jumps that restarted the arrival time axis
    /// (``SendTimeHistory/maximumReferenceJump``).
    public var referenceTimeJumps: Int64 { history.referenceJumps }
    /// The acknowledged throughput (bits/s), if known.
    public var acknowledgedBitrate: Int? { delayBased.throughput }

    /// Records a sent packet (µs, monotonic). No allocation unless the history grows.
    public mutating func packetSent(sequenceNumber: UInt16, size: Int, sendTime: Int64) {
        history.record(sequenceNumber: sequenceNumber, size: size, sendTime: sendTime)
    }

    /// Processes transport-cc feedback received at `now` (µs).
    public mutating func received(_ feedback: TransportLayerCC, now: Int64) {
        let results = history.results(for: feedback)
        guard !results.isEmpty else { return }
        hasTransportFeedback = true
        feedbackCount += 1
        delayBased.add(results)
        delayBased.updateRate(roundTripTime: roundTripTime, now: now)
        let lost = results.reduce(0) { $0 + ($1.arrivalTime == nil ? 1 : 0) }
        lossBased.update(lost: lost, expected: results.count, roundTripTime: roundTripTime, now: now)
        settle()
    }

    /// Processes an RTCP report block's fraction lost (0...1) about `packets` packets; used
    /// for the loss-based part only while no transport-cc feedback arrives.
    public mutating func receivedLossReport(fractionLost: Double, now: Int64) {
        guard !hasTransportFeedback else { return }
        lossBased.apply(fraction: fractionLost, roundTripTime: roundTripTime, now: now)
        settle()
    }

    /// Processes a REMB from the peer: an upper bound, read as at most
    /// ``RemoteInputLimits/maxBitrate``.
    public mutating func receivedREMB(bitrate: UInt64) {
        remoteEstimate = Int(min(bitrate, UInt64(RemoteInputLimits.maxBitrate)))
    }

    /// Keeps the two parts close: without loss the loss-based rate follows the delay-based
    /// one up (it leads); a lower loss-based rate pulls the delay-based one down (it is the
    /// rate the path was tested at); the loss-based one grows at most to 1.5 times the
    /// delay-based one.
    private mutating func settle() {
        if hasTransportFeedback {
            lossBased.follow(delayBased.bitrate)
            lossBased.limit(to: delayBased.bitrate * 3 / 2)
            if lossBased.bitrate < delayBased.bitrate { delayBased.set(bitrate: lossBased.bitrate) }
        } else if let remoteEstimate {
            lossBased.limit(to: remoteEstimate * 3 / 2)
        }
    }
}
