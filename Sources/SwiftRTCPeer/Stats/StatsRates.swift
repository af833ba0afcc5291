/// Counts per second (frames per second) over windows of at least ``window`` seconds, however
/// often and by whomever the stats are taken: a report taken less than a window after the
/// last measurement gives that measurement again instead of a rate over a few microseconds
/// (a call's printer and its metrics read the stats a moment apart, and the second read
/// would otherwise see no frame and say 0 fps).
struct StatsRates {
    /// The shortest interval a rate is measured over, in seconds.
    static let window = 1.0

    /// Where each key's current window began, and the rate the previous window measured.
    private struct Window {
        var time: Double
        var count: Double
        var rate: Double?
    }

    /// When counting began (the connection's transport was made): the first window of a key
    /// begins there, from zero.
    var start: Double?
    private var windows: [String: Window] = [:]

    /// `count` per second for `key` over the last whole window (since ``start`` or the key's
    /// first report); nil until a window has passed.
    mutating func rate(_ key: String, count: Int64, now: Double) -> Double? {
        let count = Double(count)
        guard var current = windows[key] ?? start.map({ Window(time: $0, count: 0) }) else {
            windows[key] = Window(time: now, count: count)
            return nil
        }
        let elapsed = now - current.time
        if elapsed >= Self.window {
            current = Window(time: now, count: count, rate: max(0, (count - current.count) / elapsed))
        }
        windows[key] = current
        return current.rate
    }
}
