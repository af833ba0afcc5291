import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// CPU time and memory of this process, for the figures of a scenario.
struct ProcessUsage {
    var user: Double
    var system: Double
    /// Peak resident memory so far (getrusage `ru_maxrss`), in MB.
    var maxRSSMegabytes: Double

    /// The usage now.
    static func now() -> ProcessUsage {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return ProcessUsage(
            user: seconds(usage.ru_utime),
            system: seconds(usage.ru_stime),
            maxRSSMegabytes: Double(usage.ru_maxrss) / 1024
        )
    }

    /// CPU time spent since `start`.
    func since(_ start: ProcessUsage) -> (user: Double, system: Double) {
        (user - start.user, system - start.system)
    }

    private static func seconds(_ value: timeval) -> Double {
        Double(value.tv_sec) + Double(value.tv_usec) / 1e6
    }

    /// The resident memory now (`/proc/self/statm`), in bytes.
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Gives freed heap memory back to the system (`malloc_trim`), so that resident memory
    /// measures what is in use rather than what earlier scenarios freed.
    /// (glibc's `malloc.h` is not in the Glibc module: found with `dlsym`.)
    static func trimHeap() {
        typealias MallocTrim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(nil, "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
    }

    /// Heap bytes in use now: glibc's `malloc_info` (all arenas), its memory taken from the
    /// system less what lies free in its bins, plus chunks mapped on their own.
    static func heapInUseBytes() -> Int {
        typealias MallocInfo = @convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32
        guard let symbol = dlsym(nil, "malloc_info") else { return 0 }
        var buffer: UnsafeMutablePointer<CChar>?
        var length = 0
        guard let stream = open_memstream(&buffer, &length) else { return 0 }
        _ = unsafeBitCast(symbol, to: MallocInfo.self)(0, stream)
        fclose(stream)
        guard let buffer else { return 0 }
        defer { free(buffer) }
        // The totals follow the last </heap>.
        let text = String(cString: buffer)
        guard let totals = text.range(of: "</heap>", options: .backwards).map({ text[$0.upperBound...] }) else {
            return 0
        }
        func size(of element: String) -> Int {
            guard let start = totals.range(of: element)?.upperBound,
                let sizeKey = totals[start...].range(of: "size=\"")?.upperBound,
                let end = totals[sizeKey...].firstIndex(of: "\"")
            else { return 0 }
            return Int(totals[sizeKey..<end]) ?? 0
        }
        return size(of: "<system type=\"current\"") - size(of: "<total type=\"fast\"")
            - size(of: "<total type=\"rest\"")
            + size(of: "<total type=\"mmap\"")
    }

    /// Threads of this process now (`/proc/self/status`).
    static func threadCount() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Threads:") })
        else { return 0 }
        return Int(line.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces)) ?? 0
    }

    /// Raises the open-file limit to the hard limit (every ICE agent holds sockets, and GLib
    /// an eventfd per main context user): a thousand calls need a few thousand descriptors.
    static func raiseFileLimit() -> Int {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        return Int(limit.rlim_cur)
    }
}

/// Median and other percentiles of measured values.
extension Array where Element == Double {
    /// The `p`-th percentile (0...1) by nearest rank; nil when empty.
    func percentile(_ p: Double) -> Double? {
        guard !isEmpty else { return nil }
        let sorted = self.sorted()
        let rank = Int((p * Double(sorted.count)).rounded(.up)) - 1
        return sorted[Swift.min(Swift.max(rank, 0), sorted.count - 1)]
    }
}
