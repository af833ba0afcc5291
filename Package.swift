// swift-tools-version: 6.1
//
// SwiftRTC: a WebRTC media stack in Swift for Linux, and `callbot`, the headless call bot.
// The targets follow the layer table of DESIGN.md; a layer depends only on layers below it:
//
//   C shims        CNice CSRTP CGnuTLS COpus CVPX CAVFormat CSWResample (+ CSRTPNettle, libsrtp crypto callbacks;
//                  CSendmmsg, sendmmsg for Swift)
//   wire formats   SwiftRTCSDP SwiftRTCRTP              (pure Swift, no I/O, no C)
//   RTP behaviour  SwiftRTCReceive                      (jitter buffer, frame assembly, reception stats, NACK, RTX)
//                  SwiftRTCCongestion                   (GCC, REMB, transport-cc feedback, pacing, the controller)
//                  SwiftRTCCapture                      (pcap/pcapng reading and stream analysis, for callbot rtp)
//   transport      SwiftRTCICE SwiftRTCDTLS SwiftRTCSRTP   (DTLS sends through a DatagramSender, ICE in a call, and keys SRTP)
//   media          SwiftRTCCodecs SwiftRTCMedia
//   peer           SwiftRTCPeer
//   calls          SwiftRTCSignaling SwiftRTCCalls (+ SwiftRTCSignalingServer, the embedded server)
//   apps           callbot, swiftrtc-bench
//
// SwiftRTCCore (logging level shared by the library and the bot) sits under all of them.
import PackageDescription

let package = Package(
    name: "SwiftRTC",
    platforms: [.macOS(.v15)],
    products: [
        // Everything (`import SwiftRTC`), or a layer and what it stands on: a WHIP bot takes
        // SwiftRTCPeer and SwiftRTCSignaling, and no signaling server comes with either.
        .library(name: "SwiftRTC", targets: ["SwiftRTC"]),
        .library(name: "SwiftRTCSDP", targets: ["SwiftRTCSDP"]),
        .library(name: "SwiftRTCRTP", targets: ["SwiftRTCRTP"]),
        .library(name: "SwiftRTCReceive", targets: ["SwiftRTCReceive"]),
        .library(name: "SwiftRTCCongestion", targets: ["SwiftRTCCongestion"]),
        .library(name: "SwiftRTCCapture", targets: ["SwiftRTCCapture"]),
        .library(name: "SwiftRTCCodecs", targets: ["SwiftRTCCodecs"]),
        .library(name: "SwiftRTCMedia", targets: ["SwiftRTCMedia"]),
        .library(name: "SwiftRTCPeer", targets: ["SwiftRTCPeer"]),
        .library(name: "SwiftRTCSignaling", targets: ["SwiftRTCSignaling"]),
        .library(name: "SwiftRTCCalls", targets: ["SwiftRTCCalls"]),
        .library(name: "SwiftRTCSignalingServer", targets: ["SwiftRTCSignalingServer"]),
        .library(name: "SwiftRTCJanus", targets: ["SwiftRTCJanus"]),
        .executable(name: "callbot", targets: ["callbot"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Micro-benchmarks with allocation counts (Benchmarks/<Name>Benchmarks targets,
        // run with `swift package benchmark`).
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        // HTTP server of the WHIP endpoint (and later the signaling server).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // The signaling server's WebSocket endpoint and the signaling WebSocket client.
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        // The signaling server's call log (SQLite) and password hashing.
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        // TLS: the WHIP endpoint and the signaling server serve https:// and wss:// (Hummingbird's
        // HummingbirdTLS over NIOSSL); the WHIP client speaks HTTP/1.1 over NIO (NIOHTTP1),
        // with NIOSSL for https://. Both were in the graph already (hummingbird-websocket's
        // client builds NIOSSL and its BoringSSL).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        // Deque: a data channel's received messages (already in the graph through swift-nio).
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // Many signaling server instances on one PostgreSQL: shared state, LISTEN/NOTIFY routing.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // Metrics: recorded through swift-metrics, exported by callbot for Prometheus at /metrics.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // Graceful shutdown: the servers are services of a ServiceGroup that SIGTERM drains
        // (already in the graph through Hummingbird).
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // HTTPFields: the Janus client asks for the `janus-protocol` WebSocket subprotocol
        // (already in the graph through Hummingbird).
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        // MARK: C shims: system libraries found with pkg-config, a shim.h each, no logic.
        // libnice's headers live under GLib's include path; its own .pc pulls in gthread's
        // -pthread, which SwiftPM rejects with a warning, so the library is found through
        // gobject-2.0 and the module map links nice and gio itself.
        .systemLibrary(
            name: "CNice",
            path: "Sources/CNice",
            pkgConfig: "gobject-2.0",
            providers: [.apt(["libnice-dev"])]
        ),
        // usrsctp (SCTP in user space, AF_CONN: over DTLS) for data channels. Not through
        // pkg-config: its Cflags are -D flags SwiftPM refuses; the shim defines them.
        .systemLibrary(
            name: "CUsrsctp",
            path: "Sources/CUsrsctp",
            providers: [.apt(["libusrsctp-dev"])]
        ),
        .systemLibrary(
            name: "CSRTP",
            path: "Sources/CSRTP",
            pkgConfig: "libsrtp2",
            providers: [.apt(["libsrtp2-dev"])]
        ),
        .systemLibrary(
            name: "CGnuTLS",
            path: "Sources/CGnuTLS",
            pkgConfig: "gnutls",
            providers: [.apt(["libgnutls28-dev"])]
        ),
        .systemLibrary(
            name: "COpus",
            path: "Sources/COpus",
            pkgConfig: "opus",
            providers: [.apt(["libopus-dev"])]
        ),
        .systemLibrary(
            name: "CVPX",
            path: "Sources/CVPX",
            pkgConfig: "vpx",
            providers: [.apt(["libvpx-dev"])]
        ),
        // C with code: nettle-backed AES-ICM-128, AES-GCM and HMAC-SHA1 callbacks
        // that replace libsrtp's NSS ones, and libsrtp's once-per-process initialisation
        // (nettle-dev; pkg-config is for system library targets only, hence linkedLibrary).
        .target(name: "CSRTPNettle", dependencies: ["CSRTP"], linkerSettings: [.linkedLibrary("nettle")]),
        // sendmmsg(2), which glibc declares only with _GNU_SOURCE (Swift's Glibc module has none).
        .target(name: "CSendmmsg"),
        // FFmpeg's libavformat: the WebM (Matroska) muxer used by SwiftRTCMedia's recorder.
        .systemLibrary(
            name: "CAVFormat",
            path: "Sources/CAVFormat",
            pkgConfig: "libavformat",
            providers: [.apt(["libavformat-dev"])]
        ),
        // FFmpeg's libswresample: sample rate and channel conversion (SwiftRTCMedia's AudioResampler).
        .systemLibrary(
            name: "CSWResample",
            path: "Sources/CSWResample",
            pkgConfig: "libswresample",
            providers: [.apt(["libswresample-dev"])]
        ),

        // MARK: Core
        .target(name: "SwiftRTCCore", dependencies: [.product(name: "Logging", package: "swift-log")]),

        // MARK: Wire formats (pure Swift)
        .target(name: "SwiftRTCSDP", dependencies: ["SwiftRTCCore"]),
        .target(name: "SwiftRTCRTP", dependencies: ["SwiftRTCCore"]),

        // MARK: RTP behaviour (pure Swift): receiving and loss recovery, congestion control and feedback; capture files
        // What a stream's receiver does with its packets (jitter buffer, frame assembly, RFC 3550
        // reception statistics) and the loss recovery between receiver and sender (NACK
        // generation, keyframe requests, NACK response from the packet history): behaviour over
        // the wire formats of SwiftRTCRTP, pure Swift.
        .target(name: "SwiftRTCReceive", dependencies: ["SwiftRTCCore", "SwiftRTCRTP"]),
        .target(name: "SwiftRTCCongestion", dependencies: ["SwiftRTCCore", "SwiftRTCRTP", "SwiftRTCSDP"]),
        .target(name: "SwiftRTCCapture", dependencies: ["SwiftRTCCore", "SwiftRTCRTP", "SwiftRTCReceive"]),

        // MARK: Secure transport
        .target(name: "SwiftRTCICE", dependencies: ["SwiftRTCCore", "SwiftRTCSDP", "CNice", "CSendmmsg"]),
        .target(name: "SwiftRTCDTLS", dependencies: ["SwiftRTCCore", "SwiftRTCSDP", "SwiftRTCSRTP", "CGnuTLS"]),
        .target(name: "SwiftRTCSRTP", dependencies: ["SwiftRTCCore", "CSRTP", "CSRTPNettle"]),
        .target(name: "SwiftRTCSCTP", dependencies: ["CUsrsctp"]),
        .target(
            name: "SwiftRTCDataChannel",
            dependencies: [
                "SwiftRTCCore", "SwiftRTCSCTP", .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),

        // MARK: Codecs and media
        .target(name: "SwiftRTCCodecs", dependencies: ["SwiftRTCCore", "COpus", "CVPX"]),
        .target(
            name: "SwiftRTCMedia",
            dependencies: ["SwiftRTCCore", "SwiftRTCCodecs", "CAVFormat", "CSWResample"]
        ),

        // MARK: Peer
        .target(
            name: "SwiftRTCPeer",
            dependencies: [
                "SwiftRTCCore", "SwiftRTCSDP", "SwiftRTCRTP", "SwiftRTCReceive", "SwiftRTCCongestion", "SwiftRTCICE",
                "SwiftRTCDTLS", "SwiftRTCSRTP", "SwiftRTCCodecs", "SwiftRTCMedia", "SwiftRTCDataChannel",
            ]
        ),

        // MARK: Calls
        .target(
            name: "SwiftRTCSignaling",
            dependencies: [
                "SwiftRTCCore", "SwiftRTCSDP",
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // The Janus WebSocket API (sessions, plugin handles, events, reconnection with claim):
        // signaling only, nothing of the media layers.
        .target(
            name: "SwiftRTCJanus",
            dependencies: [
                "SwiftRTCSignaling",
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The servers: the embedded signaling server (WebSocket, authentication, call log in
        // SQLite or PostgreSQL), the WHIP/WHEP endpoint, and the door both stand behind (TLS
        // identity, per-address limits, health and metrics routes). A target of its own so that
        // clients of the protocol build without Hummingbird's server, NIOSSL's server side or GRDB
        // (Scripts/check-protocol-only.sh).
        .target(
            name: "SwiftRTCSignalingServer",
            dependencies: [
                "SwiftRTCCore", "SwiftRTCSDP", "SwiftRTCSignaling",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                // PBKDF2 (`KDF.Insecure.PBKDF2`) for the users file's password hashes.
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["README.md"],
            // The web client served at `/` (HTML, CSS, JavaScript modules; no build step).
            resources: [.copy("WebClient")]
        ),
        .target(
            name: "SwiftRTCCalls",
            dependencies: [
                "SwiftRTCCore", "SwiftRTCSDP", "SwiftRTCRTP", "SwiftRTCICE", "SwiftRTCCodecs", "SwiftRTCMedia",
                "SwiftRTCPeer", "SwiftRTCSignaling", "SwiftRTCDataChannel", "SwiftRTCJanus",
            ]
        ),

        // MARK: Umbrella
        .target(
            name: "SwiftRTC",
            dependencies: [
                "SwiftRTCCore", "SwiftRTCSDP", "SwiftRTCRTP", "SwiftRTCReceive", "SwiftRTCCongestion", "SwiftRTCICE",
                "SwiftRTCDTLS", "SwiftRTCSRTP", "SwiftRTCCodecs", "SwiftRTCMedia", "SwiftRTCPeer",
                "SwiftRTCSignaling", "SwiftRTCCalls", "SwiftRTCSCTP", "SwiftRTCDataChannel", "SwiftRTCJanus",
            ]
        ),

        // MARK: Apps
        .executableTarget(
            name: "callbot",
            dependencies: [
                "SwiftRTC", "SwiftRTCCore", "SwiftRTCPeer", "SwiftRTCSignaling", "SwiftRTCSignalingServer",
                "SwiftRTCCapture",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // A bot's --metrics endpoint.
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // MARK: Examples: eight bots of a few lines each (Examples/README.md)
        .executableTarget(name: "recorder-bot", dependencies: ["SwiftRTC"], path: "Examples/recorder-bot"),
        .executableTarget(name: "announcer-bot", dependencies: ["SwiftRTC"], path: "Examples/announcer-bot"),
        .executableTarget(name: "transcriber-tap", dependencies: ["SwiftRTC"], path: "Examples/transcriber-tap"),
        .executableTarget(name: "whip-publisher", dependencies: ["SwiftRTC"], path: "Examples/whip-publisher"),
        .executableTarget(name: "call-responder", dependencies: ["SwiftRTC"], path: "Examples/call-responder"),
        .executableTarget(name: "voice-agent", dependencies: ["SwiftRTC"], path: "Examples/voice-agent"),
        .executableTarget(name: "chat-bot", dependencies: ["SwiftRTC"], path: "Examples/chat-bot"),
        .executableTarget(name: "room-recorder", dependencies: ["SwiftRTC"], path: "Examples/room-recorder"),

        // MARK: Benchmarks
        .executableTarget(
            name: "CodecsBenchmarks",
            dependencies: [
                "SwiftRTCCodecs", "SwiftRTCRTP", "COpus", .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/CodecsBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Ours vs bare libopus and vpxenc/vpxdec: Benchmarks/codec-compare.sh.
        .executableTarget(
            name: "CodecsCompare",
            dependencies: ["SwiftRTCCore", "SwiftRTCCodecs", "SwiftRTCRTP", "COpus"],
            path: "Benchmarks/CodecsCompare"
        ),
        // Plays an IVF and an Ogg Opus file into a WebM recording in real time (the media
        // tests kill it mid-recording to check that what was written stays playable).
        .executableTarget(name: "swiftrtc-record", dependencies: ["SwiftRTCCore", "SwiftRTCRTP", "SwiftRTCMedia"]),
        // The network fault tests' userspace impairment bridge (delay, jitter, reordering,
        // duplication; this kernel has no netem), run in a network namespace of its own.
        .executableTarget(name: "swiftrtc-impair"),
        // VAD, meters, test pattern, Ogg CRC and WebM muxing per frame.
        .executableTarget(
            name: "MediaBenchmarks",
            dependencies: [
                "SwiftRTCCore", "SwiftRTCMedia", "SwiftRTCCodecs", "SwiftRTCRTP",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/MediaBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // MARK: RTP benchmarks and fuzzers
        .executableTarget(
            name: "RTPBenchmarks",
            dependencies: [
                "SwiftRTCRTP", .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/RTPBenchmarks",
            exclude: ["README.md"],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "DtlsBenchmarks",
            dependencies: [
                "SwiftRTCCore", "SwiftRTCDTLS", .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/DtlsBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // MARK: Fuzzers (libFuzzer with -DFUZZING; Fuzz/README.md, Scripts/fuzz.sh)
        // The entry point: libFuzzer's driver with -DFUZZING, otherwise replay of files.
        .target(name: "FuzzerSupport", path: "Fuzz/FuzzerSupport"),
        // Every fuzzer's one-input body, one file each; FuzzRegressionTests replays the corpora
        // through them. Each fuzzer's seeds and findings (Fuzz/<Fuzzer>/) are data, not sources.
        .target(
            name: "FuzzTargets",
            dependencies: [
                "FuzzerSupport", "SwiftRTCCore", "SwiftRTCSDP", "SwiftRTCRTP", "SwiftRTCReceive", "SwiftRTCCongestion",
                "SwiftRTCCapture",
                "SwiftRTCICE", "SwiftRTCDTLS",
                "SwiftRTCCodecs", "SwiftRTCMedia", "SwiftRTCPeer", "SwiftRTCSignaling", "SwiftRTCSignalingServer",
                "SwiftRTCSCTP", "SwiftRTCDataChannel", "CUsrsctp", "SwiftRTCJanus", "SwiftRTCCalls",
            ],
            path: "Fuzz/FuzzTargets"
        ),
        // `swiftrtc-fuzz <Fuzzer>`: every fuzzer in one executable (one link for all).
        .executableTarget(name: "swiftrtc-fuzz", dependencies: ["FuzzTargets"], path: "Fuzz/swiftrtc-fuzz"),
        // Datagrams through two connected IceAgents on loopback, plain and SRTP-protected.
        .executableTarget(
            name: "TransportBenchmarks",
            dependencies: [
                "SwiftRTCICE", "SwiftRTCDTLS", "SwiftRTCSRTP", .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/TransportBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),

        // swiftrtc-bench: throughput, data channels, concurrent calls, setup time and memory against
        // the limits (Benchmarks/README.md); the limits' C loop runs as its own process, on stock
        // libsrtp (and usrsctp over GnuTLS for data channels).
        .target(
            name: "SwiftRTCBenchReport",
            dependencies: [.product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Benchmarks/SwiftRTCBenchReport"
        ),
        .executableTarget(
            name: "swiftrtc-bench",
            dependencies: [
                "SwiftRTCBenchReport", "SwiftRTCCore", "SwiftRTCPeer", "SwiftRTCSDP", "SwiftRTCDTLS", "SwiftRTCICE",
                "SwiftRTCSRTP", "SwiftRTCCodecs", "SwiftRTCMedia", "SwiftRTCRTP", "SwiftRTCDataChannel",
                "swiftrtc-bench-limit", "SwiftRTCCalls", "SwiftRTCJanus", "JanusTestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/swiftrtc-bench"
        ),
        // Its datachannel loop: usrsctp over GnuTLS DTLS (the module map's `link` reaches Swift
        // importers only, hence linkedLibrary for this C target).
        .executableTarget(
            name: "swiftrtc-bench-limit",
            dependencies: ["CSRTP", "CSRTPNettle", "CGnuTLS", "CUsrsctp"],
            path: "Benchmarks/swiftrtc-bench-limit",
            linkerSettings: [.linkedLibrary("usrsctp")]
        ),

        // MARK: Tests
        .testTarget(
            name: "SystemLibrariesTests",
            dependencies: ["CNice", "CSRTP", "CSRTPNettle", "CGnuTLS", "COpus", "CVPX"]
        ),
        .testTarget(name: "SwiftRTCCoreTests", dependencies: ["SwiftRTCCore"]),
        .testTarget(name: "SwiftRTCSDPTests", dependencies: ["SwiftRTCCore", "SwiftRTCSDP", "TestScheduling"]),
        // The recorded captures and packets of Fixtures/rtp, and RTP test helpers (hex, writing).
        .target(
            name: "RTPFixtureSupport",
            dependencies: ["SwiftRTCRTP", "SwiftRTCCapture"],
            path: "Tests/RTPFixtureSupport"
        ),
        .testTarget(
            name: "SwiftRTCRTPTests",
            dependencies: ["SwiftRTCCore", "SwiftRTCRTP", "RTPFixtureSupport"]
        ),
        .testTarget(
            name: "SwiftRTCReceiveTests",
            dependencies: ["SwiftRTCCore", "SwiftRTCRTP", "SwiftRTCReceive", "RTPFixtureSupport"]
        ),
        .testTarget(
            name: "SwiftRTCCongestionTests",
            dependencies: [
                "SwiftRTCRTP", "SwiftRTCCongestion", "RTPFixtureSupport", "RandomTestSupport",
            ]
        ),
        .testTarget(
            name: "SwiftRTCCaptureTests",
            dependencies: ["SwiftRTCRTP", "SwiftRTCCapture", "RTPFixtureSupport"]
        ),
        .testTarget(
            name: "SwiftRTCICETests",
            dependencies: [
                "SwiftRTCICE", "SwiftRTCCore", "SwiftRTCSDP", "CNice", "TransportTestSupport", "SocketTestSupport",
                "TestScheduling",
            ]
        ),
        // ICE, DTLS and SRTP together over real agents: handshake on the ICE component, keys
        // into SRTP sessions, protected RTP and RTCP both ways, direct and through coturn.
        .testTarget(
            name: "SecureTransportTests",
            dependencies: [
                "SwiftRTCICE", "SwiftRTCDTLS", "SwiftRTCSRTP", "TransportTestSupport",
            ]
        ),
        .target(
            name: "TransportTestSupport",
            dependencies: ["SwiftRTCICE", "SwiftRTCSDP", "SocketTestSupport"],
            path: "Tests/TransportTestSupport"
        ),
        .target(name: "TestScheduling", path: "Tests/TestScheduling"),
        // The one deterministic generator of the tests (SplitMix64): reproducible inputs,
        // simulations and loss patterns.
        .target(name: "RandomTestSupport", path: "Tests/RandomTestSupport"),
        // A real PostgreSQL started by the tests themselves (initdb into a temporary folder).
        .target(
            name: "PostgresTestSupport",
            dependencies: ["TestScheduling", "SocketTestSupport"],
            path: "Tests/PostgresTestSupport"
        ),
        // Loopback socket addresses for the tests' relays, fake peers and free-port probes.
        .target(name: "SocketTestSupport", path: "Tests/SocketTestSupport"),
        .testTarget(
            name: "SwiftRTCDTLSTests",
            dependencies: [
                "SwiftRTCCore", "SwiftRTCDTLS", "SwiftRTCSDP", "SwiftRTCSRTP", "SwiftRTCSCTP", "TestScheduling",
                "SocketTestSupport", "RandomTestSupport",
            ]
        ),
        .testTarget(
            name: "SwiftRTCSRTPTests",
            dependencies: [
                "SwiftRTCCore", "SwiftRTCSRTP", "SwiftRTCRTP", "SwiftRTCCapture", "CSRTP", "CSRTPNettle",
                "RandomTestSupport",
            ]
        ),
        // Test signals and measurements (tones, Goertzel, PSNR) the codec and media tests share.
        .target(name: "SignalTestSupport", dependencies: ["SwiftRTCCodecs"], path: "Tests/SignalTestSupport"),
        .testTarget(
            name: "SwiftRTCCodecsTests",
            dependencies: ["SwiftRTCCore", "SwiftRTCRTP", "SwiftRTCCodecs", "SignalTestSupport", "TestScheduling"]
        ),
        .testTarget(
            name: "SwiftRTCMediaTests",
            dependencies: [
                "SwiftRTCCore", "SwiftRTCRTP", "SwiftRTCCodecs", "SwiftRTCMedia", "SignalTestSupport",
                "swiftrtc-record",
                "TestScheduling",
            ]
        ),
        .testTarget(
            name: "SwiftRTCPeerTests",
            dependencies: [
                "SwiftRTCCore", "TestScheduling", "SwiftRTCPeer", "SwiftRTCMedia", "SwiftRTCCodecs", "SwiftRTCICE",
                "SwiftRTCSDP", "SwiftRTCDTLS", "SwiftRTCSRTP", "SwiftRTCRTP", "SwiftRTCReceive", "SwiftRTCCongestion",
                "SocketTestSupport",
                "SwiftRTCDataChannel",
            ]
        ),
        .testTarget(
            name: "SwiftRTCSignalingTests",
            dependencies: [
                // The WHIP client's tests run it against the endpoint (SwiftRTCSignalingServer).
                "SwiftRTCSignaling", "SwiftRTCSignalingServer", "SwiftRTCSDP", "TestScheduling",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "SwiftRTCJanusTests",
            dependencies: ["SwiftRTCJanus", "SwiftRTCCore", "JanusTestSupport"]
        ),
        // A real Janus (Debian's janus 1.1.2) started by the tests with a config of their own,
        // on loopback or inside a network namespace of the test's.
        .target(
            name: "JanusTestSupport",
            dependencies: ["TestScheduling", "SocketTestSupport"],
            path: "Tests/JanusTestSupport"
        ),
        .testTarget(
            name: "SwiftRTCSignalingServerTests",
            dependencies: [
                "SwiftRTCSignalingServer", "SwiftRTCSignaling", "PostgresTestSupport", "TestScheduling",
                "SocketTestSupport",
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                // A call log database of an earlier schema, written by the migration tests.
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "SwiftRTCCallsTests",
            dependencies: [
                "SwiftRTCCalls", "SwiftRTCSignaling", "SwiftRTCPeer", "SwiftRTCMedia", "SwiftRTCCodecs", "SwiftRTCICE",
                "SwiftRTCSDP", "SwiftRTCDataChannel", "TransportTestSupport", "SocketTestSupport",
                "SwiftRTCSignalingServer", "TestScheduling", "SwiftRTCJanus", "JanusTestSupport",
            ]
        ),
        // The example bots run as processes too (ExampleBotsTests): listed so that they are built.
        .testTarget(
            name: "callbotTests",
            dependencies: [
                "SwiftRTCCore", "SwiftRTCSignaling", "TestScheduling", "TransportTestSupport", "PostgresTestSupport",
                "SocketTestSupport", "recorder-bot", "announcer-bot", "transcriber-tap", "whip-publisher",
                "call-responder", "voice-agent", "chat-bot", "room-recorder",
            ]
        ),
        .testTarget(name: "SwiftRTCBenchReportTests", dependencies: ["SwiftRTCBenchReport"]),
        // Real peers (Interop/*.py: aiortc, headless Chromium, coturn) against the built callbot,
        // run as processes.
        .testTarget(name: "SwiftRTCSCTPTests", dependencies: ["SwiftRTCSCTP"]),
        .testTarget(name: "SwiftRTCDataChannelTests", dependencies: ["SwiftRTCDataChannel"]),
        .testTarget(name: "InteropTests", dependencies: ["TestScheduling", "SocketTestSupport"]),
        // callbot calls inside network namespaces the tests create (root only): loss with
        // nftables, a rate limit with tc tbf, delay/jitter/reordering/duplication through
        // swiftrtc-impair; and the 10% loss call with headless Chromium as the peer.
        .testTarget(
            name: "NetworkFaultTests",
            dependencies: ["TestScheduling", "JanusTestSupport", "swiftrtc-impair", "room-recorder"],
            exclude: ["README.md"]
        ),
        // Replays every fuzzer's corpus and regressions through its body.
        .testTarget(
            name: "FuzzRegressionTests",
            dependencies: ["FuzzTargets", "TestScheduling", "SwiftRTCSDP", "SwiftRTCSCTP", "SwiftRTCMedia"]
        ),

        // MARK: Benchmarks
        .executableTarget(
            name: "SRTPBenchmarks",
            dependencies: [
                "SwiftRTCSRTP", .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/SRTPBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
