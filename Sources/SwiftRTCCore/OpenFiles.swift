import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// This process's file descriptors: how many are open and the limit on them.
///
/// A server that faces strangers raises its soft limit to the hard one when it starts
/// (a systemd service gets 1024 soft), sizes its connection limits to what is left, and
/// reports both in `/metrics`: every socket, file and ICE agent takes descriptors, and a
/// process that runs out cannot accept, open a recording or read `/proc`.
public enum OpenFiles {
    /// Raises the soft open-file limit to the hard one; returns the limit now in force.
    @discardableResult
    public static func raiseLimit() -> Int {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
            getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        return limit.rlim_cur > UInt64(Int.max) ? Int.max : Int(limit.rlim_cur)
    }

    /// The soft open-file limit in force.
    public static var limit: Int {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        return limit.rlim_cur > UInt64(Int.max) ? Int.max : Int(limit.rlim_cur)
    }

    /// Descriptors open now (entries of `/proc/self/fd`).
    public static var count: Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }
}
