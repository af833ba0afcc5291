#!/usr/bin/env python3
"""Headless browser interop peer for SwiftRTC: a WHIP client or a WHIP endpoint, on loopback,
in Chromium or Firefox ESR.

  browser_peer.py [--browser chromium|firefox] whip-client URL [--duration S] [--report FILE] [ICE flags]
                  [--no-audio] [--no-video] [--data-channel LABEL [--data-messages N] [--data-size BYTES]
                   [--data-unordered] [--data-max-retransmits K] [--data-binary]]
  browser_peer.py [--browser chromium|firefox] whip-server --port P [--once] [--duration S] [--report FILE] [ICE flags]
                  [--echo-data]

--browser (default chromium) may also come after the role. The browser runs browser_peer.html
with its fake camera and microphone: Chromium driven through chromedriver's W3C HTTP API
(standard library only), Firefox through Marionette (marionette_driver); see browsers.py.
The WHIP HTTP side is done here in Python, so the page never makes cross-origin requests.
--dump-sdp DIR writes the SDPs of each exchange (as the browser produced them, as sent and
as received). See README.md.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
from typing import Any, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from browsers import NAMES, STARTUP_TIMEOUT_S, Browser, make  # noqa: E402
from interop_common import (  # noqa: E402
    DATA_TIMEOUT_S,
    WhipEndpoint,
    WhipError,
    candidate_problem,
    empty_report,
    keep_allowed_candidates,
    print_session,
    whip_delete,
    whip_post,
    finish,
    add_address_flag,
    add_data_client_flags,
    add_data_server_flags,
    check_data_flags,
    set_allowed_addresses,
    unblock_stop_signals,
)

CONNECT_TIMEOUT_S = 30.0


def log(msg: str) -> None:
    print(f"browser_peer: {msg}", file=sys.stderr, flush=True)


def page_config(args: argparse.Namespace) -> dict:
    servers = [{"urls": url, **({"username": args.ice_username} if args.ice_username else {}),
                **({"credential": args.ice_credential} if args.ice_credential else {})}
               for url in args.ice_server]
    config: dict[str, Any] = {"iceServers": servers, "relayOnly": args.relay_only}
    if args.role == "whip-client":
        config["audio"] = not args.no_audio
        config["video"] = not args.no_video
        if args.data_channel is not None:
            config["dataChannel"] = {
                "label": args.data_channel, "ordered": not args.data_unordered,
                "maxRetransmits": args.data_max_retransmits, "messages": args.data_messages,
                "size": args.data_size, "binary": args.data_binary,
            }
    else:
        config["echoData"] = args.echo_data
    return config


def note_candidates(errors: list[str], sdp: str, whose: str, original: Optional[str] = None) -> None:
    problem = candidate_problem(sdp, whose, original)
    if problem:
        log(problem)
        errors.append(problem)


def wait_connected(browser: Browser, session_id: str, report_errors: list[str]) -> bool:
    deadline = time.monotonic() + CONNECT_TIMEOUT_S
    status: Any = None
    while time.monotonic() < deadline:
        status = browser.call("status", session_id)
        if status and status["connected"]:
            return True
        if status and status["failed"]:
            return False
        time.sleep(0.2)
    report_errors.append(f"not connected after {CONNECT_TIMEOUT_S:.0f} s ({status})")
    return False


def merge(report: dict, page_report: Optional[dict], peer: str) -> dict:
    if page_report:
        errors = report["errors"] + page_report.get("errors", [])
        report.update(page_report)
        report["errors"] = errors
    report["peer"] = peer
    return report


class SdpDump:
    """--dump-sdp DIR: each SDP of an exchange as the browser produced it (before candidate
    filtering), as sent and as received, in files named <browser>-<role>[-<session>]-<what>.sdp."""

    def __init__(self, folder: Optional[str], browser: str, role: str) -> None:
        self.folder = folder
        self.prefix = f"{browser}-{role}"
        if folder:
            os.makedirs(folder, exist_ok=True)

    def __call__(self, what: str, sdp: str, session: Optional[str] = None) -> None:
        if not self.folder:
            return
        name = f"{self.prefix}-{session}-{what}.sdp" if session else f"{self.prefix}-{what}.sdp"
        with open(os.path.join(self.folder, name), "w", newline="") as f:
            f.write(sdp)


def page_server() -> WhipEndpoint:
    """An HTTP server on 127.0.0.1 (a free port) serving only the driver page."""
    def not_an_endpoint(_: str) -> tuple[str, str]:
        raise RuntimeError("this is the page server, not a WHIP endpoint")

    page = WhipEndpoint("127.0.0.1", 0, not_an_endpoint, lambda _: False,
                        page_html=open(os.path.join(HERE, "browser_peer.html")).read(), log=lambda s: None)
    page.start()
    return page


def run_client(browser: Browser, args: argparse.Namespace, stop: threading.Event) -> dict:
    report = empty_report(browser.name, "whip-client")
    dump = SdpDump(args.dump_sdp, browser.name, "whip-client")
    page = page_server()
    location = None
    session_id = None
    try:
        browser.open(f"http://127.0.0.1:{page.port}/")
        offer = browser.call("offer", page_config(args))
        session_id = offer["id"]
        dump("offer-produced", offer["sdp"])
        offer_sdp = keep_allowed_candidates(offer["sdp"])
        dump("offer-sent", offer_sdp)
        note_candidates(report["errors"], offer_sdp, "local", offer["sdp"])
        if args.in_page:
            posted = browser.call("whipPost", args.url, args.token, offer_sdp)
            answer, location = posted["sdp"], posted["location"]
        else:
            answer, location = whip_post(args.url, offer_sdp, args.token)
        log(f"201 Created, Location {location}")
        dump("answer-received", answer)
        received = answer
        answer = keep_allowed_candidates(answer)
        note_candidates(report["errors"], answer, "remote (answer)", received)
        browser.call("applyAnswer", session_id, answer)
        if wait_connected(browser, session_id, report["errors"]):
            log("connected")
            # --duration after connecting (5 s by default). With --data-channel and no
            # --duration, the run ends once every echo is back (DATA_TIMEOUT_S at most).
            duration = args.duration if args.duration is not None else (
                DATA_TIMEOUT_S if args.data_channel is not None else 5.0)
            end = time.monotonic() + duration
            if args.data_channel is not None:
                wait_for_echoes(browser, session_id, end, stop)
            if args.data_channel is None or args.duration is not None:
                stop.wait(max(0.0, end - time.monotonic()))
    except (WhipError, RuntimeError) as e:
        report["errors"].append(str(e))
    if args.screenshot and session_id is not None:
        take_screenshot(browser, args.screenshot)
    if session_id is not None:
        try:
            merge(report, browser.call("finish", session_id), browser.name)
        except RuntimeError as e:
            report["errors"].append(str(e))
    if location:
        try:
            if args.in_page:
                browser.call("whipDelete", location, args.token)
            else:
                whip_delete(location, args.token)
        except (WhipError, RuntimeError) as e:
            report["errors"].append(str(e))
    page.stop()
    report["role"] = "whip-client"
    return report


def wait_for_echoes(browser: Browser, session_id: str, end: float, stop: threading.Event) -> None:
    """Polls the page until its data channel has every echo back, or `end` (monotonic)."""
    data: Any = None
    while not stop.is_set() and time.monotonic() < end:
        data = (browser.call("status", session_id) or {}).get("data")
        if data and data["done"]:
            break
        stop.wait(0.05)
    log(f"data channel: {data}")


def take_screenshot(browser: Browser, path: str) -> None:
    try:
        browser.screenshot(path)
        log(f"screenshot {path}")
    except Exception as e:  # a missing picture never fails the call
        log(f"screenshot failed: {e}")


def run_server(browser: Browser, args: argparse.Namespace, stop: threading.Event) -> dict:
    ready = threading.Event()
    candidate_errors: dict[str, list[str]] = {}
    finished: list[dict] = []
    changed = threading.Event()
    config = page_config(args)
    dump = SdpDump(args.dump_sdp, browser.name, "whip-server")

    def server_report(session_id: str) -> dict:
        report = empty_report(browser.name, "whip-server")
        report["errors"] += candidate_errors.get(session_id, [])
        return report

    def on_offer(sdp: str) -> tuple[str, str]:
        try:
            return answer_offer(sdp)
        except Exception as e:
            # The client gets a 500 with the message. With --once, a session that could not
            # even start is the one session: end now, with the reason in the report.
            if args.once:
                report = empty_report(browser.name, "whip-server")
                report["errors"].append(f"offer failed: {e}")
                finished.append(report)
                changed.set()
            raise

    def answer_offer(sdp: str) -> tuple[str, str]:
        if not ready.wait(STARTUP_TIMEOUT_S):
            raise RuntimeError("browser not ready")
        received = sdp
        sdp = keep_allowed_candidates(sdp)
        answer = browser.call("answer", config, sdp)
        answer_sdp = keep_allowed_candidates(answer["sdp"])
        dump("offer-received", received, answer["id"])
        dump("answer-produced", answer["sdp"], answer["id"])
        dump("answer-sent", answer_sdp, answer["id"])
        problems: list[str] = []
        note_candidates(problems, sdp, "remote (offer)", received)
        note_candidates(problems, answer_sdp, "local", answer["sdp"])
        candidate_errors[answer["id"]] = problems
        log(f"session {answer['id']}: answered")
        return answer["id"], answer_sdp

    def on_delete(session_id: str) -> bool:
        if args.screenshot:
            take_screenshot(browser, args.screenshot)
        page_report = browser.call("finish", session_id)
        if page_report is None:
            return False
        log(f"session {session_id}: ended by DELETE")
        finished.append(merge(server_report(session_id), page_report, browser.name))
        print_session(dict(finished[-1], role="whip-server"))
        changed.set()
        return True

    endpoint = WhipEndpoint(args.host, args.port, on_offer, on_delete, log=log)
    endpoint.start()
    # The page comes from 127.0.0.1 whatever --host is: getUserMedia needs a secure context,
    # and http://127.0.0.1 is one (http://10.99.N.1 in the fault tests' namespaces is not).
    page = page_server()
    try:
        browser.open(f"http://127.0.0.1:{page.port}/")
        ready.set()
        print(f"READY http://{args.host}:{endpoint.port}/whip", flush=True)
        deadline = time.monotonic() + args.duration
        while not stop.is_set() and time.monotonic() < deadline and not (args.once and finished):
            changed.wait(min(0.5, max(0.0, deadline - time.monotonic())))
            changed.clear()
        for session_id in browser.call("ids"):
            page_report = browser.call("finish", session_id)
            if page_report is not None:
                finished.append(merge(server_report(session_id), page_report, browser.name))
                print_session(dict(finished[-1], role="whip-server"))
    except RuntimeError as e:
        report = empty_report(browser.name, "whip-server")
        report["errors"].append(str(e))
        finished.append(report)
    endpoint.stop()
    page.stop()
    if not finished:
        report = empty_report(browser.name, "whip-server")
        report["errors"].append("no WHIP session was offered")
        return report
    report = finished[-1]
    report["role"] = "whip-server"
    report["sessions"] = len(finished)
    return report


def main() -> int:
    unblock_stop_signals()
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    browser_help = "the browser to run (default chromium); before or after the role"
    parser.add_argument("--browser", choices=NAMES, default="chromium", help=browser_help)
    sub = parser.add_subparsers(dest="role", required=True)
    client = sub.add_parser("whip-client", help="dial a WHIP endpoint")
    client.add_argument("url")
    client.add_argument("--token", help="the endpoint's bearer token (Authorization: Bearer)")
    client.add_argument("--in-page", action="store_true",
                        help="POST and DELETE with fetch() from the page, a page on another origin (CORS)")
    server = sub.add_parser("whip-server", help="be a WHIP endpoint")
    server.add_argument("--port", type=int, required=True)
    server.add_argument("--host", default="127.0.0.1")
    server.add_argument("--once", action="store_true", help="exit when the first session ends")
    add_data_client_flags(client)
    add_data_server_flags(server)
    for p, default_duration in ((client, None), (server, 60.0)):
        # After the role too; SUPPRESS keeps a --browser given before the role.
        p.add_argument("--browser", choices=NAMES, default=argparse.SUPPRESS, help=browser_help)
        p.add_argument("--duration", type=float, default=default_duration,
                       help="client: seconds of media after connecting (default 5; with --data-channel, "
                            "until the echoes are back); server: seconds to run at most (default 60)")
        p.add_argument("--report", help="write the bot report JSON here")
        p.add_argument("--ice-server", action="append", default=[], metavar="URL", help="stun:/turn: URL")
        p.add_argument("--ice-username")
        p.add_argument("--ice-credential")
        p.add_argument("--relay-only", action="store_true", help="iceTransportPolicy relay")
        add_address_flag(p)
        p.add_argument("--binary", help="browser binary (default: chromium, or firefox-esr, on PATH)")
        p.add_argument("--chromium", help=argparse.SUPPRESS)  # the older name of --binary, for Chromium
        p.add_argument("--dump-sdp", metavar="DIR", help="write each exchange's SDPs into DIR")
        p.add_argument("--screenshot", metavar="PNG", help="write a picture of the page once media ran")
    args = parser.parse_args()
    if args.role == "whip-client":
        check_data_flags(client, args)
    set_allowed_addresses(args.allow_address)
    if args.relay_only and not any(u.startswith("turn") for u in args.ice_server):
        parser.error("--relay-only needs a turn: or turns: --ice-server")
    if args.chromium and args.browser != "chromium":
        parser.error("--chromium names a Chromium binary; use --binary with --browser firefox")

    # Exits with EXIT_MISSING_DEPENDENCY, naming what to install, when the browser is missing.
    browser = make(args.browser, args.binary or args.chromium)

    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())

    try:
        browser.start()
        log(f"{browser.name} {browser.version()}")
        if args.role == "whip-client":
            report = run_client(browser, args, stop)
        else:
            report = run_server(browser, args, stop)
    except RuntimeError as e:
        report = empty_report(browser.name, args.role)
        report["errors"].append(f"browser: {e}")
    finally:
        browser.close()
    return finish(report, args.report, "browser_peer")


if __name__ == "__main__":
    sys.exit(main())
