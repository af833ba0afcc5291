import ArgumentParser

/// Seconds given on the command line: checked to be finite and in range where they are read,
/// so that turning them into a `Duration` cannot trap (`Int(1e300 * 1000)` would).
enum Seconds {
    /// The longest any option may ask for: a week.
    static let most = 604_800.0

    /// Throws unless `value` (of `option`) is above `least` (or at least it, `orEqual`) and at
    /// most a week; nil passes.
    static func check(_ value: Double?, _ option: String, above least: Double = 0, orEqual: Bool = false) throws {
        guard let value else { return }
        let low = orEqual ? value >= least : value > least
        guard low, value <= most else {
            throw ValidationError(
                "\(option) must be a number of seconds \(orEqual ? "from" : "above") \(Int(least)) (at most \(Int(most))), not \(value)"
            )
        }
    }

    /// A checked number of seconds as a `Duration` (millisecond precision).
    static func duration(_ seconds: Double) -> Duration { .milliseconds(Int((seconds * 1000).rounded())) }
}
