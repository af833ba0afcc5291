"""Shared pieces of the SwiftRTC interop peers (aiortc_peer.py, browser_peer.py).

Only the Python standard library is used here: the WHIP HTTP endpoint (RFC 9725) and client
calls, the bot report JSON of DESIGN.md, loopback-only candidate filtering and dependency checks.
"""

from __future__ import annotations

import errno
import http.server
import json
import random
import re
import signal
import socket
import statistics
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter, deque
from typing import Callable, Optional, Union

# Exit codes shared by both peers.
EXIT_OK = 0  # ran, connected, report written
EXIT_FAILED = 1  # ran but the call failed (report written, `errors` says why)
EXIT_MISSING_DEPENDENCY = 2  # a peer or tool is not installed (message names the package)

HTTP_TIMEOUT_S = 30.0


def die_missing(what: str, install: str) -> None:
    """Exit with EXIT_MISSING_DEPENDENCY and a message naming what to install."""
    print(f"error: {what} is missing; install it with: {install}", file=sys.stderr)
    sys.exit(EXIT_MISSING_DEPENDENCY)


def unblock_stop_signals() -> None:
    """Unblocks SIGINT and SIGTERM, before any thread starts. A child inherits its parent's
    blocked signals: the Swift test process runs most of its threads with nearly every signal
    blocked, and Foundation's Process spawns from such a thread, so a peer it started never
    saw the SIGTERM that should end it (the test waited 30 s, then SIGKILLed it without a report)."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})


def free_port() -> int:
    """A TCP port free on 127.0.0.1 and ::1 for a child (chromedriver, Firefox's Marionette) to
    listen on. It lies below the kernel's ephemeral range (ip_local_port_range), so between this
    check and the child's bind no connect() and no bind to port 0 anywhere on the machine can
    take it: only another explicit choice could, and each is random. (A port from bind(0) was
    taken in that gap by a busy test run, and chromedriver exited with "port not available".)"""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            ephemeral_low = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        ephemeral_low = 32768
    low = max(1024, ephemeral_low - 12000)
    for _ in range(200):
        port = random.randrange(low, ephemeral_low)
        if _tcp_port_free(socket.AF_INET, "127.0.0.1", port) and _tcp_port_free(socket.AF_INET6, "::1", port):
            return port
    raise RuntimeError(f"no free TCP port in {low}..{ephemeral_low - 1}")


def _tcp_port_free(family: int, host: str, port: int) -> bool:
    try:
        with socket.socket(family, socket.SOCK_STREAM) as s:
            if family == socket.AF_INET6:
                s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            s.bind((host, port))
            return True
    except OSError as e:
        # No IPv6 on this machine: nothing can hold ::1 either.
        return family == socket.AF_INET6 and e.errno in (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT)


def empty_kind_report() -> dict:
    return {
        "rtp_packets_sent": None,
        "rtp_packets_received": None,
        "frames_decoded": None,
    }


def empty_report(peer: str, role: str) -> dict:
    """The bot report of DESIGN.md ("Interop contract"); unknown values stay null."""
    audio = empty_kind_report()
    audio["rms"] = None
    video = empty_kind_report()
    video["width"] = None
    video["height"] = None
    # The issue 8 figures (the shared report field names): null unless the peer can know them.
    for field in ("frames_sent", "freeze_max_ms", "packets_lost", "nack_sent", "nack_received",
                  "retransmitted_packets_sent", "pli_sent", "pli_received", "fir_sent",
                  "fir_received", "target_kbps"):
        video[field] = None
    for field in ("concealment_rate", "jitter_buffer_ms", "packets_lost", "fec_recovered"):
        audio[field] = None
    return {
        "peer": peer,
        "role": role,
        "connected": False,
        "ice_connected_ms": None,
        "dtls_connected_ms": None,
        "audio": audio,
        "video": video,
        "errors": [],
        "bandwidth_estimate_kbps": None,
    }


def finish(report: dict, path: Optional[str], script: str) -> int:
    """Writes the report and says why a call failed; the script's exit code."""
    write_report(report, path)
    if not report["connected"]:
        print(f"{script}: FAILED: {'; '.join(report['errors']) or 'not connected'}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


_stdout_lock = threading.Lock()


def print_session(report: dict) -> None:
    """whip-server: `SESSION {json}` on stdout, one line, as each session ends: that session's
    report (the final REPORT and --report file are the last session's)."""
    with _stdout_lock:
        sys.stdout.write("SESSION " + json.dumps(report, sort_keys=True) + "\n")
        sys.stdout.flush()


def write_report(report: dict, path: Optional[str]) -> None:
    text = json.dumps(report, indent=2, sort_keys=True)
    print("REPORT " + json.dumps(report, sort_keys=True), flush=True)
    if path:
        with open(path, "w") as f:
            f.write(text + "\n")


# --- data channels ------------------------------------------------------------------------------

# The largest --data-size: the max-message-size Chromium and aiortc announce (RFC 8841), and callbot's.
DATA_MAX_SIZE = 262144
# A sender waits (bufferedamountlow) while more than this would be buffered on its channel.
DATA_MAX_BUFFERED = 1 << 20
# How long a --data-channel run without --duration waits for its echoes, after connecting.
DATA_TIMEOUT_S = 60.0


def data_message(index: int, size: int, binary: bool) -> Union[str, bytes]:
    """Message `index` (0-based) of `size` bytes, the same in every interop peer and in callbot:
    text is f"{index}:" then letters chr(ord('a') + (index + k) % 26) for k = 0, 1, ..., cut to
    `size` characters (ASCII, so `size` bytes); binary is bytes (index * 31 + k) & 0xff."""
    if binary:
        return bytes((index * 31 + k) & 0xFF for k in range(size))
    prefix = f"{index}:"
    filler = "".join(chr(ord("a") + (index + k) % 26) for k in range(max(0, size - len(prefix))))
    return (prefix + filler)[:size]


def data_row(label: str) -> dict:
    """One row of the report's "data_channels" (see README.md)."""
    return {"label": label, "messages_sent": 0, "messages_received": 0, "bytes_sent": 0,
            "bytes_received": 0, "echo_mismatches": 0, "open_ms": None, "echo_ms": None}


class EchoMatcher:
    """The messages sent and not echoed yet: a multiset (Counter) of (kind, content), with the
    send times of each key in FIFO order (an unordered channel may echo in any order). An echo
    that matches an outstanding message takes its oldest send time and gives a round trip; one
    that matches none, or has the other kind, is a mismatch."""

    def __init__(self) -> None:
        self.outstanding: Counter = Counter()
        self.sent_at: dict[tuple[str, Union[str, bytes]], deque] = {}
        self.round_trips_ms: list[float] = []
        self.mismatches = 0
        self.received = 0

    @staticmethod
    def key(message: Union[str, bytes]) -> tuple[str, Union[str, bytes]]:
        return ("text", message) if isinstance(message, str) else ("binary", bytes(message))

    def sent(self, message: Union[str, bytes], at: float) -> None:
        key = self.key(message)
        self.outstanding[key] += 1
        self.sent_at.setdefault(key, deque()).append(at)

    def echoed(self, message: Union[str, bytes], at: float) -> None:
        self.received += 1
        key = self.key(message)
        if self.outstanding[key] <= 0:
            self.mismatches += 1
            return
        self.outstanding[key] -= 1
        if not self.outstanding[key]:
            del self.outstanding[key]
        self.round_trips_ms.append((at - self.sent_at[key].popleft()) * 1000)

    @property
    def matched(self) -> int:
        return len(self.round_trips_ms)

    @property
    def median_ms(self) -> Optional[float]:
        return round(statistics.median(self.round_trips_ms), 3) if self.round_trips_ms else None


def add_data_client_flags(parser) -> None:
    """whip-client's data channel flags (the same as callbot whip's) and --no-audio/--no-video."""
    parser.add_argument("--no-audio", action="store_true", help="send no audio (no audio section in the offer)")
    parser.add_argument("--no-video", action="store_true", help="send no video (no video section in the offer)")
    parser.add_argument("--data-channel", metavar="LABEL",
                        help="open a data channel with this label before the offer and send messages on it")
    parser.add_argument("--data-messages", type=int, metavar="N", help="messages to send (default 10)")
    parser.add_argument("--data-size", type=int, metavar="BYTES",
                        help=f"bytes per message, 1 to {DATA_MAX_SIZE} (default 100)")
    parser.add_argument("--data-unordered", action="store_true", help="an unordered channel")
    parser.add_argument("--data-max-retransmits", type=int, metavar="K",
                        help="a partially reliable channel: at most K retransmissions")
    parser.add_argument("--data-binary", action="store_true", help="binary messages (default: text)")


def add_data_server_flags(parser) -> None:
    parser.add_argument("--echo-data", action="store_true",
                        help="echo every message on every data channel the peer opens, on the same channel")


def check_data_flags(parser, args) -> None:
    """Validates the whip-client data flags and fills in their defaults (10 messages of 100 bytes)."""
    if getattr(args, "data_channel", None) is None:
        given = [flag for flag, value in (
            ("--data-messages", args.data_messages), ("--data-size", args.data_size),
            ("--data-max-retransmits", args.data_max_retransmits)) if value is not None]
        given += [flag for flag, value in (("--data-unordered", args.data_unordered),
                                           ("--data-binary", args.data_binary)) if value]
        if given:
            parser.error(f"{', '.join(given)} need --data-channel LABEL")
        if args.no_audio and args.no_video:
            parser.error("--no-audio and --no-video together leave nothing to send (add --data-channel LABEL)")
        return
    if len(args.data_channel.encode()) > 65535:
        parser.error("--data-channel's label is longer than 65535 bytes")
    args.data_messages = 10 if args.data_messages is None else args.data_messages
    args.data_size = 100 if args.data_size is None else args.data_size
    if not 1 <= args.data_messages <= 1_000_000:
        parser.error("--data-messages takes 1 to 1000000")
    if not 1 <= args.data_size <= DATA_MAX_SIZE:
        parser.error(f"--data-size takes 1 to {DATA_MAX_SIZE} bytes")
    if args.data_max_retransmits is not None and not 0 <= args.data_max_retransmits <= 65535:
        parser.error("--data-max-retransmits takes 0 to 65535")


# --- candidates on allowed addresses only -------------------------------------------------------

# The addresses whose candidates are kept: 127.0.0.1 unless --allow-address says otherwise
# (the network fault tests run the peers in network namespaces of their own, on 10.99.N.x).
allowed_addresses: list[str] = ["127.0.0.1"]


def set_allowed_addresses(addresses: list[str]) -> None:
    """Replaces the default 127.0.0.1 with `addresses` (from repeated --allow-address flags)."""
    if addresses:
        allowed_addresses[:] = addresses


def add_address_flag(parser) -> None:
    parser.add_argument("--allow-address", action="append", default=[], metavar="ADDRESS",
                        help="keep only candidates on this address (repeatable; default 127.0.0.1)")


# a=candidate:<foundation> <component> <transport> <priority> <address> <port> typ <type> [...]
# Firefox writes TCP candidates as "... TCP 2105327871 127.0.0.1 9 typ host tcptype active",
# IPv6 ones as "... UDP 2122121471 ::1 55070 typ host"; the address is matched whatever it is.
_CANDIDATE_RE = re.compile(r"^a=candidate:\S+ (\d+) (\S+) \d+ (\S+) \d+ typ (\S+)(.*)$")


class Candidate:
    def __init__(self, m: "re.Match[str]") -> None:
        self.component = int(m.group(1))
        self.transport = m.group(2).lower()
        self.address = m.group(3)
        self.type = m.group(4)
        rest = m.group(5).split()
        self.tcptype = rest[rest.index("tcptype") + 1] if "tcptype" in rest[:-1] else None

    @property
    def usable(self) -> bool:
        """Whether the harness's peers can use it: callbot and aiortc do ICE over UDP only,
        on component 1 (rtcp-mux). A TCP candidate, e.g. Firefox's "tcptype active" ones on
        port 9, is kept in the SDP but cannot carry the call on its own."""
        return self.transport == "udp" and self.component == 1

    def __str__(self) -> str:
        tcp = f" tcptype {self.tcptype}" if self.tcptype else ""
        return f"{self.transport.upper()} {self.address} typ {self.type}{tcp} (component {self.component})"


def candidates(sdp: str) -> list[Candidate]:
    return [Candidate(m) for m in (_CANDIDATE_RE.match(l.rstrip("\r")) for l in sdp.splitlines()) if m]


def keep_allowed_candidates(sdp: str) -> str:
    """Drops every a=candidate line whose connection address is not an allowed one.

    The harness only ever talks over loopback (or the fault tests' own namespace addresses):
    no check is ever sent to another address, whatever interfaces the machine has. UDP and
    TCP candidates alike: only the address decides (::1 is not 127.0.0.1, and is dropped).
    """
    lines = sdp.replace("\r\n", "\n").split("\n")
    kept = []
    for line in lines:
        m = _CANDIDATE_RE.match(line)
        if m and m.group(3) not in allowed_addresses:
            continue
        kept.append(line)
    out = "\r\n".join(kept)
    return out if out.endswith("\r\n") else out + "\r\n"


def candidate_types(sdp: str) -> list[str]:
    """The types of the usable (UDP, component 1) candidates."""
    return [c.type for c in candidates(sdp) if c.usable]


def candidate_problem(sdp: str, whose: str, original: Optional[str] = None) -> Optional[str]:
    """An error message when an SDP (after candidate filtering) carries no usable candidate:
    none at all, or only TCP (or component 2) ones. `original`, the SDP before filtering,
    lets the message say what was dropped."""
    found = candidates(sdp)
    if any(c.usable for c in found):
        return None
    where = ", ".join(allowed_addresses)
    if found:
        message = (f"{whose} SDP has no usable candidate on {where}: only {'; '.join(map(str, found))} "
                   f"(the peers here need a UDP candidate on component 1)")
    else:
        message = (f"{whose} SDP has no candidate on {where} (none gathered there, or the TURN "
                   f"allocation failed: check the TURN server and credentials)")
    if original is not None:
        dropped = sorted({c.address for c in candidates(original)} - set(allowed_addresses))
        if dropped:
            message += f"; dropped the candidates on {', '.join(dropped)}"
    return message


# --- WHIP client ------------------------------------------------------------------------------

class WhipError(Exception):
    pass


def bearer(token: Optional[str]) -> dict:
    return {"Authorization": f"Bearer {token}"} if token else {}


def whip_post(url: str, offer_sdp: str, token: Optional[str] = None) -> tuple[str, str]:
    """POSTs an offer; returns (answer SDP, absolute Location URL). Raises WhipError."""
    req = urllib.request.Request(
        url,
        data=offer_sdp.encode(),
        method="POST",
        headers={"Content-Type": "application/sdp", "Accept": "application/sdp", **bearer(token)},
    )
    try:
        with urllib.request.urlopen(req, timeout=HTTP_TIMEOUT_S) as resp:
            status = resp.status
            location = resp.headers.get("Location")
            ctype = resp.headers.get("Content-Type", "")
            body = resp.read().decode()
    except urllib.error.HTTPError as e:
        detail = e.read().decode(errors="replace")[:300]
        raise WhipError(f"WHIP POST {url}: HTTP {e.code} {e.reason}: {detail}") from None
    except (urllib.error.URLError, OSError) as e:
        raise WhipError(f"WHIP POST {url}: {e}") from None
    if status != 201:
        raise WhipError(f"WHIP POST {url}: expected 201 Created, got {status}")
    if not location:
        raise WhipError(f"WHIP POST {url}: 201 without a Location header")
    if not ctype.startswith("application/sdp"):
        raise WhipError(f"WHIP POST {url}: answer Content-Type is '{ctype}', expected application/sdp")
    return body, urllib.parse.urljoin(url, location)


def whip_delete(location: str, token: Optional[str] = None) -> None:
    req = urllib.request.Request(location, method="DELETE", headers=bearer(token))
    try:
        with urllib.request.urlopen(req, timeout=HTTP_TIMEOUT_S) as resp:
            if resp.status not in (200, 202, 204):
                raise WhipError(f"WHIP DELETE {location}: HTTP {resp.status}")
    except urllib.error.HTTPError as e:
        raise WhipError(f"WHIP DELETE {location}: HTTP {e.code} {e.reason}") from None
    except (urllib.error.URLError, OSError) as e:
        raise WhipError(f"WHIP DELETE {location}: {e}") from None


# --- WHIP endpoint ----------------------------------------------------------------------------

class WhipEndpoint:
    """A threaded HTTP server on 127.0.0.1 that is a WHIP endpoint.

    POST (any path not under /whip/session/) with an application/sdp offer calls
    `on_offer(offer_sdp) -> (session_id, answer_sdp)` and answers 201 with the answer and
    `Location: /whip/session/<id>`. DELETE on that Location calls `on_delete(session_id)`.
    GET / serves `page_html` when given (the browser driver page). Callbacks run on the
    server's threads and may block; exceptions become a 500 with the message.
    """

    SESSION_PREFIX = "/whip/session/"

    def __init__(
        self,
        host: str,
        port: int,
        on_offer: Callable[[str], tuple[str, str]],
        on_delete: Callable[[str], bool],
        page_html: Optional[str] = None,
        log: Callable[[str], None] = lambda s: print(s, file=sys.stderr, flush=True),
    ) -> None:
        endpoint = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, fmt: str, *args) -> None:  # noqa: N802
                endpoint.log("http: " + (fmt % args))

            def _reply(self, code: int, body: bytes = b"", headers: Optional[dict] = None) -> None:
                self.send_response(code)
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Connection", "close")
                self.end_headers()
                if body:
                    self.wfile.write(body)

            def do_GET(self) -> None:  # noqa: N802
                if endpoint.page_html is not None and self.path.split("?")[0] in ("/", "/index.html"):
                    self._reply(200, endpoint.page_html.encode(), {"Content-Type": "text/html; charset=utf-8"})
                else:
                    self._reply(404)

            def do_OPTIONS(self) -> None:  # noqa: N802
                self._reply(204, headers={"Allow": "POST, DELETE, OPTIONS", "Accept-Post": "application/sdp"})

            def do_POST(self) -> None:  # noqa: N802
                if self.path.startswith(WhipEndpoint.SESSION_PREFIX):
                    self._reply(405, b"POST the offer to the endpoint, not to a session\n")
                    return
                if not self.headers.get("Content-Type", "").startswith("application/sdp"):
                    self._reply(415, b"Content-Type must be application/sdp\n")
                    return
                try:
                    length = int(self.headers.get("Content-Length", "0"))
                except ValueError:
                    length = -1
                if length <= 0 or length > 1_000_000:
                    self._reply(400, b"missing or bad Content-Length\n")
                    return
                offer = self.rfile.read(length).decode(errors="replace")
                try:
                    session_id, answer = endpoint.on_offer(offer)
                except Exception as e:  # reported to the client, the server keeps running
                    endpoint.log(f"whip: offer failed: {e!r}")
                    self._reply(500, f"offer failed: {e}\n".encode())
                    return
                self._reply(
                    201,
                    answer.encode(),
                    {
                        "Content-Type": "application/sdp",
                        "Location": WhipEndpoint.SESSION_PREFIX + session_id,
                        "ETag": f'"{session_id}"',
                    },
                )

            def do_DELETE(self) -> None:  # noqa: N802
                if not self.path.startswith(WhipEndpoint.SESSION_PREFIX):
                    self._reply(405)
                    return
                session_id = self.path[len(WhipEndpoint.SESSION_PREFIX):]
                try:
                    found = endpoint.on_delete(session_id)
                except Exception as e:
                    endpoint.log(f"whip: delete failed: {e!r}")
                    self._reply(500, f"delete failed: {e}\n".encode())
                    return
                self._reply(200 if found else 404)

        self.on_offer = on_offer
        self.on_delete = on_delete
        self.page_html = page_html
        self.log = log
        self.httpd = http.server.ThreadingHTTPServer((host, port), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="whip-http", daemon=True)

    @property
    def port(self) -> int:
        return self.httpd.server_address[1]

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
