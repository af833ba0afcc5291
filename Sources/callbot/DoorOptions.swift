import ArgumentParser
import SwiftRTC
import SwiftRTCSignalingServer

/// The door of `serve` and `whip-server` (``ServerDoor``): TCP connections counted from
/// `accept`, before TLS and HTTP, and closed when they bring no request or fall silent.
struct DoorOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "TCP connections open at once, of any kind; more are closed at accept (lowered to fit the open-file limit).",
            valueName: "N"
        )
    )
    var maxTcpConnections = ServerDoor.Configuration.defaultMaxConnections

    @Option(
        help: ArgumentHelp(
            "TCP connections open at once from one client address (IPv4 address or IPv6 /64); more are closed at accept.",
            valueName: "N"
        )
    )
    var maxTcpConnectionsPerAddress = ServerDoor.Configuration.defaultMaxConnectionsPerAddress

    @Option(
        help: ArgumentHelp(
            "Seconds a connection has to send its first request (TLS handshake included), and a request its body.",
            valueName: "S"
        )
    )
    var requestTimeout = ServerDoor.Configuration.defaultRequestTimeout.seconds

    @Option(help: ArgumentHelp("Seconds a connection may stay silent before it is closed.", valueName: "S"))
    var idleTimeout = ServerDoor.Configuration.defaultIdleTimeout.seconds

    func validate() throws {
        for (name, value) in [
            ("--max-tcp-connections", maxTcpConnections),
            ("--max-tcp-connections-per-address", maxTcpConnectionsPerAddress),
        ] where value < 1 {
            throw ValidationError("\(name) \(value) must be at least 1")
        }
        try Seconds.check(requestTimeout, "--request-timeout", above: 0)
        try Seconds.check(idleTimeout, "--idle-timeout", above: 0)
    }

    /// The door these options describe.
    var configuration: ServerDoor.Configuration {
        ServerDoor.Configuration(
            maxConnections: maxTcpConnections,
            maxConnectionsPerAddress: maxTcpConnectionsPerAddress,
            requestTimeout: Seconds.duration(requestTimeout),
            idleTimeout: Seconds.duration(idleTimeout)
        )
    }
}
