// SRTP protect and protect+unprotect of 1200-byte RTP packets, per profile, on stock libsrtp
// crypto (NSS on Debian) and on the nettle-backed replacements (SrtpCrypto). Packets per
// second (throughput), time and heap allocations per packet.
//
// For scale, measured on this machine (DESIGN.md): plain UDP 252k packets/s; a C loop of stock
// libsrtp AES-CM-80 + UDP 106k/s, GCM 162k/s; pion (AES-CM) 112k/s.
//
//     swift package --allow-writing-to-package-directory benchmark --target SRTPBenchmarks
import Benchmark
import SwiftRTCSRTP

/// One sending and one receiving session with a packet buffer, reused by every iteration.
final class SrtpBenchmarkState: @unchecked Sendable {
    // @unchecked: used by one benchmark closure at a time.
    static let packetLength = 1200
    let sender: SrtpSession
    let receiver: SrtpSession
    let buffer: UnsafeMutableRawBufferPointer
    var sequence: UInt16 = 0

    init(profile: SrtpProfile, crypto: SrtpCrypto) {
        let local = SrtpMasterKey(
            key: (0..<profile.keyLength).map { UInt8($0) },
            salt: (0..<profile.saltLength).map { UInt8($0 + 100) }
        )
        let remote = SrtpMasterKey(
            key: (0..<profile.keyLength).map { UInt8($0 + 50) },
            salt: (0..<profile.saltLength).map { UInt8($0 + 200) }
        )
        do {
            sender = try SrtpSession(profile: profile, local: local, remote: remote, crypto: crypto)
            receiver = try SrtpSession(profile: profile, local: remote, remote: local, crypto: crypto)
        } catch {
            fatalError("SRTP session: \(error)")
        }
        buffer = .allocate(byteCount: Self.packetLength + 64, alignment: 16)
        // RTP header: V=2, PT 96, sequence, timestamp, SSRC; then payload.
        buffer.copyBytes(from: [0x80, 96, 0, 0, 0, 0, 0, 0, 0x12, 0x34, 0x56, 0x78])
        for i in 12..<Self.packetLength { buffer[i] = UInt8(truncatingIfNeeded: i) }
    }

    @inline(__always)
    func nextPacket() {
        sequence &+= 1
        buffer[2] = UInt8(sequence >> 8)
        buffer[3] = UInt8(truncatingIfNeeded: sequence)
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        scalingFactor: .kilo,
        maxDuration: .seconds(1),
        maxIterations: 10_000
    )

    let cases: [(SrtpProfile, String, [SrtpCrypto])] = [
        (.aes128CmHmacSha1_80, "AES-CM-80", [.stock, .nettle]),
        (.aes128CmHmacSha1_32, "AES-CM-32", [.stock, .nettle]),
        (.aeadAes128Gcm, "AEAD-AES-128-GCM", [.stock, .nettle]),
        (.aeadAes256Gcm, "AEAD-AES-256-GCM", [.stock, .nettle]),
    ]
    for (profile, name, cryptos) in cases {
        for crypto in cryptos {
            let label = "\(name) \(crypto)"

            let protectOnly = SrtpBenchmarkState(profile: profile, crypto: crypto)
            Benchmark("\(label) protect 1200 B") { benchmark in
                for _ in benchmark.scaledIterations {
                    protectOnly.nextPacket()
                    blackHole(
                        try? protectOnly.sender.protectRTP(protectOnly.buffer, length: SrtpBenchmarkState.packetLength)
                    )
                }
            }

            let roundTrip = SrtpBenchmarkState(profile: profile, crypto: crypto)
            Benchmark("\(label) protect+unprotect 1200 B") { benchmark in
                for _ in benchmark.scaledIterations {
                    roundTrip.nextPacket()
                    let buffer = roundTrip.buffer
                    guard
                        let length = try? roundTrip.sender.protectRTP(buffer, length: SrtpBenchmarkState.packetLength),
                        let plain = try? roundTrip.receiver.unprotectRTP(buffer, length: length)
                    else { fatalError("SRTP round trip failed") }
                    blackHole(plain)
                }
            }
        }
    }
}
