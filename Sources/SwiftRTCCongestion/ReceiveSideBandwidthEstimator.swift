import SwiftRTCRTP

/// The receiver's estimate for peers that use REMB instead of transport-cc (as libwebrtc's
/// remote bitrate estimator with abs-send-time): incoming packets go into a
/// ``DelayBasedEstimator`` with their abs-send-time as send time (when the extension is
/// there), so a growing queue lowers the estimate; otherwise it follows the incoming rate. It
/// says when to send a REMB: once a second, or at once when the estimate fell by 3% or more.
public struct ReceiveSideBandwidthEstimator: Sendable {
    /// Time between REMBs at a steady estimate (µs).
    public static let interval: Int64 = 1_000_000

    private var delayBased: DelayBasedEstimator
    /// abs-send-time (24-bit 6.18 seconds, wraps every 64 s) unwrapped to µs.
    private var lastAbsSendTime: UInt32?
    private var sendUnits: Int64 = 0
    /// The farthest abs-send-time may move between two packets and still be followed
    /// (2^18 units a second: 8 s); a farther jump (a peer's made-up value) counts as no time.
    public static let maximumSendTimeJump: Int64 = 8 << 18
    /// The unwrapped send time's bound (2^40 units: 48 days) past which it starts again at 0.
    static let maximumSendUnits: Int64 = 1 << 40
    /// abs-send-time jumps beyond ``maximumSendTimeJump``.
    public private(set) var sendTimeJumps: Int64 = 0
    private var lastSent: (time: Int64, bitrate: Int)?

    /// Creates an estimator starting at `startBitrate` within `range`.
    public init(
        startBitrate: Int = SendSideBandwidthEstimator.defaultStartBitrate,
        range: ClosedRange<Int> = SendSideBandwidthEstimator.defaultMinimumBitrate...10_000_000
    ) {
        delayBased = DelayBasedEstimator(startBitrate: startBitrate, range: range)
    }

    /// The estimate (bits/s).
    public var bitrate: Int { delayBased.bitrate }
    /// The incoming rate (bits/s), if known.
    public var incomingBitrate: Int? { delayBased.throughput }

    /// Records a received packet of `size` bytes at `arrival` (µs) with its abs-send-time
    /// (24 bits), if it had one. No allocation unless the throughput window grows.
    public mutating func packetReceived(absSendTime: UInt32?, arrival: Int64, size: Int) {
        guard let absSendTime else {
            // No send times: only the incoming rate counts; keep one group per packet.
            delayBased.add(sendTime: arrival, arrivalTime: arrival, size: size)
            return
        }
        if let last = lastAbsSendTime {
            var delta = Int64(absSendTime & 0xFF_FFFF) - Int64(last)
            if delta > 0x7F_FFFF { delta -= 0x100_0000 }
            if delta < -0x80_0000 { delta += 0x100_0000 }
            if abs(delta) > Self.maximumSendTimeJump {
                sendTimeJumps += 1
                delta = 0
            }
            sendUnits += delta
            if abs(sendUnits) > Self.maximumSendUnits {
                // 48 days of send time (or a peer's jumps adding up): the time axis starts again.
                sendUnits = 0
                delayBased.restartGrouping()
            }
        }
        lastAbsSendTime = absSendTime & 0xFF_FFFF
        // 10^6 / 2^18 = 15625 / 4096, within Int64 for |sendUnits| <= maximumSendUnits.
        delayBased.add(sendTime: (sendUnits * 15_625) >> 12, arrivalTime: arrival, size: size)
    }

    /// Updates the estimate at `now` (µs); returns the bitrate to send in a REMB if one is due.
    public mutating func update(roundTripTime: Int64, now: Int64) -> Int? {
        guard delayBased.throughput != nil else { return nil }
        let estimate = delayBased.updateRate(roundTripTime: roundTripTime, now: now)
        if let last = lastSent, now - last.time < Self.interval, estimate * 100 > last.bitrate * 97 { return nil }
        lastSent = (now, estimate)
        return estimate
    }
}
