import Foundation

/// Wall-clock time as RTCP carries it (RFC 3550 §4): NTP 32.32 fixed point seconds since 1900.
package enum NTPTime {
    /// Seconds from 1900 to 1970.
    package static let unixOffset: UInt64 = 2_208_988_800

    /// Now, in NTP format.
    package static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        let seconds = UInt64(ts.tv_sec) + unixOffset
        let fraction = (UInt64(ts.tv_nsec) << 32) / 1_000_000_000
        return seconds << 32 | fraction
    }

    /// The middle 32 bits (16.16 seconds): LSR and the RTT arithmetic of RFC 3550 §6.4.1.
    package static func middle(_ ntp: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: ntp >> 16) }

    /// A monotonic clock in seconds, for arrival times and intervals.
    package static func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
