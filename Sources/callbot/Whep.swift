import ArgumentParser
import Foundation
import SwiftRTC

/// `callbot whep URL [--record DIR]`: watch a WHEP endpoint (draft-ietf-wish-whep, the WHIP
/// exchange for a viewer): POST a receive-only offer, receive its audio and video (recorded
/// with `--record`), print statsString every `--stats-interval`, `DELETE` the session at the
/// end and write the bot report.
struct Whep: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Watch a WHEP endpoint: receive its audio and video, record them, print stats, DELETE at the end.",
        discussion: """
            Gathers every ICE candidate first, POSTs a receive-only offer (audio and video) as \
            application/sdp (with the bearer token of --token, --token-file or \
            $SWIFTRTC_WHIP_TOKEN, if any; an https:// endpoint's certificate must verify against the \
            system's CA certificates or those of --ca-cert FILE), applies the 201 answer and receives \
            for --duration seconds once connected or until SIGINT/SIGTERM arrives, then DELETEs the session URL. With \
            --record DIR what arrives is written to DIR/whep-YYYYMMDD-HHMMSS.webm (UTC). Exits 0 \
            when the call connected and media arrived without errors, 1 when not, 77 when the \
            endpoint refused the token (401/403), 69 when it could not be reached (the report is \
            written either way). Without --ice-server, the STUN and TURN servers the endpoint offers \
            in Link headers (its reply to OPTIONS) are used.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var statsOutput: StatsOptions

    @Argument(help: ArgumentHelp("The WHEP endpoint URL (http:// or https://).", valueName: "URL"))
    var url: String

    @Option(
        help: ArgumentHelp(
            "Record what arrives into DIR/whep-YYYYMMDD-HHMMSS.webm (UTC; -2... when taken).",
            valueName: "DIR"
        )
    )
    var record: String?

    @OptionGroup var ice: IceOptions
    @OptionGroup var options: RunOptions
    @OptionGroup var token: WhipTokenOptions
    @OptionGroup var tls: TLSClientOptions
    @OptionGroup var eventLines: EventsOptions

    func validate() throws {
        guard let endpoint = URL(string: url), let scheme = endpoint.scheme?.lowercased(),
            scheme == "http" || scheme == "https",
            let host = endpoint.host, !host.isEmpty
        else {
            throw ValidationError("'\(url)' is not a WHEP endpoint URL (expected http://HOST[:PORT]/PATH)")
        }
        if let record {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: record, isDirectory: &isDirectory), isDirectory.boolValue
            else { throw ValidationError("--record \(record): no such folder") }
        }
    }

    func run() async throws {
        global.apply()
        let signals = TerminationSignals()
        guard let endpoint = URL(string: url) else { throw ExitCode.validationFailure }
        let started = ContinuousClock.now
        let (client, configuration) = try await Whip.prepare(endpoint, token: token, tls: tls, ice: ice)
        let connection = try PeerConnection(configuration: configuration)
        let monitor = await CallMonitor(
            connection: connection,
            role: "whep-client",
            started: started,
            statsInterval: .seconds(options.statsInterval),
            label: "",
            statsJSON: statsOutput.statsJSON
        )
        let recording = try record.map(SessionSettings.Recording.init)
        var whip: WHIPConnection?
        var recorder: MediaRecorder?
        var failure = CallbotExit.failed
        do {
            let audio = try await connection.addTransceiver(.audio, direction: .recvonly)
            let video = try await connection.addTransceiver(.video, direction: .recvonly)
            let viewed = try await Whip.open(connection, client: client, trickle: false, protocolName: "WHEP")
            whip = viewed
            event(["event": "viewing", "session": await viewed.session.location.absoluteString])
            if let recording {
                let file = try recording.folder.createFile(
                    base: SessionSettings.Recording.base("whep", at: Date()),
                    extension: "webm"
                )
                // The kinds the endpoint sends (a rejected section never gets media).
                let sent = [audio, video].filter { $0.mid != nil && $0.currentDirection?.receives == true }
                recorder = try MediaRecorder(tracks: sent.map(\.receiver.track), reservedFile: file)
            }
            await monitor.startMedia(echo: nil)
            if await monitor.waitConnected(timeout: Whip.connectTimeout) {
                event(["event": "connected", "ms": CallMonitor.milliseconds(ContinuousClock.now - started)])
                log("connected in \(CallMonitor.milliseconds(ContinuousClock.now - started)) ms")
                await signals.wait(upTo: options.duration.map { .seconds($0) })
            } else if signals.signal == nil {
                monitor.recordError("not connected within \(Whip.connectTimeout)")
                event(["event": "connection_failed", "reason": "not connected within \(Whip.connectTimeout)"])
            }
        } catch {
            Whip.record(error, on: monitor, tls: tls, events: eventLines)
            if whip == nil { failure = CallbotExit.code(forPublishing: error) }
        }
        if let recorder { await Self.stop(recorder, monitor: monitor) }
        var report = await monitor.finish()
        if report.connected, (report.audio.framesDecoded ?? 0) == 0, (report.video.framesDecoded ?? 0) == 0 {
            report.errors.append("connected, but no audio or video frame arrived")
        }
        if let whip { await Whip.end(whip, into: &report) }
        event(["event": "ended", "connected": report.connected, "errors": report.errors.count])
        try report.finish(writingTo: options.report, failure: failure)
    }

    /// Stops the recording and logs its files (or the error, an error of the run too).
    private static func stop(_ recorder: MediaRecorder, monitor: CallMonitor) async {
        do {
            for file in try await recorder.stop() { log("recorded \(file.path)") }
        } catch {
            monitor.recordError("\(error)")
            log("error: \(error)")
        }
    }

    /// An `EVENT` line, with `--events-json`.
    private func event(_ fields: [String: any Sendable]) {
        if eventLines.eventsJSON { EventLine.print(fields) }
    }
}
