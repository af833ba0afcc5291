/// A typed stats object that one component collects (pion's `collectStats`): it becomes the
/// report's entry under the W3C member names, the one place each name is written.
protocol W3CStats {
    /// Unique within the report, stable across reports.
    var id: String { get }
    /// The entry as `getStats()` reports it.
    var entry: StatsReport.Stats { get }
}

extension StatsReport {
    mutating func add(_ stats: some W3CStats) { add(stats.entry) }
}
