import CSRTP
import SwiftRTCCore

/// The remote SSRCs the inbound libsrtp context holds a stream for, bounded.
///
/// libsrtp clones a stream (keys, replay window) for every new SSRC that authenticates under
/// the `ssrc_any_inbound` template, and never frees one by itself: a peer with the keys could
/// grow the context without end by changing SSRCs. At most
/// ``RemoteInputLimits/maxRemoteSSRCsPerTransport`` are kept; a further one removes the least
/// recently used stream (`srtp_remove_stream`), which starts afresh if its SSRC comes back.
///
/// Used under the session's inbound lock. The arrays are allocated once; admitting a packet
/// scans at most the limit's SSRCs, starting with the last one seen.
struct SrtpInboundStreams {
    /// SSRCs as on the wire (network byte order, as libsrtp keys its streams).
    private var ssrcs: [UInt32] = []
    private var lastUse: [UInt64] = []
    private var clock: UInt64 = 0
    private var lastIndex = 0
    /// Streams removed to make room for a new SSRC.
    private(set) var evicted: UInt64 = 0

    init() {
        ssrcs.reserveCapacity(RemoteInputLimits.maxRemoteSSRCsPerTransport)
        lastUse.reserveCapacity(RemoteInputLimits.maxRemoteSSRCsPerTransport)
    }

    /// How many SSRCs have a stream now.
    var count: Int { ssrcs.count }

    /// Notes that a packet of `wireSSRC` was unprotected in `context`; makes room if it is new
    /// and the table is full.
    mutating func admit(_ wireSSRC: UInt32, in context: srtp_t) {
        clock &+= 1
        if lastIndex < ssrcs.count, ssrcs[lastIndex] == wireSSRC {
            lastUse[lastIndex] = clock
            return
        }
        if let index = ssrcs.firstIndex(of: wireSSRC) {
            lastUse[index] = clock
            lastIndex = index
            return
        }
        if ssrcs.count < RemoteInputLimits.maxRemoteSSRCsPerTransport {
            ssrcs.append(wireSSRC)
            lastUse.append(clock)
            lastIndex = ssrcs.count - 1
            return
        }
        var oldest = 0
        for index in lastUse.indices where lastUse[index] < lastUse[oldest] { oldest = index }
        _ = srtp_remove_stream(context, ssrcs[oldest])
        evicted &+= 1
        ssrcs[oldest] = wireSSRC
        lastUse[oldest] = clock
        lastIndex = oldest
    }
}
