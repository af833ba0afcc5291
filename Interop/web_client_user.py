#!/usr/bin/env python3
"""A person in a browser using SwiftRTC's web client (served by `callbot serve` at `/`).

  web_client_user.py BROWSER PAGE_URL --token T (--call USERS | --answer | --reject | --ignore) [options]

BROWSER is chromium or firefox (headless, fake camera and microphone; browsers.py). The
script drives the page as a person would, through its form fields and buttons: logs in, calls
or waits for the phone to ring, accepts (with --user-info) or rejects or lets it ring, mutes,
sets custom items, types lines into the chat box (--chat), hangs up, refreshes the call log.
It prints `READY USER` once logged in, `EVENT {json}` for every event the page records (chat
messages received are `chat` events), and at the end `REPORT {json}`: the events, the ended
call's record, the page's getStats figures per other user, the call log rows, the lines the
chat box showed (`chat`) and what went wrong (`errors`). Exit 0 when the script could play its
part, 1 otherwise (the report says why), 2 when a dependency is missing.
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

RING_TIMEOUT_S = 60.0
CONNECT_TIMEOUT_S = 45.0


def out(line: str) -> None:
    print(line, flush=True)


def User(browser: browsers.Browser) -> browsers.PageUser:
    """The web client's page in one browser, and the events it showed so far."""
    return browsers.PageUser(browser, "callApp")


def ended(event: dict) -> bool:
    return event["name"] == "ended"


def run(user: User, args: argparse.Namespace, stop: threading.Event) -> dict:
    report: dict = {"browser": user.browser.name, "version": user.browser.version(), "errors": []}
    user.browser.open(args.page, ready="window.callApp !== undefined")
    if args.user:
        user.fill("login-user", args.user)
    user.fill("login-secret", args.token)
    user.click("login")
    me = user.wait_for("login", lambda e: e["name"] == "loggedIn", 20, stop)["user"]
    report["user"] = me
    out(f"READY {me}")
    if args.user_info:
        user.fill("user-info", ", ".join(args.user_info))

    if args.call:
        user.fill("call-users", args.call)
        if args.audio_only:
            user.js("document.getElementById('call-video').checked = false;")
        started = time.monotonic()
        user.click("call")
        expected = [name.strip() for name in args.call.split(",") if name.strip()]
    else:
        user.wait_for("incoming call", lambda e: e["name"] == "incoming", RING_TIMEOUT_S, stop)
        if not user.visible("incoming"):
            raise RuntimeError("the page showed no ringing call")
        started = time.monotonic()
        if args.reject:
            user.click("reject")
        elif args.answer:
            user.click("accept")
        expected = []

    if args.answer or args.call:
        # Connected with everyone expected (the caller: the users called; the callee: whoever).
        def connected_with(name: str) -> bool:
            return any(e["name"] == "connected" and e["user"] == name for e in user.events)

        deadline = time.monotonic() + CONNECT_TIMEOUT_S
        while time.monotonic() < deadline and not stop.is_set():
            user.poll()
            if any(ended(e) for e in user.events):
                break
            if (expected and all(connected_with(n) for n in expected)) or (not expected and any(e["name"] == "connected" for e in user.events)):
                report["connected_s"] = round(time.monotonic() - started, 2)
                break
            time.sleep(0.2)
        else:
            report["errors"].append(f"not connected within {CONNECT_TIMEOUT_S:.0f} s")
        for item in args.item:
            key, _, value = item.partition("=")
            user.fill("item-key", key)
            user.fill("item-value", value)
            user.click("item-set")
        for line in args.chat:
            user.fill("chat-text", line)
            user.click("chat-send")
        # In the call: mute after --mute-after, a screenshot before leaving, hang up after --duration.
        in_call = time.monotonic()
        muted = args.mute_after is None
        shot = args.screenshot is None
        until = in_call + (args.duration if args.hang_up_after is None else args.hang_up_after)
        # The screenshot: shortly before hanging up, or (when the others end the call) 3 s in.
        shoot_at = until - 1.5 if args.hang_up_after is not None else in_call + 3
        while not stop.is_set() and not any(ended(e) for e in user.events):
            now = time.monotonic()
            if not muted and now - in_call >= args.mute_after:
                user.click("mute-audio")
                muted = True
                out("MUTED")
            if not shot and now >= shoot_at:
                user.js("window.scrollTo(0, 0);")
                user.browser.screenshot(args.screenshot)
                shot = True
                out(f"SCREENSHOT {args.screenshot}")
            if args.hang_up_after is not None and now >= until:
                user.click("hang-up")
                break
            if args.hang_up_after is None and now >= until:
                report["errors"].append(f"the call did not end within {args.duration:.0f} s")
                break
            user.poll()
            time.sleep(0.2)

    end = user.wait_for("end of the call", ended, 60, stop)
    report["record"] = end["record"]
    # The call log, as the page shows it once refreshed (the server writes the record when the
    # session has ended on its side too).
    time.sleep(1.5)
    def call_logs() -> int:
        return sum(1 for e in user.events if e["name"] == "callLog")

    user.poll()
    before = call_logs()
    user.click("refresh-log")
    deadline = time.monotonic() + 10
    while call_logs() == before and time.monotonic() < deadline:
        time.sleep(0.2)
        user.poll()
    report["stats"] = user.js("return JSON.parse(JSON.stringify(window.callApp.lastStats || {}));")
    snapshot = user.snapshot()
    report["call_log"] = snapshot["callLog"]
    report["chat"] = snapshot["chat"]
    report["events"] = user.events
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("browser", choices=["chromium", "firefox"])
    parser.add_argument("page", help="the web client's URL (http://HOST:PORT/ as `callbot serve` serves it)")
    parser.add_argument("--token", required=True, help="the token, or the password with --user")
    parser.add_argument("--user", help="log in with this user and --token as the password")
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--call", metavar="USERS", help="call these users (comma-separated)")
    action.add_argument("--answer", action="store_true", help="accept the first call that rings")
    action.add_argument("--reject", action="store_true", help="reject the first call that rings")
    action.add_argument("--ignore", action="store_true", help="let the first call ring until the caller gives up")
    parser.add_argument("--audio-only", action="store_true", help="with --call: an audio call")
    parser.add_argument("--user-info", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--item", action="append", default=[], metavar="KEY=VALUE", help="set a custom item once connected")
    parser.add_argument("--chat", action="append", default=[], metavar="TEXT",
                        help="once connected, type TEXT into the chat box and send it (to everyone); repeatable")
    parser.add_argument("--mute-after", type=float, metavar="S", help="press Mute S seconds after connecting")
    parser.add_argument("--hang-up-after", type=float, metavar="S", help="press Hang up S seconds after connecting")
    parser.add_argument("--duration", type=float, default=60, metavar="S",
                        help="without --hang-up-after: seconds the call may last before the others end it")
    parser.add_argument("--screenshot", metavar="PNG", help="a screenshot of the page in the call, shortly before it ends")
    parser.add_argument("--report", metavar="FILE", help="write the report JSON here too")
    args = parser.parse_args()

    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    browser = browsers.make(args.browser)  # exits 2 when the browser is not installed
    report: dict = {"browser": args.browser, "errors": []}
    try:
        browser.start()
        report = run(User(browser), args, stop)
    except RuntimeError as e:
        report["errors"].append(str(e))
    finally:
        browser.close()
    text = json.dumps(report, sort_keys=True)
    out("REPORT " + text)
    if args.report:
        with open(args.report, "w") as f:
            f.write(text + "\n")
    return 0 if not report["errors"] else 1


if __name__ == "__main__":
    sys.exit(main())
