/// What the previous report counted, for rates (frames per second) over the last interval.
struct StatsRates {
    var lastTime: Double?
    var lastCounts: [String: Double] = [:]

    /// `count` per second since the previous report (or the start) for `key`.
    mutating func rate(_ key: String, count: Int64, now: Double) -> Double? {
        let count = Double(count)
        defer { lastCounts[key] = count }
        guard let last = lastTime, now > last else { return nil }
        return max(0, (count - (lastCounts[key] ?? 0)) / (now - last))
    }
}
