#!/usr/bin/env python3
"""Asserts from bot report JSON files that a call connected and that audio and video were
received and decoded: packets received > 0, frames decoded > 0, video width/height > 0 and
audio rms > 0, no errors. Prints one summary line per report; exits 1 listing what failed.

  check_report.py [FLAGS] REPORT.json [[FLAGS] REPORT.json ...]

Flags apply to the report that follows them:
  --relay               that report's selected local candidate must be a relay candidate
  --no-media            a data-only connection: no audio or video checks
  --data-channel LABEL  the report must have a data_channels row LABEL: for a whip-client,
                        every message sent and echoed back (messages_sent = messages_received =
                        N), no echo mismatch, open_ms and echo_ms known; for a whip-server, N
                        messages received and N echoed, open_ms known
  --expect-messages N   N for --data-channel (default 10)
  --expect-size BYTES   each message's size: bytes_sent = bytes_received = N * BYTES
"""

import json
import sys


def check(path: str, relay: bool, media: bool = True, data: dict = None) -> list[str]:
    try:
        with open(path) as f:
            r = json.load(f)
    except (OSError, ValueError) as e:
        return [f"{path}: no readable report ({e})"]
    name = f"{r.get('peer')} {r.get('role')}"
    problems = []

    def need(ok: bool, what: str) -> None:
        if not ok:
            problems.append(f"{path} ({name}): {what}")

    need(r.get("connected") is True, "not connected")
    need(not r.get("errors"), f"errors {r.get('errors')}")
    v, a = r.get("video") or {}, r.get("audio") or {}
    if media:
        for kind in ("audio", "video"):
            k = r.get(kind) or {}
            need((k.get("rtp_packets_received") or 0) > 0, f"{kind}: no RTP packets received")
            need((k.get("rtp_packets_sent") or 0) > 0, f"{kind}: no RTP packets sent")
            need((k.get("frames_decoded") or 0) > 0, f"{kind}: no frames decoded")
        need((v.get("width") or 0) > 0 and (v.get("height") or 0) > 0, "video: no decoded size")
        need((a.get("rms") or 0) > 0, "audio: decoded rms is 0 (silence) or unknown")
    if relay:
        need(r.get("local_candidate_type") == "relay",
             f"local candidate is {r.get('local_candidate_type')}, not relay")
    if data is not None:
        check_data_channel(r, data, need)
    print(f"{name}: connected={r.get('connected')} ice={r.get('ice_connected_ms')}ms "
          f"dtls={r.get('dtls_connected_ms')}ms pair={r.get('local_candidate_type')}->"
          f"{r.get('remote_candidate_type')}/{r.get('candidate_protocol')} | "
          f"audio sent={a.get('rtp_packets_sent')} recv={a.get('rtp_packets_received')} "
          f"decoded={a.get('frames_decoded')} rms={a.get('rms') and round(a['rms'], 4)} | "
          f"video sent={v.get('rtp_packets_sent')} recv={v.get('rtp_packets_received')} "
          f"decoded={v.get('frames_decoded')} {v.get('width')}x{v.get('height')}")
    for row in r.get("data_channels") or []:
        print(f"  data channel {row.get('label')!r}: sent {row.get('messages_sent')} ({row.get('bytes_sent')} B) "
              f"received {row.get('messages_received')} ({row.get('bytes_received')} B) "
              f"mismatches={row.get('echo_mismatches')} open={row.get('open_ms')}ms echo={row.get('echo_ms')}ms")
    return problems


def check_data_channel(r: dict, data: dict, need) -> None:
    """The row of data["label"]: all of data["messages"] echoed (client) or echoed back (server)."""
    label, count, size = data["label"], data["messages"], data["size"]
    rows = [row for row in r.get("data_channels") or [] if row.get("label") == label]
    need(len(rows) == 1, f"data_channels has {len(rows)} rows labelled {label!r}, expected 1")
    if len(rows) != 1:
        return
    row = rows[0]
    what = f"data channel {label!r}"
    need(row.get("messages_sent") == count, f"{what}: messages_sent {row.get('messages_sent')}, expected {count}")
    need(row.get("messages_received") == count,
         f"{what}: messages_received {row.get('messages_received')}, expected {count}")
    need(row.get("echo_mismatches") == 0, f"{what}: echo_mismatches {row.get('echo_mismatches')}")
    need(isinstance(row.get("open_ms"), (int, float)) and row["open_ms"] >= 0,
         f"{what}: open_ms {row.get('open_ms')}")
    if r.get("role") == "whip-client":
        need(isinstance(row.get("echo_ms"), (int, float)) and row["echo_ms"] >= 0,
             f"{what}: echo_ms {row.get('echo_ms')}")
    if size is not None:
        for field in ("bytes_sent", "bytes_received"):
            need(row.get(field) == count * size, f"{what}: {field} {row.get(field)}, expected {count * size}")


def main() -> int:
    args = sys.argv[1:]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    problems = []
    relay, media, data = False, True, None
    messages, size = 10, None
    i = 0
    while i < len(args):
        a = args[i]
        value = args[i + 1] if i + 1 < len(args) else None
        if a == "--relay":
            relay = True
        elif a == "--no-media":
            media = False
        elif a in ("--data-channel", "--expect-messages", "--expect-size"):
            if value is None:
                print(f"check_report.py: {a} needs a value", file=sys.stderr)
                return 2
            i += 1
            if a == "--data-channel":
                data = value
            else:
                try:
                    number = int(value)
                except ValueError:
                    print(f"check_report.py: {a} takes a number, not {value!r}", file=sys.stderr)
                    return 2
                if a == "--expect-messages":
                    messages = number
                else:
                    size = number
        elif a.startswith("--"):
            print(f"check_report.py: unknown flag {a}\n{__doc__}", file=sys.stderr)
            return 2
        else:
            spec = None if data is None else {"label": data, "messages": messages, "size": size}
            problems += check(a, relay, media, spec)
            relay, media, data = False, True, None
            messages, size = 10, None
        i += 1
    for p in problems:
        print(f"FAIL {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
