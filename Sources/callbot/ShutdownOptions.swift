import ArgumentParser

/// `--shutdown-timeout S` of `serve` and `whip-server`: how long SIGTERM's graceful drain may
/// take before the process gives up on it (``ServerServices``).
struct ShutdownOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Seconds SIGTERM's graceful drain may take; then the server's work is cancelled, and 5 s later the process exits (status 1) whatever still runs.",
            valueName: "S"
        )
    )
    var shutdownTimeout = ServerServices.defaultShutdownDeadline.seconds

    /// Checks the range.
    func check() throws {
        try Seconds.check(shutdownTimeout, "--shutdown-timeout", above: 0)
    }

    /// The deadline asked for.
    var deadline: Duration { Seconds.duration(shutdownTimeout) }
}
