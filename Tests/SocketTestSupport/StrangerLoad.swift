import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What strangers with no account do to a server's door, from loopback addresses of their own
/// (127.0.0.2 and up: the honest client stays on 127.0.0.1), bounded in count and time:
/// silent sockets, WebSocket clients that send junk and never read, wrong-password hello
/// floods, and request bodies trickled a byte at a time. Plain blocking sockets, run off the
/// cooperative pool; every socket has a send timeout, so nothing here blocks for long.
public enum StrangerLoad {
    /// `count` loopback addresses for strangers: 127.0.0.2, 127.0.0.3, ...
    public static func addresses(_ count: Int) -> [String] {
        (0..<max(0, min(count, 250))).map { "127.0.0.\($0 + 2)" }
    }

    /// A TCP connection from `source` to 127.0.0.1:`port`, or nil after three tries (a
    /// connect that finds the server's accept backlog full times out after 1 s). `receiveBuffer`
    /// shrinks the socket's receive buffer (a client that does not read then stops the
    /// server's writes soon).
    public static func connect(from source: String, port: Int, receiveBuffer: Int32? = nil) -> Int32? {
        for _ in 0..<3 {
            if let fd = connectOnce(from: source, port: port, receiveBuffer: receiveBuffer) { return fd }
        }
        return nil
    }

    /// The lowest descriptor a stranger's socket takes. Foundation's `Process` watches its
    /// children through a CFSocket whose manager thread `select()`s with an `fd_set`, which
    /// overflows (heap corruption, "double free or corruption") for a descriptor past 1023: a
    /// thousand strangers' sockets in the low descriptors pushed the pipes of a process that
    /// any other test spawned meanwhile past it, and the test process crashed. Up here they
    /// leave the low descriptors to everyone else (the tests raise the open-file limit; where
    /// it stays lower, a socket keeps the descriptor it got).
    public static let firstDescriptor: Int32 = 4096

    private static func connectOnce(from source: String, port: Int, receiveBuffer: Int32?) -> Int32? {
        let low = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard low >= 0 else { return nil }
        // Where the open-file limit does not reach that far, the socket stays where it is.
        let high = fcntl(low, F_DUPFD_CLOEXEC, firstDescriptor)
        let fd = high >= 0 ? high : low
        if high >= 0 { Glibc.close(low) }
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if var receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receiveBuffer, socklen_t(MemoryLayout<Int32>.size))
        }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, source, &local.sin_addr)
        var remote = sockaddr_in.loopback(port: UInt16(clamping: port))
        let connected = withUnsafePointer(to: &local) { local in
            withUnsafePointer(to: &remote) { remote in
                local.withMemoryRebound(to: sockaddr.self, capacity: 1) { local in
                    remote.withMemoryRebound(to: sockaddr.self, capacity: 1) { remote in
                        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
                        return bind(fd, local, size) == 0 && Glibc.connect(fd, remote, size) == 0
                    }
                }
            }
        }
        guard connected else {
            Glibc.close(fd)
            return nil
        }
        return fd
    }

    /// Sends all of `bytes`; false if the socket would not take them (closed, or its send
    /// timeout passed: the peer does not read).
    @discardableResult
    public static func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return false }
            sent += n
        }
        return true
    }

    /// Closes every socket.
    public static func close(_ fds: [Int32]) {
        for fd in fds { Glibc.close(fd) }
    }

    /// Whether the server closed `fd` (a read returns end of stream or a reset), waiting at
    /// most the socket's receive timeout; data that comes first is read and dropped.
    public static func isClosedByPeer(_ fd: Int32) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { return true }
            if n < 0 { return errno == ECONNRESET }
        }
    }

    // MARK: Silent sockets

    /// `count` connections that never send a byte, spread evenly over `addresses` strangers;
    /// those the server did not accept are left out.
    public static func silentSockets(_ count: Int, port: Int, addresses: Int) -> [Int32] {
        let sources = Self.addresses(addresses)
        return (0..<count).compactMap { connect(from: sources[$0 % sources.count], port: port) }
    }

    // MARK: WebSocket clients

    /// The HTTP request that opens a WebSocket at `path`.
    public static func upgradeRequest(path: String) -> [UInt8] {
        Array(
            ("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8
        )
    }

    /// A client's (masked) text frame.
    public static func textFrame(_ text: String) -> [UInt8] {
        let payload = Array(text.utf8)
        var frame: [UInt8] = [0x81]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else {
            frame.append(0x80 | 126)
            frame += [UInt8(payload.count >> 8 & 0xFF), UInt8(payload.count & 0xFF)]
        }
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return frame
    }

    /// `count` WebSocket clients spread over `addresses` strangers, each sending `frames` junk
    /// messages and never reading (a tiny receive buffer: the server's answers back up at once).
    public static func nonReadingWebSockets(
        _ count: Int,
        port: Int,
        path: String,
        addresses: Int,
        frames: Int
    ) -> [Int32] {
        let sources = Self.addresses(addresses)
        let junk = textFrame(#"{"type":"nonsense","junk":"\#(String(repeating: "x", count: 100))"}"#)
        return (0..<count).compactMap { index in
            guard let fd = connect(from: sources[index % sources.count], port: port, receiveBuffer: 1024) else {
                return nil
            }
            send(fd, upgradeRequest(path: path))
            for _ in 0..<frames where send(fd, junk) {}
            return fd
        }
    }

    /// What one WebSocket login got: the first error code the server sent (nil: a welcome, or
    /// nothing).
    public static func login(from source: String, port: Int, path: String, token: String) -> Int? {
        guard let fd = connect(from: source, port: port) else { return nil }
        defer { Glibc.close(fd) }
        guard send(fd, upgradeRequest(path: path)),
            send(fd, textFrame(#"{"type":"hello","token":"\#(token)"}"#))
        else { return nil }
        // Read until the first frame after the 101 response has come (or the server closed).
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { received += buffer[0..<n] }
            if n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) { break }
            if let text = firstTextFrame(in: received) {
                guard let range = text.range(of: #""code":"#) else { return nil }
                return Int(text[range.upperBound...].prefix { $0.isNumber })
            }
        }
        return nil
    }

    /// The payload of the first server frame after the HTTP response, once it has all come.
    static func firstTextFrame(in bytes: [UInt8]) -> String? {
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        guard
            let headerEnd = (0...max(0, bytes.count - 4)).first(where: {
                Array(bytes[$0..<min($0 + 4, bytes.count)]) == end
            })
        else { return nil }
        var at = headerEnd + 4
        guard bytes.count >= at + 2 else { return nil }
        var length = Int(bytes[at + 1] & 0x7F)
        at += 2
        if length == 126 {
            guard bytes.count >= at + 2 else { return nil }
            length = Int(bytes[at]) << 8 | Int(bytes[at + 1])
            at += 2
        } else if length == 127 {
            return nil
        }
        guard bytes.count >= at + length else { return nil }
        return String(decoding: bytes[at..<(at + length)], as: UTF8.self)
    }

    // MARK: Slow bodies

    /// A POST of `contentLength` bytes of body to `path`, the headers at once and then one
    /// byte every `interval`, until the server answers or closes; what it answered (the status
    /// line), or nil if it closed without a word. At most `maxBytes` body bytes are sent.
    public static func slowPost(
        from source: String,
        port: Int,
        path: String,
        headers: [String: String],
        contentLength: Int,
        interval: Duration,
        maxBytes: Int
    ) -> String? {
        guard let fd = connect(from: source, port: port) else { return nil }
        defer { Glibc.close(fd) }
        var request = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(contentLength)\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        guard send(fd, Array((request + "\r\n").utf8)) else { return nil }
        var flags = fcntl(fd, F_GETFL)
        flags |= O_NONBLOCK
        _ = fcntl(fd, F_SETFL, flags)
        var buffer = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<maxBytes {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { return String(decoding: buffer[0..<n], as: UTF8.self).components(separatedBy: "\r\n").first }
            if n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) { return nil }
            guard send(fd, [UInt8(ascii: "v")]) else { return nil }
            let (seconds, attoseconds) = interval.components
            usleep(UInt32(clamping: seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
        }
        return nil
    }

    // MARK: Request floods

    /// Sends `request` (a whole HTTP/1.1 request) over and over on keep-alive connections from
    /// `source` until `deadline`, reading each answer (headers, then `Content-Length` bytes of
    /// body) before the next; a connection the server closes is opened again. Returns how
    /// many answers came with each status code.
    public static func requestFlood(
        from source: String,
        port: Int,
        request: [UInt8],
        until deadline: ContinuousClock.Instant
    ) -> [Int: Int] {
        var statuses: [Int: Int] = [:]
        var fd: Int32?
        defer { if let fd { Glibc.close(fd) } }
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while ContinuousClock.now < deadline {
            if fd == nil {
                fd = connect(from: source, port: port)
                pending = []
                guard fd != nil else { continue }
            }
            guard let socket = fd, send(socket, request) else {
                if let open = fd { Glibc.close(open) }
                fd = nil
                continue
            }
            // One answer: the head, then its body.
            var status: Int?
            while status == nil, ContinuousClock.now < deadline {
                if let end = headEnd(pending) {
                    let head = String(decoding: pending[..<end], as: UTF8.self)
                    let length =
                        head.components(separatedBy: "\r\n").first {
                            $0.lowercased().hasPrefix("content-length:")
                        }.flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) }
                        ?? 0
                    guard pending.count >= end + 4 + length else {
                        guard read(socket, into: &buffer, appendingTo: &pending) else { break }
                        continue
                    }
                    status = Int(head.split(separator: " ").dropFirst().first ?? "")
                    pending.removeFirst(end + 4 + length)
                } else if !read(socket, into: &buffer, appendingTo: &pending) {
                    break
                }
            }
            guard let status else {
                Glibc.close(socket)
                fd = nil
                continue
            }
            statuses[status, default: 0] += 1
        }
        return statuses
    }

    /// Where the head of an HTTP message ends (the index of its blank line's `\r\n\r\n`).
    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    /// Reads what is there (waiting at most the receive timeout) onto `pending`; false when
    /// the connection ended or nothing came.
    private static func read(_ fd: Int32, into buffer: inout [UInt8], appendingTo pending: inout [UInt8]) -> Bool {
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return false }
        pending += buffer[0..<n]
        return true
    }
}
