import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What this process uses, for `callbot load`'s report: CPU time (getrusage), resident memory
/// (`/proc/self/status`); open files and their limit are ``OpenFiles``'.
enum ProcessResources {
    /// User plus system CPU seconds used so far by the whole process (every thread).
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        func seconds(_ value: timeval) -> Double { Double(value.tv_sec) + Double(value.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// The peak resident memory so far (`VmHWM`), in bytes; nil where `/proc` does not say.
    static func peakResidentBytes() -> Int? { statusKilobytes("VmHWM:").map { $0 * 1024 } }

    /// The resident memory now (`VmRSS`), in bytes.
    static func residentBytes() -> Int? { statusKilobytes("VmRSS:").map { $0 * 1024 } }

    /// A `NAME: N kB` line of `/proc/self/status`.
    private static func statusKilobytes(_ name: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name) })
        else { return nil }
        let number = line.dropFirst(name.count).trimmingCharacters(in: .whitespaces).split(separator: " ").first
        return number.flatMap { Int($0) }
    }
}
