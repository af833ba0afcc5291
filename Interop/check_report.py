#!/usr/bin/env python3
"""Asserts from bot report JSON files that a call connected and that audio and video were
received and decoded: packets received > 0, frames decoded > 0, video width/height > 0 and
audio rms > 0, no errors. Prints one summary line per report; exits 1 listing what failed.

  check_report.py REPORT.json [REPORT.json ...] [--relay REPORT.json]

--relay additionally requires that report's selected local candidate to be a relay candidate.
"""

import json
import sys


def check(path: str, relay: bool) -> list[str]:
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
    for kind in ("audio", "video"):
        k = r.get(kind) or {}
        need((k.get("rtp_packets_received") or 0) > 0, f"{kind}: no RTP packets received")
        need((k.get("rtp_packets_sent") or 0) > 0, f"{kind}: no RTP packets sent")
        need((k.get("frames_decoded") or 0) > 0, f"{kind}: no frames decoded")
    v, a = r.get("video") or {}, r.get("audio") or {}
    need((v.get("width") or 0) > 0 and (v.get("height") or 0) > 0, "video: no decoded size")
    need((a.get("rms") or 0) > 0, "audio: decoded rms is 0 (silence) or unknown")
    if relay:
        need(r.get("local_candidate_type") == "relay",
             f"local candidate is {r.get('local_candidate_type')}, not relay")
    print(f"{name}: connected={r.get('connected')} ice={r.get('ice_connected_ms')}ms "
          f"dtls={r.get('dtls_connected_ms')}ms pair={r.get('local_candidate_type')}->"
          f"{r.get('remote_candidate_type')}/{r.get('candidate_protocol')} | "
          f"audio sent={a.get('rtp_packets_sent')} recv={a.get('rtp_packets_received')} "
          f"decoded={a.get('frames_decoded')} rms={a.get('rms') and round(a['rms'], 4)} | "
          f"video sent={v.get('rtp_packets_sent')} recv={v.get('rtp_packets_received')} "
          f"decoded={v.get('frames_decoded')} {v.get('width')}x{v.get('height')}")
    return problems


def main() -> int:
    args = sys.argv[1:]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    problems = []
    relay = False
    for a in args:
        if a == "--relay":
            relay = True
            continue
        problems += check(a, relay)
        relay = False
    for p in problems:
        print(f"FAIL {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
