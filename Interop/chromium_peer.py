#!/usr/bin/env python3
"""Headless Chromium interop peer for SwiftRTC: a WHIP client or a WHIP endpoint, on loopback.

  chromium_peer.py whip-client URL [--duration S] [--report FILE] [ICE flags]
  chromium_peer.py whip-server --port P [--once] [--duration S] [--report FILE] [ICE flags]

Chromium runs chromium_peer.html with its fake camera and microphone, driven through
chromedriver's W3C HTTP API (standard library only). The WHIP HTTP side is done here in
Python, so the page never makes cross-origin requests. See README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from typing import Any, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from interop_common import (  # noqa: E402
    EXIT_FAILED,
    EXIT_OK,
    WhipEndpoint,
    WhipError,
    candidate_problem,
    die_missing,
    empty_report,
    free_port,
    keep_allowed_candidates,
    whip_delete,
    whip_post,
    write_report,
    add_address_flag,
    set_allowed_addresses,
)

CONNECT_TIMEOUT_S = 30.0
STARTUP_TIMEOUT_S = 60.0
SCRIPT_TIMEOUT_S = 45.0

CHROMIUM_FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--use-fake-device-for-media-stream",
    "--use-fake-ui-for-media-stream",
    "--allow-loopback-in-peer-connection",
    "--autoplay-policy=no-user-gesture-required",
    # Host candidates as real addresses, not mDNS .local names.
    "--disable-features=WebRtcHideLocalIpsWithMdns",
    # Keep the browser quiet: no traffic but the page's own, on loopback.
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-domain-reliability",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-dev-shm-usage",
    "--mute-audio",
]


def log(msg: str) -> None:
    print(f"chromium_peer: {msg}", file=sys.stderr, flush=True)


class Browser:
    """chromedriver + headless Chromium running the driver page. Always call close()."""

    def __init__(self) -> None:
        self.tmp = tempfile.mkdtemp(prefix="swiftrtc-chromium-")
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.session: Optional[str] = None
        self.proc: Optional[subprocess.Popen] = None
        self.watchdog: Optional[subprocess.Popen] = None
        self.lock = threading.Lock()
        self.driver_log = os.path.join(self.tmp, "chromedriver.log")

    def start(self, chromium: str, chromedriver: str) -> None:
        # Own process group: close() ends chromedriver and the Chromium it started, by group id.
        self.proc = subprocess.Popen(
            [chromedriver, f"--port={self.port}", "--allowed-ips=127.0.0.1",
             f"--log-path={self.driver_log}"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        # If this script is killed outright (SIGKILL), nothing here runs: a watchdog shell
        # then kills the chromedriver/Chromium group once this process is gone.
        self.watchdog = subprocess.Popen(
            ["/bin/sh", "-c",
             'while kill -0 "$1" 2>/dev/null; do sleep 1; done; kill -KILL -"$2" 2>/dev/null',
             "chromium-peer-watchdog", str(os.getpid()), str(self.proc.pid)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while True:
            try:
                if self._http("GET", "/status", timeout=2).get("ready"):
                    break
            except RuntimeError:
                pass
            if self.proc.poll() is not None:
                raise RuntimeError(f"chromedriver exited with {self.proc.returncode} (log {self.driver_log})")
            if time.monotonic() > deadline:
                raise RuntimeError("chromedriver did not become ready in time")
            time.sleep(0.1)
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium,
                "args": CHROMIUM_FLAGS + [f"--user-data-dir={os.path.join(self.tmp, 'profile')}"],
            },
        }}}
        self.session = self._http("POST", "/session", caps, timeout=STARTUP_TIMEOUT_S)["sessionId"]
        self._http("POST", f"/session/{self.session}/timeouts", {"script": int(SCRIPT_TIMEOUT_S * 1000)})

    def _http(self, method: str, path: str, body: Any = None, timeout: float = SCRIPT_TIMEOUT_S + 10) -> Any:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                payload = json.loads(resp.read() or b"{}")
        except urllib.error.HTTPError as e:
            try:
                value = json.loads(e.read() or b"{}").get("value", {})
            except ValueError:
                value = {}
            message = str(value.get("message", "")).split("\n")[0]
            raise RuntimeError(f"chromedriver {method} {path}: HTTP {e.code} {value.get('error')}: {message}") from None
        except (urllib.error.URLError, OSError, ValueError) as e:
            raise RuntimeError(f"chromedriver {method} {path}: {e}") from None
        return payload.get("value") if isinstance(payload, dict) else None

    def open(self, url: str) -> None:
        with self.lock:
            self._http("POST", f"/session/{self.session}/url", {"url": url}, timeout=STARTUP_TIMEOUT_S)
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while not self.run("return window.peerReady === true"):
            if time.monotonic() > deadline:
                raise RuntimeError(f"driver page did not load from {url}")
            time.sleep(0.1)

    def run(self, script: str, *args: Any) -> Any:
        """execute_script: the script's return value."""
        with self.lock:
            return self._http("POST", f"/session/{self.session}/execute/sync", {"script": script, "args": list(args)})

    def call(self, method: str, *args: Any) -> Any:
        """Awaits window.peer.<method>(...args) in the page; raises RuntimeError on rejection."""
        script = (
            "const done = arguments[arguments.length - 1];"
            f"Promise.resolve().then(() => window.peer.{method}(...Array.from(arguments).slice(0, -1)))"
            ".then((v) => done({ok: v}), (e) => done({error: String(e && e.stack || e)}));"
        )
        with self.lock:
            result = self._http("POST", f"/session/{self.session}/execute/async", {"script": script, "args": list(args)})
        if result is None or "error" in result:
            raise RuntimeError(f"page {method}: {result and result.get('error')}")
        return result.get("ok")

    def close(self) -> None:
        if self.session:
            try:
                with self.lock:
                    self._http("DELETE", f"/session/{self.session}", timeout=15)
            except Exception as e:
                log(f"closing the browser session: {e}")
            self.session = None
        if self.proc is not None:
            if self.proc.poll() is None:
                try:
                    os.killpg(self.proc.pid, signal.SIGTERM)
                    self.proc.wait(5)
                except (ProcessLookupError, subprocess.TimeoutExpired):
                    pass
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)  # whatever of the group is left (Chromium)
            except ProcessLookupError:
                pass
        if self.watchdog is not None:
            self.watchdog.kill()
            self.watchdog.wait()
        shutil.rmtree(self.tmp, ignore_errors=True)


def page_config(args: argparse.Namespace) -> dict:
    servers = [{"urls": url, **({"username": args.ice_username} if args.ice_username else {}),
                **({"credential": args.ice_credential} if args.ice_credential else {})}
               for url in args.ice_server]
    return {"iceServers": servers, "relayOnly": args.relay_only}


def note_candidates(errors: list[str], sdp: str, whose: str) -> None:
    problem = candidate_problem(sdp, whose)
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


def merge(report: dict, page_report: Optional[dict]) -> dict:
    if page_report:
        errors = report["errors"] + page_report.get("errors", [])
        report.update(page_report)
        report["errors"] = errors
    return report


def page_server() -> WhipEndpoint:
    """An HTTP server on 127.0.0.1 (a free port) serving only the driver page."""
    def not_an_endpoint(_: str) -> tuple[str, str]:
        raise RuntimeError("this is the page server, not a WHIP endpoint")

    page = WhipEndpoint("127.0.0.1", 0, not_an_endpoint, lambda _: False,
                        page_html=open(os.path.join(HERE, "chromium_peer.html")).read(), log=lambda s: None)
    page.start()
    return page


def run_client(browser: Browser, args: argparse.Namespace, stop: threading.Event) -> dict:
    report = empty_report("chromium", "whip-client")
    page = page_server()
    location = None
    session_id = None
    try:
        browser.open(f"http://127.0.0.1:{page.port}/")
        offer = browser.call("offer", page_config(args))
        session_id = offer["id"]
        offer_sdp = keep_allowed_candidates(offer["sdp"])
        note_candidates(report["errors"], offer_sdp, "local")
        answer, location = whip_post(args.url, offer_sdp)
        log(f"201 Created, Location {location}")
        answer = keep_allowed_candidates(answer)
        note_candidates(report["errors"], answer, "remote (answer)")
        browser.call("applyAnswer", session_id, answer)
        if wait_connected(browser, session_id, report["errors"]):
            log("connected")
            stop.wait(args.duration)
    except (WhipError, RuntimeError) as e:
        report["errors"].append(str(e))
    if session_id is not None:
        try:
            merge(report, browser.call("finish", session_id))
        except RuntimeError as e:
            report["errors"].append(str(e))
    if location:
        try:
            whip_delete(location)
        except WhipError as e:
            report["errors"].append(str(e))
    page.stop()
    report["role"] = "whip-client"
    return report


def run_server(browser: Browser, args: argparse.Namespace, stop: threading.Event) -> dict:
    ready = threading.Event()
    candidate_errors: dict[str, list[str]] = {}
    finished: list[dict] = []
    changed = threading.Event()
    config = page_config(args)

    def server_report(session_id: str) -> dict:
        report = empty_report("chromium", "whip-server")
        report["errors"] += candidate_errors.get(session_id, [])
        return report

    def on_offer(sdp: str) -> tuple[str, str]:
        if not ready.wait(STARTUP_TIMEOUT_S):
            raise RuntimeError("browser not ready")
        sdp = keep_allowed_candidates(sdp)
        answer = browser.call("answer", config, sdp)
        answer_sdp = keep_allowed_candidates(answer["sdp"])
        problems: list[str] = []
        note_candidates(problems, sdp, "remote (offer)")
        note_candidates(problems, answer_sdp, "local")
        candidate_errors[answer["id"]] = problems
        log(f"session {answer['id']}: answered")
        return answer["id"], answer_sdp

    def on_delete(session_id: str) -> bool:
        page_report = browser.call("finish", session_id)
        if page_report is None:
            return False
        log(f"session {session_id}: ended by DELETE")
        finished.append(merge(server_report(session_id), page_report))
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
                finished.append(merge(server_report(session_id), page_report))
    except RuntimeError as e:
        report = empty_report("chromium", "whip-server")
        report["errors"].append(str(e))
        finished.append(report)
    endpoint.stop()
    page.stop()
    if not finished:
        report = empty_report("chromium", "whip-server")
        report["errors"].append("no WHIP session was offered")
        return report
    report = finished[-1]
    report["role"] = "whip-server"
    report["sessions"] = len(finished)
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="role", required=True)
    client = sub.add_parser("whip-client", help="dial a WHIP endpoint")
    client.add_argument("url")
    server = sub.add_parser("whip-server", help="be a WHIP endpoint")
    server.add_argument("--port", type=int, required=True)
    server.add_argument("--host", default="127.0.0.1")
    server.add_argument("--once", action="store_true", help="exit when the first session ends")
    for p, default_duration in ((client, 5.0), (server, 60.0)):
        p.add_argument("--duration", type=float, default=default_duration,
                       help="client: seconds of media after connecting; server: seconds to run at most")
        p.add_argument("--report", help="write the bot report JSON here")
        p.add_argument("--ice-server", action="append", default=[], metavar="URL", help="stun:/turn: URL")
        p.add_argument("--ice-username")
        p.add_argument("--ice-credential")
        p.add_argument("--relay-only", action="store_true", help="iceTransportPolicy relay")
        add_address_flag(p)
        p.add_argument("--chromium", help="Chromium binary (default: chromium on PATH)")
    args = parser.parse_args()
    set_allowed_addresses(args.allow_address)
    if args.relay_only and not any(u.startswith("turn") for u in args.ice_server):
        parser.error("--relay-only needs a turn: or turns: --ice-server")

    chromium = args.chromium or shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        die_missing("Chromium", "apt-get install -y chromium")
    chromedriver = shutil.which("chromedriver")
    if not chromedriver:
        die_missing("chromedriver", "apt-get install -y chromium-driver")

    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())

    browser = Browser()
    try:
        browser.start(chromium, chromedriver)
        if args.role == "whip-client":
            report = run_client(browser, args, stop)
        else:
            report = run_server(browser, args, stop)
    except RuntimeError as e:
        report = empty_report("chromium", args.role)
        report["errors"].append(f"browser: {e}")
    finally:
        browser.close()
    write_report(report, args.report)
    if not report["connected"]:
        print(f"chromium_peer: FAILED: {'; '.join(report['errors']) or 'not connected'}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
