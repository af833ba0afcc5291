import Foundation
import SwiftRTCCapture
import SwiftRTCRTP

/// Paths and loaders for the recorded fixtures in this package's `Fixtures/`.
package enum Fixtures {
    /// What a producer sent in one of our captures (`Fixtures/rtp/expected.json`).
    package struct Expected {
        package var ssrc: UInt32
        package var codec: String
        package var frames: [(size: Int, keyframe: Bool)]
        package var width: Int?
        package var height: Int?
    }

    /// The frames the producer of `file` sent, from its own output.
    package static func expected(_ file: String) throws -> Expected {
        let all = try Fixtures.json(Fixtures.own.appendingPathComponent("expected.json"))
        let e = all[file] as! [String: Any]
        return Expected(
            ssrc: UInt32(e["ssrc"] as! Int),
            codec: e["codec"] as! String,
            frames: (e["frames"] as! [[String: Any]]).map { ($0["size"] as! Int, $0["keyframe"] as! Bool) },
            width: e["width"] as? Int,
            height: e["height"] as? Int
        )
    }

    package static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    /// `Fixtures/`, with `rtp/`, `sdp/` and `vectors/` in it.
    package static let directory = packageRoot.appendingPathComponent("Fixtures")
    /// `Fixtures/rtp`: the captures and packets.
    package static let own = directory.appendingPathComponent("rtp")

    package static func bytes(_ url: URL) throws -> [UInt8] { Array(try Data(contentsOf: url)) }

    package static func aiortc(_ name: String) throws -> [UInt8] {
        try bytes(own.appendingPathComponent("packets/aiortc/\(name)"))
    }

    package static func json(_ url: URL) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
    }

    /// The UDP payloads of a capture.
    package static func datagrams(_ url: URL) throws -> [CaptureReader.Datagram] {
        Array(try CaptureReader(bytes: bytes(url)))
    }

    /// The RTP packets (as byte arrays) of `ssrc` in a capture, in capture order.
    package static func rtpPackets(_ url: URL, ssrc: UInt32) throws -> [[UInt8]] {
        try datagrams(url).map(\.payload).filter { payload in
            payload.withUnsafeBytes { b in
                !RTPDemultiplexer.isRTCP(b) && RTPDemultiplexer.isRTPOrRTCP(b)
                    && (try? RTPPacket(parsing: b))?.ssrc == ssrc
            }
        }
    }
}

extension Array where Element == UInt8 {
    package init(hex: String) {
        var bytes: [UInt8] = []
        var iterator = hex.filter { !$0.isWhitespace }.makeIterator()
        while let a = iterator.next(), let b = iterator.next() { bytes.append(UInt8(String([a, b]), radix: 16)!) }
        self = bytes
    }

    package var hex: String { map { String(format: "%02x", $0) }.joined() }

    /// Parses the bytes as RTP and runs `body` on the view.
    @discardableResult
    package func withRTP<R>(_ body: (RTPPacket) throws -> R) throws -> R {
        try withUnsafeBytes { try body(try RTPPacket(parsing: $0)) }
    }
}

/// Builds packets into a fresh array with the writer.
package func writeRTP(
    _ header: RTPHeader,
    capacity: Int = 1500,
    form: RTPPacketWriter.ExtensionForm = .oneByte,
    _ body: (inout RTPPacketWriter) throws -> Void
) throws -> [UInt8] {
    var out = [UInt8](repeating: 0xEE, count: capacity)
    let length = try out.withUnsafeMutableBytes { buffer in
        var writer = try RTPPacketWriter(into: buffer, header: header, extensionForm: form)
        try body(&writer)
        return try writer.finish()
    }
    return Array(out[..<length])
}
