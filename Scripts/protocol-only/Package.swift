// swift-tools-version: 6.1
//
// A bot that links only the signaling protocol and its clients (SwiftRTCSignaling). Built by
// Scripts/check-protocol-only.sh, which fails if the build compiled a server module (Hummingbird's
// HTTP server, the signaling server, GRDB, PostgresNIO): a client of the protocol must not carry
// them.
import PackageDescription

let package = Package(
    name: "protocol-only",
    dependencies: [.package(name: "SwiftRTC", path: "../..")],
    targets: [
        .executableTarget(
            name: "protocol-only",
            dependencies: [.product(name: "SwiftRTCSignaling", package: "SwiftRTC")]
        )
    ]
)
