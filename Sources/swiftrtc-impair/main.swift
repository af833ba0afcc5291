// swiftrtc-impair: the userspace impairment bridge of the network fault tests
// (Tests/NetworkFaultTests). This kernel has no netem, so delay, jitter, reordering and
// duplication are done here: the tool runs in a middle network namespace that holds one end of
// two veth pairs, and bridges Ethernet frames between them through AF_PACKET sockets, so the
// two endpoint namespaces share one subnet and ICE sees plain host candidates. ARP, TCP (the
// WHIP HTTP) and everything else cross at once; UDP frames (STUN, DTLS, SRTP) are held
// back per the flags.
//
//   swiftrtc-impair --between IF_A IF_B [--delay-ms D] [--jitter-ms J]
//                   [--reorder-percent P --reorder-ms R] [--duplicate-percent P] [--seed S]
//
// Each UDP frame is sent after D ± J ms (uniform), plus R ms for a random P% of frames
// (they then arrive behind later ones); a random P% of frames is sent twice. Prints `READY`
// once both sockets are bound and `STATS ...` (counts since the start) every second. One
// thread; stop it with SIGTERM. The endpoints' veth ends need their offloads off
// (`ethtool -K IF tx off tso off gso off`): frames are forwarded as they are, so checksums
// must be complete and frames no bigger than the MTU.
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `struct sockaddr_ll` of <netpacket/packet.h> (not imported by Swift's Glibc module).
struct LinkLayerAddress {
    var family = UInt16(AF_PACKET)
    var networkProtocol: UInt16 = 0
    var interfaceIndex: Int32 = 0
    var hardwareType: UInt16 = 0
    var packetType: UInt8 = 0
    var addressLength: UInt8 = 0
    var address: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0, 0, 0)
}

let ethPAll: UInt16 = 0x0003
let packetOutgoing: UInt8 = 4

/// What the command line asked for.
struct Settings {
    var interfaces: [String] = []
    var delayMs = 0.0
    var jitterMs = 0.0
    var reorderPercent = 0.0
    var reorderMs = 0.0
    var duplicatePercent = 0.0
    var seed: UInt64 = 0x5EED_F00D

    static let usage =
        "usage: swiftrtc-impair --between IF_A IF_B [--delay-ms D] [--jitter-ms J] [--reorder-percent P --reorder-ms R] [--duplicate-percent P] [--seed S]"

    init(arguments: [String]) throws {
        var rest = arguments[...]
        func number(_ flag: String) throws -> Double {
            guard let text = rest.popFirst(), let value = Double(text), value >= 0, value.isFinite else {
                throw UsageError("\(flag) needs a number ≥ 0")
            }
            return value
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "--between":
                guard let a = rest.popFirst(), let b = rest.popFirst() else {
                    throw UsageError("--between needs two interface names")
                }
                interfaces = [a, b]
            case "--delay-ms": delayMs = try number(flag)
            case "--jitter-ms": jitterMs = try number(flag)
            case "--reorder-percent": reorderPercent = try number(flag)
            case "--reorder-ms": reorderMs = try number(flag)
            case "--duplicate-percent": duplicatePercent = try number(flag)
            case "--seed": seed = UInt64(try number(flag))
            default: throw UsageError("unknown argument \(flag)")
            }
        }
        guard interfaces.count == 2 else { throw UsageError("--between IF_A IF_B is required") }
        guard jitterMs <= delayMs else {
            throw UsageError("--jitter-ms must not exceed --delay-ms (no negative delays)")
        }
        guard reorderPercent <= 100, duplicatePercent <= 100 else { throw UsageError("percentages are 0...100") }
    }
}

struct UsageError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// xorshift64*: reproducible impairments for a given --seed.
struct Random {
    var state: UInt64
    init(seed: UInt64) { state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed }
    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
    /// Uniform in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}

/// A frame waiting for its time, in a min-heap by (due, order).
struct Pending {
    var due: UInt64
    var order: UInt64
    var socket: Int32
    var bytes: [UInt8]
    static func < (a: Pending, b: Pending) -> Bool { a.due != b.due ? a.due < b.due : a.order < b.order }
}

struct Heap {
    private(set) var items: [Pending] = []
    var first: Pending? { items.first }
    mutating func push(_ item: Pending) {
        items.append(item)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child] < items[parent] else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }
    mutating func pop() -> Pending? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let top = items.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < items.count, items[left] < items[smallest] { smallest = left }
            if right < items.count, items[right] < items[smallest] { smallest = right }
            guard smallest != parent else { break }
            items.swapAt(parent, smallest)
            parent = smallest
        }
        return top
    }
}

/// Counts since the start, printed every second.
struct Counters {
    var frames = 0, udp = 0, delayed = 0, reordered = 0, duplicated = 0, sendErrors = 0
    var udpPerDirection = [0, 0]
    var line: String {
        "STATS frames=\(frames) udp=\(udp) udp_a_to_b=\(udpPerDirection[0]) udp_b_to_a=\(udpPerDirection[1]) delayed=\(delayed) reordered=\(reordered) duplicated=\(duplicated) send_errors=\(sendErrors)"
    }
}

func nowNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// A line on standard output, written at once (the tests wait for READY and read STATS).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("swiftrtc-impair: \(message)\n".utf8))
    exit(1)
}

/// An AF_PACKET socket bound to `interface`, receiving every protocol.
func openPacketSocket(_ interface: String) -> Int32 {
    let index = if_nametoindex(interface)
    guard index != 0 else { fail("no interface \(interface) in this network namespace") }
    let fd = socket(AF_PACKET, Int32(SOCK_RAW.rawValue), Int32(ethPAll.bigEndian))
    guard fd >= 0 else { fail("socket(AF_PACKET) failed: errno \(errno) (needs CAP_NET_RAW, i.e. root)") }
    var size: Int32 = 4 << 20
    _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, socklen_t(MemoryLayout<Int32>.size))
    _ = setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, socklen_t(MemoryLayout<Int32>.size))
    var address = LinkLayerAddress()
    address.networkProtocol = ethPAll.bigEndian
    address.interfaceIndex = Int32(index)
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, socklen_t(MemoryLayout<LinkLayerAddress>.size))
        }
    }
    guard bound == 0 else { fail("bind to \(interface) failed: errno \(errno)") }
    return fd
}

/// Whether an Ethernet frame carries UDP over IPv4 (protocol at byte 9 of the IP header) or
/// IPv6 (next header at byte 6; extension headers are not followed).
func isUDP(_ frame: UnsafeRawBufferPointer) -> Bool {
    guard frame.count >= 14 else { return false }
    switch (frame[12], frame[13]) {
    case (0x08, 0x00): return frame.count >= 14 + 20 && frame[14 + 9] == 17
    case (0x86, 0xDD): return frame.count >= 14 + 40 && frame[14 + 6] == 17
    default: return false
    }
}

/// The bridge: two packet sockets, the queue of held-back frames, the counters.
final class Bridge {
    let settings: Settings
    let sockets: [Int32]
    var random: Random
    var heap = Heap()
    var counters = Counters()
    var order: UInt64 = 0
    var buffer = [UInt8](repeating: 0, count: 65_536)

    init(settings: Settings) {
        self.settings = settings
        sockets = settings.interfaces.map(openPacketSocket)
        random = Random(seed: settings.seed)
    }

    func send(_ bytes: UnsafeRawBufferPointer, on socket: Int32) {
        if Glibc.send(socket, bytes.baseAddress, bytes.count, 0) < 0 { counters.sendErrors += 1 }
    }

    /// Handles one received frame from `side` (0 or 1): forwards it now or queues it.
    func handle(_ frame: UnsafeRawBufferPointer, from side: Int) {
        let out = sockets[1 - side]
        counters.frames += 1
        guard isUDP(frame) else { return send(frame, on: out) }
        counters.udp += 1
        counters.udpPerDirection[side] += 1
        var delayMs = settings.delayMs + (random.unit() * 2 - 1) * settings.jitterMs
        if settings.reorderPercent > 0, random.unit() * 100 < settings.reorderPercent {
            delayMs += settings.reorderMs
            counters.reordered += 1
        }
        let copies = settings.duplicatePercent > 0 && random.unit() * 100 < settings.duplicatePercent ? 2 : 1
        if copies == 2 { counters.duplicated += 1 }
        guard delayMs > 0 else {
            for _ in 0..<copies { send(frame, on: out) }
            return
        }
        counters.delayed += 1
        let due = nowNanoseconds() + UInt64(delayMs * 1_000_000)
        for _ in 0..<copies {
            order += 1
            heap.push(Pending(due: due, order: order, socket: out, bytes: Array(frame)))
        }
    }

    /// Receives every frame waiting on `side`.
    func drain(_ side: Int) {
        while true {
            var from = LinkLayerAddress()
            var fromLength = socklen_t(MemoryLayout<LinkLayerAddress>.size)
            let socket = sockets[side]
            let count = buffer.withUnsafeMutableBytes { bytes in
                withUnsafeMutablePointer(to: &from) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        recvfrom(socket, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT), $0, &fromLength)
                    }
                }
            }
            guard count > 0 else { return }
            // A packet socket also sees the frames sent on its interface (ours among them).
            if from.packetType == packetOutgoing { continue }
            buffer.withUnsafeBytes { handle(UnsafeRawBufferPointer(rebasing: $0[..<count]), from: side) }
        }
    }

    func run() -> Never {
        var descriptors = sockets.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        var nextStats = nowNanoseconds() + 1_000_000_000
        say(
            "READY bridging \(settings.interfaces[0]) <-> \(settings.interfaces[1]) delay=\(settings.delayMs)±\(settings.jitterMs)ms reorder=\(settings.reorderPercent)%+\(settings.reorderMs)ms duplicate=\(settings.duplicatePercent)%"
        )
        while true {
            let now = nowNanoseconds()
            let untilDue = heap.first.map { $0.due > now ? Int32(($0.due - now + 999_999) / 1_000_000) : 0 } ?? 1000
            let untilStats = nextStats > now ? Int32((nextStats - now + 999_999) / 1_000_000) : 0
            if poll(&descriptors, nfds_t(descriptors.count), min(untilDue, untilStats)) < 0, errno != EINTR {
                fail("poll failed: errno \(errno)")
            }
            for side in 0..<2 where descriptors[side].revents & Int16(POLLIN) != 0 { drain(side) }
            let sendTime = nowNanoseconds()
            while let first = heap.first, first.due <= sendTime, let item = heap.pop() {
                item.bytes.withUnsafeBytes { send($0, on: item.socket) }
            }
            if sendTime >= nextStats {
                say(counters.line)
                nextStats = sendTime + 1_000_000_000
            }
        }
    }
}

do {
    Bridge(settings: try Settings(arguments: Array(CommandLine.arguments.dropFirst()))).run()
} catch {
    FileHandle.standardError.write(Data("swiftrtc-impair: \(error)\n\(Settings.usage)\n".utf8))
    exit(2)
}
