#!/usr/bin/env python3
"""aiortc interop peer for SwiftRTC: a WHIP client or a WHIP endpoint, on loopback.

  aiortc_peer.py whip-client URL [--duration S] [--report FILE] [ICE flags] [--no-audio] [--no-video]
                 [--data-channel LABEL [--data-messages N] [--data-size BYTES] [--data-unordered]
                  [--data-max-retransmits K] [--data-binary]]
  aiortc_peer.py whip-server --port P [--once] [--duration S] [--report FILE] [ICE flags] [--echo-data]
  aiortc_peer.py janus-publisher URL --room N [--display NAME] [--duration S] [--report FILE] [ICE flags]

Both roles send a 440 Hz tone (Opus) and a moving 640x480 colour-bar pattern (VP8), and
report what they received and decoded as the bot report JSON of DESIGN.md. The client can
also open a data channel and count the echoes of numbered messages; the server echoes the
messages of every channel the peer opens (--echo-data). The Janus publisher joins room N of a
Janus VideoRoom through Janus's HTTP API (URL: http://HOST:PORT/janus) and publishes the tone
and the pattern into it. See README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import fractions
import json
import os
import signal
import socket
import sys
import threading
import time
import urllib.request
import uuid
from typing import Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from interop_common import (  # noqa: E402
    DATA_MAX_BUFFERED,
    DATA_TIMEOUT_S,
    EchoMatcher,
    WhipEndpoint,
    WhipError,
    candidate_problem,
    die_missing,
    empty_report,
    keep_allowed_candidates,
    print_session,
    whip_delete,
    whip_post,
    finish,
    add_address_flag,
    add_data_client_flags,
    add_data_server_flags,
    allowed_addresses,
    check_data_flags,
    data_message,
    data_row,
    set_allowed_addresses,
    unblock_stop_signals,
)

try:
    import aioice.ice
    import av
    import numpy as np
    from aiortc import (
        RTCConfiguration,
        RTCIceServer,
        RTCPeerConnection,
        RTCSessionDescription,
    )
    from aiortc.mediastreams import AudioStreamTrack, MediaStreamError, VideoStreamTrack
    from aiortc.rtcconfiguration import RTCIceTransportPolicy
    from aiortc.stats import RTCInboundRtpStreamStats, RTCOutboundRtpStreamStats
except ImportError as e:
    die_missing(
        f"Python package for aiortc ({e.name})",
        "./Scripts/bootstrap.sh --tests (aiortc 1.16 in .venv/), then run this with .venv/bin/python",
    )


def local_allowed_addresses(use_ipv4: bool, use_ipv6: bool) -> list[str]:
    """The allowed addresses (127.0.0.1 unless --allow-address) that are this host's own.

    aioice skips 127.0.0.1 when it lists host addresses; the harness runs only on loopback or
    the fault tests' namespace addresses, so gather there and nothing else.
    """
    if not use_ipv4:
        return []
    local = []
    for address in allowed_addresses:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            try:
                s.bind((address, 0))
            except OSError:
                continue
        local.append(address)
    return local


aioice.ice.get_host_addresses = local_allowed_addresses

CONNECT_TIMEOUT_S = 30.0
SAMPLE_RATE = 48000
AUDIO_PTIME_SAMPLES = 960  # 20 ms
WIDTH, HEIGHT = 640, 480


def log(msg: str) -> None:
    print(f"aiortc_peer: {msg}", file=sys.stderr, flush=True)


# --- sources ------------------------------------------------------------------------------------

class ToneTrack(AudioStreamTrack):
    """A 440 Hz sine at -10 dBFS, mono s16, 20 ms frames, paced in real time."""

    async def recv(self) -> av.AudioFrame:
        if self.readyState != "live":
            raise MediaStreamError
        if hasattr(self, "_timestamp"):
            self._timestamp += AUDIO_PTIME_SAMPLES
            wait = self._start + self._timestamp / SAMPLE_RATE - time.time()
            await asyncio.sleep(wait)
        else:
            self._start = time.time()
            self._timestamp = 0
        t = (np.arange(AUDIO_PTIME_SAMPLES) + self._timestamp) / SAMPLE_RATE
        pcm = (0.3 * 32767 * np.sin(2 * np.pi * 440.0 * t)).astype(np.int16)
        frame = av.AudioFrame.from_ndarray(pcm.reshape(1, -1), format="s16", layout="mono")
        frame.pts = self._timestamp
        frame.sample_rate = SAMPLE_RATE
        frame.time_base = fractions.Fraction(1, SAMPLE_RATE)
        return frame


class PatternTrack(VideoStreamTrack):
    """Colour bars scrolling sideways with a white box bouncing down, 640x480 I420 at 30 fps."""

    def __init__(self) -> None:
        super().__init__()
        # BT.601 Y, U, V of white, yellow, cyan, green, magenta, red, blue, black.
        bars = [(235, 128, 128), (210, 16, 146), (170, 166, 16), (145, 54, 34),
                (106, 202, 222), (81, 90, 240), (41, 240, 110), (16, 128, 128)]
        bar_w = WIDTH // len(bars)
        self._y = np.zeros((HEIGHT, WIDTH), np.uint8)
        self._u = np.zeros((HEIGHT // 2, WIDTH // 2), np.uint8)
        self._v = np.zeros((HEIGHT // 2, WIDTH // 2), np.uint8)
        for i, (y, u, v) in enumerate(bars):
            self._y[:, i * bar_w:(i + 1) * bar_w] = y
            self._u[:, i * bar_w // 2:(i + 1) * bar_w // 2] = u
            self._v[:, i * bar_w // 2:(i + 1) * bar_w // 2] = v
        self._n = 0

    async def recv(self) -> av.VideoFrame:
        pts, time_base = await self.next_timestamp()
        shift = (self._n * 4) % WIDTH
        y = np.roll(self._y, shift, axis=1)
        box = (self._n * 6) % (HEIGHT - 64)
        y[box:box + 64, WIDTH // 2 - 32:WIDTH // 2 + 32] = 235
        planes = np.concatenate(
            [y, np.roll(self._u, shift // 2, axis=1).reshape(HEIGHT // 4, WIDTH),
             np.roll(self._v, shift // 2, axis=1).reshape(HEIGHT // 4, WIDTH)])
        frame = av.VideoFrame.from_ndarray(planes, format="yuv420p")
        frame.pts = pts
        frame.time_base = time_base
        self._n += 1
        return frame

    @property
    def frames_produced(self) -> int:
        """Frames handed to the sender (the encoder), i.e. frames sent."""
        return self._n


# --- one peer connection and what it received -------------------------------------------------------

class Call:
    """One RTCPeerConnection sending tone + pattern (or only one of them, or neither for a
    data-only connection) and counting what it decodes; its data channels' rows."""

    def __init__(self, config: RTCConfiguration, role: str, audio: bool = True, video: bool = True) -> None:
        self.pc = RTCPeerConnection(configuration=config)
        self.report = empty_report("aiortc", role)
        self.t0 = time.monotonic()
        self.connected = asyncio.Event()
        self.failed = asyncio.Event()
        self.ended = asyncio.Event()
        self.frames = {"audio": 0, "video": 0}
        self.audio_sum_squares = 0.0
        self.audio_samples = 0
        # Longest gap between two decoded video frames, after the first one.
        self.last_video_frame_at: Optional[float] = None
        self.freeze_max_ms: Optional[float] = None
        self.tasks: list[asyncio.Task] = []
        # The rows of report["data_channels"]: channels this side opened, or the peer did.
        self.data_rows: list[dict] = []
        if audio:
            self.pc.addTrack(ToneTrack())
        self.pattern = PatternTrack() if video else None
        if self.pattern is not None:
            self.pc.addTrack(self.pattern)

        @self.pc.on("iceconnectionstatechange")
        def _ice() -> None:
            state = self.pc.iceConnectionState
            if state == "completed" and self.report["ice_connected_ms"] is None:
                self.report["ice_connected_ms"] = self.elapsed_ms()
            elif state == "failed":
                self.error("ICE failed")
                self.failed.set()

        @self.pc.on("connectionstatechange")
        def _conn() -> None:
            state = self.pc.connectionState
            if state == "connected":
                # aiortc's connectionState is "connected" once every DTLS transport is.
                if self.report["dtls_connected_ms"] is None:
                    self.report["dtls_connected_ms"] = self.elapsed_ms()
                self.report["connected"] = True
                self.connected.set()
            elif state == "failed":
                self.error("connection failed")
                self.failed.set()

        @self.pc.on("track")
        def _track(track) -> None:
            self.tasks.append(asyncio.ensure_future(self.consume(track)))

    def echo_data_channels(self, echo: bool) -> None:
        """Counts what arrives on each channel the peer opens (a row each) and, with `echo`,
        sends every message back on the same channel, text as text and binary as binary."""

        @self.pc.on("datachannel")
        def _channel(channel) -> None:
            row = data_row(channel.label)
            # For a channel the peer opened: from the start of the session to its announcement.
            row["open_ms"] = self.elapsed_ms()
            self.data_rows.append(row)
            log(f"data channel {channel.label!r} (id {channel.id}) opened by the peer")

            @channel.on("message")
            def _message(message) -> None:
                size = len(message.encode()) if isinstance(message, str) else len(message)
                row["messages_received"] += 1
                row["bytes_received"] += size
                if echo and channel.readyState == "open":
                    # The sender keeps at most ~1 MiB in flight, so the echoes buffered here
                    # stay about as small.
                    channel.send(message)
                    row["messages_sent"] += 1
                    row["bytes_sent"] += size

    def elapsed_ms(self) -> int:
        return round((time.monotonic() - self.t0) * 1000)

    def error(self, message: str) -> None:
        if message not in self.report["errors"]:
            self.report["errors"].append(message)
            log(message)

    def check_candidates(self, sdp: str, whose: str) -> None:
        problem = candidate_problem(sdp, whose)
        if problem:
            self.error(problem)

    async def consume(self, track) -> None:
        kind = track.kind
        try:
            while True:
                frame = await track.recv()
                self.frames[kind] += 1
                if kind == "video":
                    now = time.monotonic()
                    if self.last_video_frame_at is not None:
                        gap = (now - self.last_video_frame_at) * 1000
                        self.freeze_max_ms = max(self.freeze_max_ms or 0.0, gap)
                    self.last_video_frame_at = now
                    self.report["video"]["width"] = frame.width
                    self.report["video"]["height"] = frame.height
                else:
                    pcm = frame.to_ndarray().astype(np.float64) / 32768.0
                    self.audio_sum_squares += float(np.sum(pcm * pcm))
                    self.audio_samples += pcm.size
        except MediaStreamError:
            pass

    async def wait_connected(self, timeout: float) -> bool:
        done, pending = await asyncio.wait(
            [asyncio.ensure_future(self.connected.wait()), asyncio.ensure_future(self.failed.wait())],
            timeout=timeout,
            return_when=asyncio.FIRST_COMPLETED,
        )
        for p in pending:
            p.cancel()
        if not self.connected.is_set() and not self.failed.is_set():
            self.error(f"not connected after {timeout:.0f} s (ICE {self.pc.iceConnectionState}, "
                       f"connection {self.pc.connectionState})")
        return self.connected.is_set()

    def selected_pair(self) -> dict:
        """Candidate types of the nominated pair (from aioice's connection; None if unknown)."""
        result = {"local_candidate_type": None, "remote_candidate_type": None, "candidate_protocol": None}
        try:
            transceivers = self.pc.getTransceivers()
            # A data-only connection has no transceiver: its one DTLS transport is the SCTP one's.
            dtls = transceivers[0].receiver.transport if transceivers else self.pc.sctp.transport
            connection = dtls.transport._connection
            # The controlling agent keeps the nominated pair in _nominated; the controlled one
            # only marks it in the check list.
            pair = connection._nominated.get(1) or next(
                (p for p in connection._check_list
                 if p.nominated and p.state == aioice.ice.CandidatePair.State.SUCCEEDED), None)
        except (AttributeError, IndexError):
            return result
        if pair is not None:
            result["local_candidate_type"] = pair.local_candidate.type
            result["remote_candidate_type"] = pair.remote_candidate.type
            result["candidate_protocol"] = pair.local_candidate.transport.lower()
        return result

    async def finish(self) -> dict:
        """Collects stats, closes the connection and returns the report."""
        if self.ended.is_set():
            return self.report
        self.ended.set()
        sent = {"audio": 0, "video": 0}
        received = {"audio": 0, "video": 0}
        lost: dict[str, Optional[int]] = {"audio": None, "video": None}
        try:
            stats = await asyncio.wait_for(self.pc.getStats(), 10)
            for s in stats.values():
                if isinstance(s, RTCInboundRtpStreamStats):
                    received[s.kind] += s.packetsReceived
                    lost[s.kind] = (lost[s.kind] or 0) + s.packetsLost
                elif isinstance(s, RTCOutboundRtpStreamStats):
                    sent[s.kind] += s.packetsSent
        except Exception as e:  # stats are best effort after a failure
            self.error(f"getStats failed: {e!r}")
        for kind in ("audio", "video"):
            self.report[kind]["rtp_packets_sent"] = sent[kind]
            self.report[kind]["rtp_packets_received"] = received[kind]
            self.report[kind]["frames_decoded"] = self.frames[kind]
            self.report[kind]["packets_lost"] = lost[kind]
        # The issue 8 figures aiortc can know; the others (NACK/PLI counts, concealment,
        # jitter buffer, bandwidth estimate) it does not expose, so they stay null.
        self.report["video"]["frames_sent"] = None if self.pattern is None else self.pattern.frames_produced
        self.report["video"]["freeze_max_ms"] = (None if self.freeze_max_ms is None
                                                 else round(self.freeze_max_ms))
        if self.audio_samples:
            self.report["audio"]["rms"] = round((self.audio_sum_squares / self.audio_samples) ** 0.5, 6)
        else:
            self.report["audio"]["rms"] = 0.0 if self.report["connected"] else None
        self.report["duration_ms"] = self.elapsed_ms()
        self.report.update(self.selected_pair())
        if self.data_rows:
            self.report["data_channels"] = [dict(row) for row in self.data_rows]
        try:
            await asyncio.wait_for(self.pc.close(), 10)
        except Exception as e:
            self.error(f"close failed: {e!r}")
        for t in self.tasks:
            if t is not asyncio.current_task():
                t.cancel()
        return self.report


async def wait_for(event: asyncio.Event, deadline: float, stop: asyncio.Event) -> bool:
    """Whether `event` was set before the monotonic `deadline` (and before `stop`)."""
    if not event.is_set() and not stop.is_set():
        waits = [asyncio.ensure_future(event.wait()), asyncio.ensure_future(stop.wait())]
        _, pending = await asyncio.wait(waits, timeout=max(0.0, deadline - time.monotonic()),
                                        return_when=asyncio.FIRST_COMPLETED)
        for p in pending:
            p.cancel()
    return event.is_set()


class DataSender:
    """whip-client --data-channel: the channel made before the offer. Once it is open, sends
    the numbered messages (waiting for bufferedamountlow whenever ~1 MiB is buffered) and
    matches the echoes; fills the channel's row of the report."""

    def __init__(self, call: Call, args: argparse.Namespace) -> None:
        self.call = call
        self.args = args
        self.created = time.monotonic()
        self.channel = call.pc.createDataChannel(
            args.data_channel, ordered=not args.data_unordered, maxRetransmits=args.data_max_retransmits)
        self.channel.bufferedAmountLowThreshold = DATA_MAX_BUFFERED // 2
        self.row = data_row(args.data_channel)
        call.data_rows.append(self.row)
        self.matcher = EchoMatcher()
        self.opened = asyncio.Event()
        self.low = asyncio.Event()
        self.all_back = asyncio.Event()

        @self.channel.on("open")
        def _open() -> None:
            # For a channel we open: from its creation to its open event.
            self.row["open_ms"] = round((time.monotonic() - self.created) * 1000)
            self.opened.set()

        @self.channel.on("bufferedamountlow")
        def _low() -> None:
            self.low.set()

        @self.channel.on("message")
        def _message(message) -> None:
            self.row["messages_received"] += 1
            self.row["bytes_received"] += len(message.encode()) if isinstance(message, str) else len(message)
            self.matcher.echoed(message, time.monotonic())
            if self.matcher.received >= self.args.data_messages:
                self.all_back.set()

    async def run(self, deadline: float, stop: asyncio.Event) -> None:
        label, count, size = self.args.data_channel, self.args.data_messages, self.args.data_size
        if not await wait_for(self.opened, deadline, stop):
            self.call.error(f"data channel {label} did not open")
            return
        log(f"data channel {label!r} open after {self.row['open_ms']} ms")
        try:
            for index in range(count):
                while self.channel.bufferedAmount > 0 and self.channel.bufferedAmount + size > DATA_MAX_BUFFERED:
                    self.low.clear()
                    if not await wait_for(self.low, deadline, stop):
                        raise TimeoutError(f"{self.channel.bufferedAmount} bytes still buffered at the end")
                if stop.is_set() or time.monotonic() > deadline:
                    break
                message = data_message(index, size, self.args.data_binary)
                self.matcher.sent(message, time.monotonic())
                self.channel.send(message)
                self.row["messages_sent"] += 1
                self.row["bytes_sent"] += size
                await asyncio.sleep(0)  # lets the SCTP transport flush
        except Exception as e:
            self.call.error(f"data channel {label}: sending: {type(e).__name__}: {e}")
        await wait_for(self.all_back, deadline, stop)
        self.row["echo_mismatches"] = self.matcher.mismatches
        self.row["echo_ms"] = self.matcher.median_ms
        log(f"data channel {label!r}: {self.matcher.received} of {count} echoes back "
            f"({self.matcher.mismatches} mismatched), median round trip {self.row['echo_ms']} ms")
        if self.matcher.received < count:
            self.call.error(f"data channel {label}: {self.matcher.received} of {count} echoes came back")
        if self.matcher.mismatches:
            self.call.error(f"data channel {label}: {self.matcher.mismatches} echoes matched no message sent")


def make_config(args: argparse.Namespace) -> RTCConfiguration:
    # An explicitly empty list: left unset, aiortc falls back to a public STUN server.
    servers = [RTCIceServer(urls=url, username=args.ice_username, credential=args.ice_credential)
               for url in args.ice_server]
    policy = RTCIceTransportPolicy.RELAY if args.relay_only else RTCIceTransportPolicy.ALL
    return RTCConfiguration(iceServers=servers, iceTransportPolicy=policy)


# --- roles --------------------------------------------------------------------------------------------

async def run_client(args: argparse.Namespace, stop: asyncio.Event) -> dict:
    call = Call(make_config(args), "whip-client", audio=not args.no_audio, video=not args.no_video)
    location: Optional[str] = None
    sender: Optional[DataSender] = None
    try:
        if args.data_channel is not None:
            sender = DataSender(call, args)  # before the offer: it gets an application section
        await call.pc.setLocalDescription(await call.pc.createOffer())  # gathers all candidates
        offer = keep_allowed_candidates(call.pc.localDescription.sdp)
        call.check_candidates(offer, "local")
        answer, location = await asyncio.to_thread(whip_post, args.url, offer)
        log(f"201 Created, Location {location}")
        answer = keep_allowed_candidates(answer)
        call.check_candidates(answer, "remote (answer)")
        await call.pc.setRemoteDescription(
            RTCSessionDescription(sdp=answer, type="answer"))
        if await call.wait_connected(CONNECT_TIMEOUT_S):
            log(f"connected: ICE {call.report['ice_connected_ms']} ms, DTLS {call.report['dtls_connected_ms']} ms")
            # --duration after connecting (5 s by default). With --data-channel and no
            # --duration, the run ends once every echo is back (DATA_TIMEOUT_S at most).
            duration = args.duration if args.duration is not None else (
                DATA_TIMEOUT_S if sender is not None else 5.0)
            end = time.monotonic() + duration
            if sender is not None:
                await sender.run(end, stop)
            if sender is None or args.duration is not None:
                try:
                    await asyncio.wait_for(stop.wait(), max(0.0, end - time.monotonic()))
                except asyncio.TimeoutError:
                    pass
    except WhipError as e:
        call.error(str(e))
    except Exception as e:
        call.error(f"{type(e).__name__}: {e}")
    report = await call.finish()
    if location:
        try:
            await asyncio.to_thread(whip_delete, location)
        except WhipError as e:
            call.error(str(e))
    return report


async def run_server(args: argparse.Namespace, stop: asyncio.Event) -> dict:
    loop = asyncio.get_running_loop()
    config = make_config(args)
    sessions: dict[str, Call] = {}
    finished: list[dict] = []
    session_ended = asyncio.Event()

    async def answer(offer_sdp: str) -> tuple[str, str]:
        # Media back only of the kinds offered (a data-only offer gets a data-only answer).
        kinds = {line.split()[0][2:] for line in offer_sdp.splitlines() if line.startswith("m=")}
        call = Call(config, "whip-server", audio="audio" in kinds, video="video" in kinds)
        call.echo_data_channels(args.echo_data)
        session_id = uuid.uuid4().hex
        offer_sdp = keep_allowed_candidates(offer_sdp)
        call.check_candidates(offer_sdp, "remote (offer)")
        await call.pc.setRemoteDescription(RTCSessionDescription(sdp=offer_sdp, type="offer"))
        await call.pc.setLocalDescription(await call.pc.createAnswer())  # gathers all candidates
        answer_sdp = keep_allowed_candidates(call.pc.localDescription.sdp)
        call.check_candidates(answer_sdp, "local")
        sessions[session_id] = call

        async def watch() -> None:
            if await call.wait_connected(CONNECT_TIMEOUT_S):
                log(f"session {session_id} connected: ICE {call.report['ice_connected_ms']} ms, "
                    f"DTLS {call.report['dtls_connected_ms']} ms")
                await call.failed.wait()  # or cancelled by DELETE
            await end(session_id)

        call.tasks.append(asyncio.ensure_future(watch()))
        log(f"session {session_id}: answered")
        return session_id, answer_sdp

    async def end(session_id: str) -> bool:
        call = sessions.pop(session_id, None)
        if call is None:
            return False
        log(f"session {session_id}: ending")
        finished.append(await call.finish())
        print_session(finished[-1])
        session_ended.set()
        return True

    def on_offer(sdp: str) -> tuple[str, str]:
        return asyncio.run_coroutine_threadsafe(answer(sdp), loop).result(CONNECT_TIMEOUT_S)

    def on_delete(session_id: str) -> bool:
        return asyncio.run_coroutine_threadsafe(end(session_id), loop).result(CONNECT_TIMEOUT_S)

    endpoint = WhipEndpoint(args.host, args.port, on_offer, on_delete, log=log)
    endpoint.start()
    print(f"READY http://{args.host}:{endpoint.port}/whip", flush=True)

    async def until_done() -> None:
        while not stop.is_set():
            if args.once and finished:
                return
            session_ended.clear()
            await asyncio.wait(
                [asyncio.ensure_future(stop.wait()), asyncio.ensure_future(session_ended.wait())],
                return_when=asyncio.FIRST_COMPLETED)

    try:
        await asyncio.wait_for(until_done(), args.duration)
    except asyncio.TimeoutError:
        pass
    for session_id in list(sessions):
        await end(session_id)
    await asyncio.to_thread(endpoint.stop)
    if not finished:
        report = empty_report("aiortc", "whip-server")
        report["errors"].append("no WHIP session was offered")
        return report
    report = dict(finished[-1])
    report["sessions"] = len(finished)
    return report


class JanusHTTP:
    """A Janus session over its HTTP API: requests by POST, events by long-poll GET."""

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")
        self.session: Optional[int] = None
        self.events: asyncio.Queue = asyncio.Queue()
        self.closed = threading.Event()

    def _post(self, path: str, body: dict) -> dict:
        body = dict(body, transaction=uuid.uuid4().hex)
        request = urllib.request.Request(self.url + path, data=json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"}, method="POST")
        with urllib.request.urlopen(request, timeout=15) as response:
            reply = json.loads(response.read())
        if reply.get("janus") == "error":
            raise RuntimeError(f"Janus error: {reply.get('error')}")
        return dict(reply, transaction=body["transaction"])

    async def post(self, path: str, body: dict) -> dict:
        return await asyncio.to_thread(self._post, path, body)

    def _poll(self) -> list:
        with urllib.request.urlopen(f"{self.url}/{self.session}?maxev=10", timeout=40) as response:
            reply = json.loads(response.read())
        return reply if isinstance(reply, list) else [reply]

    def poll(self, loop: asyncio.AbstractEventLoop) -> None:
        """Long-polls on a daemon thread of its own: Janus holds a poll up to 30 s, which must
        not keep the process from exiting once the session is destroyed."""
        while not self.closed.is_set():
            try:
                events = self._poll()
            except OSError:
                if self.closed.is_set():
                    return
                time.sleep(0.5)
                continue
            for event in events:
                if event.get("janus") != "keepalive":
                    loop.call_soon_threadsafe(self.events.put_nowait, event)

    async def create(self) -> None:
        self.session = (await self.post("", {"janus": "create"}))["data"]["id"]
        threading.Thread(target=self.poll, args=(asyncio.get_running_loop(),), daemon=True).start()

    async def attach(self, plugin: str) -> int:
        return (await self.post(f"/{self.session}", {"janus": "attach", "plugin": plugin}))["data"]["id"]

    async def message(self, handle: int, body: dict, jsep: Optional[dict] = None) -> dict:
        """An asynchronous plugin request: Janus acknowledges it, then answers with an event."""
        request = {"janus": "message", "body": body}
        if jsep is not None:
            request["jsep"] = jsep
        transaction = (await self.post(f"/{self.session}/{handle}", request))["transaction"]
        while True:
            event = await asyncio.wait_for(self.events.get(), 15)
            if event.get("transaction") == transaction:
                data = event.get("plugindata", {}).get("data", {})
                if "error" in data:
                    raise RuntimeError(f"VideoRoom error {data.get('error_code')}: {data['error']}")
                return event

    async def destroy(self) -> None:
        self.closed.set()
        if self.session is not None:
            await self.post(f"/{self.session}", {"janus": "destroy"})


async def run_janus_publisher(args: argparse.Namespace, stop: asyncio.Event) -> dict:
    call = Call(make_config(args), "janus-publisher")
    janus = JanusHTTP(args.url)
    try:
        await janus.create()
        handle = await janus.attach("janus.plugin.videoroom")
        joined = await janus.message(handle, {"request": "join", "ptype": "publisher", "room": args.room,
                                              "display": args.display})
        log(f"joined room {args.room} as {joined['plugindata']['data'].get('id')}")
        await call.pc.setLocalDescription(await call.pc.createOffer())  # gathers all candidates
        offer = keep_allowed_candidates(call.pc.localDescription.sdp)
        call.check_candidates(offer, "local")
        published = await janus.message(handle, {"request": "publish"}, {"type": "offer", "sdp": offer})
        answer = keep_allowed_candidates(published["jsep"]["sdp"])
        call.check_candidates(answer, "remote (answer)")
        await call.pc.setRemoteDescription(RTCSessionDescription(sdp=answer, type="answer"))
        if await call.wait_connected(CONNECT_TIMEOUT_S):
            log(f"publishing: ICE {call.report['ice_connected_ms']} ms, DTLS {call.report['dtls_connected_ms']} ms")
            try:
                await asyncio.wait_for(stop.wait(), args.duration)
            except asyncio.TimeoutError:
                pass
    except Exception as e:
        call.error(f"{type(e).__name__}: {e}")
    report = await call.finish()
    try:
        await janus.destroy()
    except Exception as e:
        call.error(f"destroying the Janus session: {e}")
    return report


def main() -> int:
    unblock_stop_signals()
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="role", required=True)
    client = sub.add_parser("whip-client", help="dial a WHIP endpoint")
    client.add_argument("url")
    server = sub.add_parser("whip-server", help="be a WHIP endpoint")
    server.add_argument("--port", type=int, required=True)
    server.add_argument("--host", default="127.0.0.1")
    server.add_argument("--once", action="store_true", help="exit when the first session ends")
    janus = sub.add_parser("janus-publisher", help="publish into a room of Janus's VideoRoom")
    janus.add_argument("url", help="Janus's HTTP API, http://HOST:PORT/janus")
    janus.add_argument("--room", type=int, required=True)
    janus.add_argument("--display", default="aiortc")
    add_data_client_flags(client)
    add_data_server_flags(server)
    for p, default_duration in ((client, None), (server, 60.0), (janus, 20.0)):
        p.add_argument("--duration", type=float, default=default_duration,
                       help="client: seconds of media after connecting (default 5; with --data-channel, "
                            "until the echoes are back); server: seconds to run at most (default 60); "
                            "janus-publisher: seconds of publishing after connecting (default 20)")
        p.add_argument("--report", help="write the bot report JSON here")
        p.add_argument("--ice-server", action="append", default=[], metavar="URL",
                       help="stun:/turn: URL (aiortc uses the first TURN server)")
        p.add_argument("--ice-username")
        p.add_argument("--ice-credential")
        p.add_argument("--relay-only", action="store_true", help="iceTransportPolicy relay")
        add_address_flag(p)
    args = parser.parse_args()
    if args.role == "whip-client":
        check_data_flags(client, args)
    set_allowed_addresses(args.allow_address)
    if args.relay_only and not any(u.startswith("turn") for u in args.ice_server):
        parser.error("--relay-only needs a turn: or turns: --ice-server")

    async def run() -> dict:
        stop = asyncio.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            asyncio.get_running_loop().add_signal_handler(sig, stop.set)
        if args.role == "whip-client":
            return await run_client(args, stop)
        if args.role == "janus-publisher":
            return await run_janus_publisher(args, stop)
        return await run_server(args, stop)

    report = asyncio.run(run())
    return finish(report, args.report, "aiortc_peer")


if __name__ == "__main__":
    sys.exit(main())
