import SwiftRTCRTP

/// The loss-based half of GCC (draft-ietf-rmcat-gcc-02 §6): from the fraction of packets
/// lost (transport-cc feedback, or RTCP receiver reports' fraction lost), more than 10% loss
/// decreases the rate to `rate * (1 - 0.5 * loss)` (at most once per RTT + 300 ms), less
/// than 2% increases it by 5% per update, in between holds it.
public struct LossBasedEstimator: Sendable {
    /// Loss above which the rate decreases.
    public static let highLoss = 0.10
    /// Loss below which the rate increases.
    public static let lowLoss = 0.02
    /// Packets a loss fraction is computed over at least.
    public static let minimumPackets = 20

    /// The estimate (bits/s).
    public private(set) var bitrate: Int
    /// The allowed range (bits/s).
    public var range: ClosedRange<Int> {
        didSet { bitrate = min(max(bitrate, range.lowerBound), range.upperBound) }
    }
    /// The last loss fraction computed (0...1).
    public private(set) var lossFraction = 0.0
    private var lost = 0, expected = 0
    private var lastDecrease: Int64?

    /// Creates an estimator starting at `startBitrate` within `range`.
    public init(startBitrate: Int, range: ClosedRange<Int>) {
        self.range = range
        bitrate = min(max(startBitrate, range.lowerBound), range.upperBound)
    }

    /// Adds `lost` of `expected` packets at `now` (µs); once ``minimumPackets`` are counted
    /// the fraction moves the rate. Returns whether it did.
    @discardableResult
    public mutating func update(lost: Int, expected: Int, roundTripTime: Int64, now: Int64) -> Bool {
        self.lost += max(0, lost)
        self.expected += max(0, expected)
        guard self.expected >= Self.minimumPackets else { return false }
        let fraction = Double(min(self.lost, self.expected)) / Double(self.expected)
        self.lost = 0
        self.expected = 0
        apply(fraction: fraction, roundTripTime: roundTripTime, now: now)
        return true
    }

    /// Applies a loss fraction computed elsewhere (an RTCP report block's fraction lost).
    public mutating func apply(fraction: Double, roundTripTime: Int64, now: Int64) {
        lossFraction = min(max(fraction, 0), 1)
        var next = Double(bitrate)
        if lossFraction < Self.lowLoss {
            next = next * 1.05 + 1000
        } else if lossFraction > Self.highLoss {
            guard now - (lastDecrease ?? Int64.min / 2) >= roundTripTime + 300_000 else { return }
            lastDecrease = now
            next *= 1 - 0.5 * lossFraction
        }
        bitrate = min(max(Int(next), range.lowerBound), range.upperBound)
    }

    /// Raises the estimate to `floor` while loss is low: without loss the delay-based part
    /// leads, and the loss-based one starts from there when loss appears.
    public mutating func follow(_ floor: Int) {
        guard lossFraction < Self.lowLoss else { return }
        bitrate = max(bitrate, min(floor, range.upperBound))
    }

    /// Keeps the estimate at or below `ceiling` (it only grows where it was tested).
    public mutating func limit(to ceiling: Int) {
        bitrate = min(bitrate, max(ceiling, range.lowerBound))
    }
}
