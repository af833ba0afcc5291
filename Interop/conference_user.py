#!/usr/bin/env python3
"""A person in a browser in a conference room, through SwiftRTC's conference page (served by
`callbot serve --janus URL` at `/conference`).

  conference_user.py BROWSER PAGE_URL --room N --display NAME [--duration S] [--chat TEXT]
                     [--report FILE]

BROWSER is chromium or firefox (headless, fake camera and microphone; browsers.py). The
script drives the page as a person would, through its form: types the room and a name, presses
Join, stays --duration seconds (publishing the fake camera and microphone and receiving every
other publisher), halfway through types each --chat TEXT into the chat box and sends it (Janus
relays to those subscribed by then, and keeps nothing for later), takes a --screenshot if
asked, and presses Leave. It prints `READY ID` once
in the room, `EVENT {json}` for every event the page records, and at the end `REPORT {json}`
in the shape of a `callbot conference` report: `connected`, `errors`, and `publishers`, one
row per publisher received (`id`, `display`, `audio_frames_decoded`, `video_frames_decoded`,
`packets_lost`, the decoded size, and the audio's energy), the lines the chat box showed
(`chat`, "NAME: TEXT"), plus the browser and its version.
Exit 0 when the script could play its part, 1 otherwise (the report says why), 2 when a
dependency is missing.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import browsers  # noqa: E402

JOIN_TIMEOUT_S = 45.0


def out(line: str) -> None:
    print(line, flush=True)


def is_error(event: dict) -> bool:
    return event["name"] == "error"


def run(page: browsers.PageUser, args: argparse.Namespace, report: dict, stop: threading.Event) -> None:
    report["version"] = page.browser.version()
    page.browser.open(args.page, ready="window.conferenceApp !== undefined")
    page.fill("room", str(args.room))
    page.fill("display", args.display)
    page.click("join")
    joined = page.wait_for("join", lambda e: e["name"] == "joined", JOIN_TIMEOUT_S, stop, is_error)
    out(f"READY {joined['id']}")
    page.wait_for("published stream", lambda e: e["name"] == "published", JOIN_TIMEOUT_S, stop, is_error)
    page.wait_for("connected publishing connection",
                  lambda e: e["name"] == "connection" and e["which"] == "publishing" and e["state"] == "connected",
                  JOIN_TIMEOUT_S, stop, is_error)
    report["connected"] = True
    until = time.monotonic() + args.duration
    talk_at = time.monotonic() + args.duration / 2
    shot = False
    while time.monotonic() < until and not stop.is_set():
        if args.chat and time.monotonic() >= talk_at:
            for line in args.chat:
                page.fill("chat-text", line)
                page.click("chat-send")
            args.chat = []
        if args.screenshot and not shot and until - time.monotonic() < 3:
            page.browser.screenshot(args.screenshot)
            shot = True
            out(f"SCREENSHOT {args.screenshot}")
        page.poll()
        for event in page.events:
            if event["name"] == "connection" and event["state"] == "failed":
                raise RuntimeError(f"the {event['which']} connection failed")
        time.sleep(0.25)
    page.click("leave")
    page.wait_for("leave", lambda e: e["name"] == "left", 15, stop)
    snapshot = page.snapshot()
    report["publishers"] = snapshot["publishers"]
    report["tiles"] = snapshot["tiles"]
    report["chat"] = snapshot["chat"]
    report["id"] = snapshot["id"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("browser", choices=["chromium", "firefox"])
    parser.add_argument("page", help="the conference page's URL (http://HOST:PORT/conference)")
    parser.add_argument("--room", type=int, required=True)
    parser.add_argument("--display", required=True, help="the name the room sees")
    parser.add_argument("--duration", type=float, default=30, metavar="S", help="seconds in the room")
    parser.add_argument("--chat", action="append", default=[], metavar="TEXT",
                        help="halfway through the stay, type TEXT into the chat box and send it; repeatable")
    parser.add_argument("--screenshot", metavar="PNG", help="a screenshot of the page shortly before leaving")
    parser.add_argument("--report", metavar="FILE", help="write the report JSON here too")
    args = parser.parse_args()

    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    # Firefox without cubeb's mock audio context: the page plays no AudioContext, and with the
    # mock one driving Firefox's media graph its fake microphone ran at about 70% of real time
    # under load (35 Opus packets a second), so its audio fell seconds behind its video.
    # Without a sound device the graph runs on the system clock instead.
    browser = browsers.make(args.browser, firefox_without_prefs=("media.cubeb.force_mock_context",))
    report: dict = {"browser": args.browser, "connected": False, "errors": [], "publishers": [], "chat": []}
    page = browsers.PageUser(browser, "conferenceApp")
    try:
        browser.start()
        run(page, args, report, stop)
    except RuntimeError as e:
        report["errors"].append(str(e))
    finally:
        report["events"] = page.events
        browser.close()
    text = json.dumps(report, sort_keys=True)
    out("REPORT " + text)
    if args.report:
        with open(args.report, "w") as f:
            f.write(text + "\n")
    return 0 if not report["errors"] else 1


if __name__ == "__main__":
    sys.exit(main())
