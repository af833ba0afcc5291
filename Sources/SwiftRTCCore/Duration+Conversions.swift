/// The conversions of a `Duration` the stack needs, in one place: to seconds for arithmetic,
/// to whole milliseconds and nanoseconds for C APIs and NIO. The whole units saturate (a
/// duration beyond the range of `Int64` nanoseconds, some 292 years, is read as the largest
/// one), so a duration from a configuration or a peer cannot make them trap.
extension Duration {
    /// The duration in seconds, as a `Double` (a `TimeInterval`).
    public var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// The duration in whole milliseconds (rounded toward zero, saturating).
    public var milliseconds: Int64 { Self.whole(components, perSecond: 1000) }

    /// The duration in whole nanoseconds (rounded toward zero, saturating).
    public var nanoseconds: Int64 { Self.whole(components, perSecond: 1_000_000_000) }

    private static func whole(_ components: (seconds: Int64, attoseconds: Int64), perSecond: Int64) -> Int64 {
        let (scaled, overflow) = components.seconds.multipliedReportingOverflow(by: perSecond)
        if overflow { return components.seconds < 0 ? .min : .max }
        let (sum, overflowSum) = scaled.addingReportingOverflow(
            components.attoseconds / (1_000_000_000_000_000_000 / perSecond)
        )
        return overflowSum ? (components.seconds < 0 ? .min : .max) : sum
    }
}
