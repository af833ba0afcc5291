#!/usr/bin/env python3
"""Writes the seed corpus of every fuzzer (Fuzz/<Name>/corpus/) from the recorded inputs in
Fixtures/ and a few hand-made ones, in the input format each body in Fuzz/FuzzTargets reads.

Run from the repository root: python3 Fuzz/make-corpus.py. It replaces the corpus folders
(never regressions/); the media seeds of FileReaderFuzzer and RecorderFuzzer come from
ffmpeg (./Scripts/bootstrap.sh --tests installs it), so a new run gives other bytes for those.
SctpFuzzer's seeds are not written here: they are recorded from a live exchange of two
usrsctp associations (swift run swiftrtc-fuzz record-sctp-seeds Fuzz/SctpFuzzer/corpus).
"""
import glob
import json
import os
import shutil
import struct
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIX = os.path.join(ROOT, "Fixtures")
corpora = {}


def seed(target, name, data):
    if isinstance(data, str):
        data = data.encode()
    corpora.setdefault(target, {})[name] = bytes(data)


# --- captures ---------------------------------------------------------------------------------

def udp_payloads(path):
    """The UDP payloads of a pcap or pcapng capture (Ethernet, SLL, SLL2, raw IP, NULL/LOOP)."""
    data = open(path, "rb").read()
    out = []

    def strip(link, pkt):
        if link == 1:
            off, et = 14, struct.unpack(">H", pkt[12:14])[0]
            while et in (0x8100, 0x88A8):
                et = struct.unpack(">H", pkt[off + 2:off + 4])[0]
                off += 4
            return et, pkt[off:]
        if link == 113:
            return struct.unpack(">H", pkt[14:16])[0], pkt[16:]
        if link == 276:
            return struct.unpack(">H", pkt[0:2])[0], pkt[20:]
        if link in (0, 108):
            pkt = pkt[4:]
        return (0x800 if pkt[0] >> 4 == 4 else 0x86DD), pkt

    def udp(et, p):
        if et == 0x800 and p[9] == 17:
            u = p[(p[0] & 15) * 4:]
        elif et == 0x86DD and p[6] == 17:
            u = p[40:]
        else:
            return None
        return u[8:struct.unpack(">H", u[4:6])[0]]

    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\xa1\xb2\xc3\xd4", b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d"):
        e = "<" if magic[0] in (0xD4, 0x4D) else ">"
        link, off = struct.unpack(e + "I", data[20:24])[0], 24
        while off + 16 <= len(data):
            incl = struct.unpack(e + "I", data[off + 8:off + 12])[0]
            r = udp(*strip(link, data[off + 16:off + 16 + incl]))
            off += 16 + incl
            if r is not None:
                out.append(r)
    else:
        off, links, e = 0, [], "<"
        while off + 12 <= len(data):
            if data[off:off + 4] == b"\x0a\x0d\x0d\x0a":
                e = "<" if data[off + 8:off + 12] == b"\x4d\x3c\x2b\x1a" else ">"
                links = []
            kind, length = struct.unpack(e + "II", data[off:off + 8])
            body = data[off + 8:off + length - 4]
            if kind == 1:
                links.append(struct.unpack(e + "H", body[:2])[0])
            elif kind == 6:
                iface, cap = struct.unpack(e + "I", body[:4])[0], struct.unpack(e + "I", body[12:16])[0]
                r = udp(*strip(links[iface], body[20:20 + cap]))
                if r is not None:
                    out.append(r)
            off += length
    return out


def is_rtcp(b):
    return len(b) >= 8 and b[0] >> 6 == 2 and 192 <= b[1] <= 223


def is_rtp(b):
    return len(b) >= 12 and b[0] >> 6 == 2 and not 192 <= b[1] <= 223


def rtp_stream(path, pt, limit=None):
    packets = [p for p in udp_payloads(path) if is_rtp(p) and p[1] & 0x7F == pt]
    return packets[:limit] if limit else packets


def rtcp_packets(path):
    """Each RTCP packet of every compound datagram, alone."""
    out = []
    for d in udp_payloads(path):
        if not is_rtcp(d):
            continue
        off = 0
        while off + 4 <= len(d):
            n = (struct.unpack(">H", d[off + 2:off + 4])[0] + 1) * 4
            out.append(d[off:off + n])
            off += n
    return out


def with_pt(packet, pt):
    return packet[:1] + bytes([(packet[1] & 0x80) | pt]) + packet[2:]


def rtcp(pt, count, body):
    return bytes([0x80 | count, pt]) + struct.pack(">H", len(body) // 4) + body


CHROME = os.path.join(FIX, "rtp", "chrome-156-plain-rtp-opus-vp8-rtx-twcc.pcap")
TO_AIORTC = os.path.join(FIX, "rtp", "chrome-156-to-aiortc-decrypted.pcap")
GST_VP8 = os.path.join(FIX, "rtp", "gstreamer-vp8.pcapng")
PACKETS = os.path.join(FIX, "rtp", "packets", "aiortc")

# Hand-made feedback: NACK (pid 0xFFC0, blp 0x0005), PLI, FIR, REMB 1.5 Mbit/s, an RR block
# losing 25% with LSR/DLSR, and transport-cc for sequence numbers 0xFFF0... (two received).
NACK = rtcp(205, 1, struct.pack(">IIHH", 1, 0x1111, 0xFFC0, 0x0005))
PLI = rtcp(206, 1, struct.pack(">II", 1, 0x1111))
FIR = rtcp(206, 4, struct.pack(">IIIB3x", 1, 0, 0x1111, 7))
REMB = rtcp(206, 15, struct.pack(">II", 1, 0) + b"REMB" + bytes([1, (3 << 2) | 2, 0xDC, 0x6C]) + struct.pack(">I", 0x1111))
RR = rtcp(201, 1, struct.pack(">I", 1) + struct.pack(">IB3sIIII", 0x1111, 64, b"\x00\x00\x10", 0xFFC8, 30, 0x10000, 0x2000))
# transport-cc: base 0xFFF0, 4 statuses, reference time 16, count 0; run-length chunk "small
# delta" x4, then four 1-byte deltas.
TWCC = rtcp(205, 15, struct.pack(">IIHH", 1, 0x1111, 0xFFF0, 4) + bytes([0, 0, 16, 0]) + struct.pack(">H", 0x2004) + bytes([4, 8, 12, 16]) + b"\x00\x00")

# --- RTPFuzzer, RTCPFuzzer -------------------------------------------------------------------

for f in sorted(glob.glob(os.path.join(PACKETS, "rtp*.bin"))):
    seed("RTPFuzzer", "aiortc-" + os.path.basename(f), open(f, "rb").read())
chrome = udp_payloads(CHROME)
opus = [p for p in chrome if is_rtp(p) and p[1] & 0x7F == 111]
vp8 = [p for p in chrome if is_rtp(p) and p[1] & 0x7F == 96]
rtx = [p for p in chrome if is_rtp(p) and p[1] & 0x7F == 97]
seed("RTPFuzzer", "chrome-156-opus-audio-level-twcc.bin", opus[10])
seed("RTPFuzzer", "chrome-156-vp8-first-packet.bin", vp8[0])
seed("RTPFuzzer", "chrome-156-vp8-middle-packet.bin", vp8[40])
seed("RTPFuzzer", "chrome-156-rtx.bin", rtx[0])

for f in sorted(glob.glob(os.path.join(PACKETS, "rtcp*.bin"))):
    seed("RTCPFuzzer", "aiortc-" + os.path.basename(f), open(f, "rb").read())
kinds = {}
for p in rtcp_packets(CHROME) + rtcp_packets(TO_AIORTC):
    kinds.setdefault((p[1], p[0] & 31), p)
for (pt, count), p in sorted(kinds.items()):
    seed("RTCPFuzzer", f"chrome-156-pt{pt}-fmt{count}.bin", p)
for name, p in [("nack", NACK), ("pli", PLI), ("fir", FIR), ("remb", REMB), ("rr-loss", RR), ("twcc", TWCC)]:
    seed("RTCPFuzzer", f"handmade-{name}.bin", p)
seed("RTCPFuzzer", "handmade-compound-rr-remb-twcc-nack.bin", RR + REMB + TWCC + NACK)

# --- VP8DepacketizerFuzzer: [length | marker << 7][payload], payloads cut to 127 bytes -------

def chunked(payloads):
    out = b""
    for payload, marker in payloads:
        payload = payload[:127]
        out += bytes([len(payload) | (0x80 if marker else 0)]) + payload
    return out


def rtp_payload(p):
    csrc, ext = p[0] & 15, p[0] & 0x10
    off = 12 + 4 * csrc
    if ext:
        off += 4 + 4 * struct.unpack(">H", p[off + 2:off + 4])[0]
    end = len(p) - (p[-1] if p[0] & 0x20 else 0)
    return p[off:end]


gst = rtp_stream(GST_VP8, 96)
seed("VP8DepacketizerFuzzer", "gstreamer-vp8-first-frames.bin", chunked([(rtp_payload(p), p[1] & 0x80) for p in gst[:24]]))
seed("VP8DepacketizerFuzzer", "chrome-156-vp8-frames.bin", chunked([(rtp_payload(p), p[1] & 0x80) for p in vp8[:24]]))
seed("VP8DepacketizerFuzzer", "handmade-one-packet-frames.bin",
     chunked([(bytes([0x90, 0x80, 0x01, 0x00, 0x00, 0x9D, 0x01, 0x2A, 0x10, 0x00, 0x10, 0x00]), True),
              (bytes([0x90, 0x80, 0x02, 0x01, 0x00, 0x00]), True)]))

# --- SDPFuzzer, NegotiationFuzzer --------------------------------------------------------------

sdps = sorted(glob.glob(os.path.join(FIX, "sdp", "*.sdp")) + glob.glob(os.path.join(FIX, "rtp", "*.sdp")))
for f in sdps:
    seed("SDPFuzzer", os.path.basename(f), open(f, "rb").read())

# RFC 9725 §4.3.1's trickle example: the PATCH body reader of fuzzSDP.
trickle_fragment = (b"a=group:BUNDLE 0 1\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=mid:0\r\na=ice-ufrag:EsAw\r\n"
                    b"a=ice-pwd:P2uYro0UCOQ4zxjKXaWCBui1\r\n"
                    b"a=candidate:1387637174 1 udp 2122260223 192.0.2.1 61764 typ host generation 0 ufrag EsAw network-id 1\r\n"
                    b"a=end-of-candidates\r\n")
seed("SDPFuzzer", "trickle-ice-sdpfrag.txt", trickle_fragment)
# Negotiation: flags (bit 0 audio, bit 1 video transceiver, bit 2 offer again, bit 3 we offer).
for f in sdps:
    name, text = os.path.basename(f), open(f, "rb").read()
    kind = min((name.find(k), k) for k in ("offer", "answer") if k in name)[1]
    if kind == "offer" and "datachannel" not in name:
        seed("NegotiationFuzzer", "answer-to-" + name, bytes([0x03]) + text)
    elif kind == "answer" and "swiftrtc" in name:
        seed("NegotiationFuzzer", "offer-then-" + name, bytes([0x0B]) + text)
seed("NegotiationFuzzer", "answer-twice-chrome-156-offer-audio-video-bundle-trickle.sdp",
     bytes([0x07]) + open(os.path.join(FIX, "sdp", "chrome-156-offer-audio-video-bundle-trickle.sdp"), "rb").read())
seed("NegotiationFuzzer", "answer-no-transceivers-firefox-153-offer-video-only.sdp",
     bytes([0x00]) + open(os.path.join(FIX, "sdp", "firefox-153-offer-video-only.sdp"), "rb").read())

# --- CongestionFuzzer: caps (audio u16, video u24 in a u32), SSRC byte, then steps ------------
# [ms: u8][packets sent: u8][RTCP length: u16][RTCP]

def steps(items):
    return b"".join(bytes([ms, sent]) + struct.pack(">H", len(p)) + p for ms, sent, p in items)


header = struct.pack(">HIB", 64, 2000 << 8, 2)
seed("CongestionFuzzer", "handmade-twcc-remb-rr-nack.bin",
     header + steps([(20, 20, b""), (30, 10, TWCC), (10, 5, REMB), (50, 10, RR), (5, 0, NACK), (100, 30, RR + TWCC)]))
seed("CongestionFuzzer", "handmade-no-caps-rtx-off.bin", struct.pack(">HIB", 0, 0, 1) + steps([(20, 40, b""), (20, 0, NACK), (20, 0, PLI + FIR)]))
real = [p for p in rtcp_packets(CHROME) if p[1] == 205] + [p for p in rtcp_packets(TO_AIORTC) if p[1] in (200, 201, 206)]
seed("CongestionFuzzer", "chrome-156-and-aiortc-feedback.bin", header + steps([(20, 8, p) for p in real[:40]]))

# --- ReceiverFuzzer: flags, then [ms: u8][length: u16][RTP] ---------------------------------
# flags: bit 0 VP8, bit 1 NACK, bit 2 FIR, bit 3 RTX; media PT 96, RTX 97.

def datagrams(packets, ms=5):
    return b"".join(bytes([ms]) + struct.pack(">H", len(p)) + p for p in packets)


seed("ReceiverFuzzer", "gstreamer-vp8-320x240.bin", bytes([0x0B]) + datagrams(gst, 10))
seed("ReceiverFuzzer", "chrome-156-opus.bin", bytes([0x02]) + datagrams([with_pt(p, 96) for p in opus[:60]], 20))
lost = [p for i, p in enumerate(vp8[:50]) if i % 9 != 4]
seed("ReceiverFuzzer", "chrome-156-vp8-loss-rtx.bin", bytes([0x0B]) + datagrams(lost + [with_pt(p, 97) for p in rtx[:10]], 3))
seed("ReceiverFuzzer", "ffmpeg-vp8-reordered.bin", bytes([0x05]) + datagrams(sum(([b, a] for a, b in zip(*[iter(rtp_stream(os.path.join(FIX, "rtp", "ffmpeg-vp8.pcap"), 96)[:40])] * 2)), []), 7))

# --- SignalingFuzzer: lines of [sender byte][JSON] (0 alice, 1 bob, 2 carol, 3 mallory) ----

S = "5f0c1d2e-0000-4000-8000-000000000001"
call = [
    (0, {"type": "call", "id": "m1", "session": S, "to": ["bob"], "sdp": "v=0", "conferenceType": "video", "initiator": "alice", "opponents": ["bob", "carol"], "userInfo": {"name": "Alice"}}),
    (0, {"type": "call", "id": "m2", "session": S, "to": ["carol"], "sdp": "v=0", "conferenceType": "video", "initiator": "alice", "opponents": ["bob", "carol"]}),
    (1, {"type": "accept", "session": S, "to": ["alice"], "sdp": "v=0", "userInfo": {"name": "Bob"}}),
    (1, {"type": "accept", "session": S, "to": ["carol"]}),
    (2, {"type": "reject", "session": S, "to": ["alice", "bob"], "busy": True}),
    (1, {"type": "candidate", "session": S, "to": ["alice"], "candidate": "candidate:1 1 udp 2130706431 127.0.0.1 9 typ host", "sdpMid": "0", "sdpMLineIndex": 0}),
    (0, {"type": "offer", "session": S, "to": ["bob"], "sdp": "v=0", "iceRestart": True}),
    (1, {"type": "answer", "session": S, "to": ["alice"], "sdp": "v=0", "iceRestart": True}),
    (0, {"type": "mediaSettings", "session": S, "to": ["bob"], "audioEnabled": False}),
    (0, {"type": "customItems", "session": S, "to": ["bob"], "updated": {"topic": "fuzz"}, "deleted": ["old"]}),
    (1, {"type": "recording", "session": S, "to": ["alice"], "active": True, "option": "remote_audio_video"}),
    (3, {"type": "hangUp", "session": S, "to": ["alice"], "result": "completed"}),
    (0, {"type": "hangUp", "session": S, "to": ["bob"], "userInfo": {}, "result": "completed"}),
    (1, {"type": "callLogQuery", "id": "q1", "role": "callee", "limit": 10}),
]
line = lambda sender, message: bytes([sender]) + json.dumps(message, separators=(",", ":")).encode()
seed("SignalingFuzzer", "mesh-call-flow.jsonl", b"\n".join(line(s, m) for s, m in call))
seed("SignalingFuzzer", "no-answer-and-cancel.jsonl", b"\n".join(line(s, m) for s, m in [
    (0, {"type": "call", "session": "s2", "to": ["bob"], "sdp": "v=0", "conferenceType": "audio", "initiator": "alice", "opponents": ["bob"]}),
    (0, {"type": "hangUp", "session": "s2", "to": ["bob"], "result": "no_answer"}),
    (0, {"type": "call", "session": "s3", "to": ["bob"], "sdp": "v=0", "conferenceType": "audio", "initiator": "alice", "opponents": ["bob"]}),
    (0, {"type": "hangUp", "session": "s3", "to": ["bob"], "result": "canceled"}),
    (1, {"type": "call", "session": "s3", "to": ["alice"], "sdp": "v=0", "conferenceType": "audio", "initiator": "bob", "opponents": ["alice"]})]))
seed("SignalingFuzzer", "server-messages.jsonl", b"\n".join(line(s, m) for s, m in [
    (0, {"type": "hello", "token": "t"}), (0, {"type": "welcome", "user": "alice"}),
    (0, {"type": "error", "code": 404, "reason": "not connected: bob", "replyTo": "m1"}),
    (0, {"type": "callLog", "replyTo": "q1", "records": [{"callId": S, "caller": "alice", "callees": ["bob"], "conferenceType": "video",
                                                          "started": 1800000000.5, "answered": 1800000002.25, "ended": 1800000062.25,
                                                          "duration": 60, "result": "completed", "customItems": {"k": "v"}}]})]))

# --- ServerSignalingFuzzer: lines of [step byte][JSON]: the low three bits the connection (0-5),
# the next two the action (0 a message, 1 the connection closes, 2 a sweep) -------------------

TOKENS = {"alice": "alice-fuzz-token-0000", "bob": "bob-fuzz-token-00000", "carol": "carol-fuzz-token-0000"}
step = lambda slot, message=None, action=0: bytes([slot | action << 3]) + (json.dumps(message, separators=(",", ":")).encode() if message else b"")
hellos = [step(i, {"type": "hello", "id": "h%d" % i, "token": TOKENS[u]}) for i, u in enumerate(["alice", "bob", "carol"])]
seed("ServerSignalingFuzzer", "mesh-call-flow.jsonl", b"\n".join(hellos + [step(s, m) for s, m in call if s < 3]))
seed("ServerSignalingFuzzer", "strangers-and-reconnects.jsonl", b"\n".join([
    step(3, {"type": "call", "session": "x", "to": ["bob"], "sdp": "v=0", "conferenceType": "audio", "initiator": "alice", "opponents": ["bob"]}),
    step(4, {"type": "hello", "token": "mallory-token-000000"}), step(4, {"type": "hello", "token": "alice:not a password"}),
    step(5) + b"{not json", step(5) + b'{"type":"hello","id":"' + b"i" * 200 + b'"',
] + hellos[:2] + [
    step(0, {"type": "call", "id": "c1", "session": "s1", "to": ["bob"], "sdp": "v=0", "conferenceType": "video", "initiator": "alice", "opponents": ["bob"]}),
    step(1, action=1), step(0, action=2), hellos[1],
    step(1, {"type": "accept", "session": "s1", "to": ["alice"], "sdp": "v=0"}),
    step(0, {"type": "hangUp", "session": "s1", "to": ["bob"], "result": "completed"}),
    step(1, {"type": "callLogQuery", "id": "q", "role": "callee", "result": "completed", "limit": 500}),
    step(0, {"type": "hello", "id": "again", "token": TOKENS["alice"]}),
]))

# --- WHIPFuzzer: [endpoint byte: bit 0 = the one with a token][one connection's bytes] ------

offer = open(os.path.join(FIX, "sdp", "chrome-156-offer-audio-video-bundle-trickle.sdp"), "rb").read()
audio_offer = open(os.path.join(FIX, "sdp", "firefox-153-offer-audio-only.sdp"), "rb").read()
data_offer = open(os.path.join(FIX, "sdp", "chrome-156-offer-datachannel-only-trickle.sdp"), "rb").read()


def post(body, extra=b"", content_type=b"application/sdp", path=b"/whip"):
    return (b"POST " + path + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: " + content_type + b"\r\n" + extra
            + b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)


seed("WHIPFuzzer", "post-chrome-offer.http", b"\x00" + post(offer))
seed("WHIPFuzzer", "post-firefox-audio-offer-with-token.http", b"\x01" + post(audio_offer, b"Authorization: Bearer fuzz-token\r\n"))
seed("WHIPFuzzer", "post-wrong-token.http", b"\x01" + post(audio_offer, b"Authorization: bearer nope\r\n"))
seed("WHIPFuzzer", "post-datachannel-only-unusable.http", b"\x00" + post(data_offer))
seed("WHIPFuzzer", "post-not-sdp.http", b"\x00" + post(b"hello", content_type=b"text/plain"))
seed("WHIPFuzzer", "post-garbage-sdp.http", b"\x00" + post(b"v=0\r\nm=audio\r\n", content_type=b"application/sdp; charset=utf-8"))
seed("WHIPFuzzer", "post-chunked.http", b"\x00POST /whip HTTP/1.1\r\nHost: x\r\nContent-Type: application/sdp\r\nTransfer-Encoding: chunked\r\n\r\n"
     + b"%x\r\n" % len(audio_offer) + audio_offer + b"\r\n0\r\n\r\n")
seed("WHIPFuzzer", "post-too-large.http", b"\x00POST /whip HTTP/1.1\r\nHost: x\r\nContent-Type: application/sdp\r\nContent-Length: 999999\r\n\r\nv=0\r\n")
seed("WHIPFuzzer", "options-delete-patch.http", b"\x00OPTIONS /whip HTTP/1.1\r\nHost: x\r\n\r\nDELETE /whip/0000 HTTP/1.1\r\nHost: x\r\n\r\n"
     + b"PATCH /whip/0000 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\nPOST /whip/0000 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
seed("WHIPFuzzer", "two-posts-keep-alive.http", b"\x00" + post(audio_offer) + post(b"v=0\r\n"))
seed("WHIPFuzzer", "options-links-whep.http", b"\x00OPTIONS /whip HTTP/1.1\r\nHost: x\r\n\r\n"
     + b"<turn:turn.example.net?transport=udp>; rel=\"ice-server\"; username=\"u\"; credential=\"p\"\r\n" + post(audio_offer).replace(b"/whip", b"/whep"))
seed("WHIPFuzzer", "patch-fragment.http", b"\x00PATCH /whip/0000 HTTP/1.1\r\nHost: x\r\nContent-Type: application/trickle-ice-sdpfrag\r\n"
     + b"If-Match: *\r\nContent-Length: %d\r\n\r\n" % len(trickle_fragment) + trickle_fragment)

# --- STUNFuzzer: a TURN server's answers ----------------------------------------------------

def stun(kind, attributes, tid=b"\x01" * 12):
    body = b""
    for t, v in attributes:
        body += struct.pack(">HH", t, len(v)) + v + b"\x00" * ((4 - len(v) % 4) % 4)
    return struct.pack(">HH", kind, len(body)) + b"\x21\x12\xa4\x42" + tid + body


def error_code(code, reason):
    return bytes([0, 0, code // 100, code % 100]) + reason


seed("STUNFuzzer", "allocate-401-realm-nonce.bin", stun(0x0113, [(0x0009, error_code(401, b"Unauthorized")), (0x0014, b"swiftrtc.test"), (0x0015, b"5f0c1d2e3a4b5c6d"), (0x8022, b"coturn-4.6.1")]))
seed("STUNFuzzer", "allocate-438-stale-nonce.bin", stun(0x0113, [(0x0009, error_code(438, b"Stale Nonce")), (0x0015, b"0123456789abcdef")]))
seed("STUNFuzzer", "allocate-441-wrong-credentials.bin", stun(0x0113, [(0x0009, error_code(441, b"Wrong Credentials"))]))
seed("STUNFuzzer", "allocate-success.bin", stun(0x0103, [(0x0016, b"\x00\x01\xe1\x12\x5e\x12\xa4\x43"), (0x0020, b"\x00\x01\xe1\x12\x5e\x12\xa4\x43"),
                                                         (0x000D, b"\x00\x00\x02\x58"), (0x0008, b"\x00" * 20), (0x8028, b"\x00" * 4)]))

# --- DataChannelFuzzer: [setup], then ops (Fuzz/FuzzTargets/DataChannel.swift) -------------
# setup: bit 0 we are the DTLS client, bits 1-2 the peer's limit (64 KiB, none, 16, 1 KiB),
# bit 3 connect at op 10, bit 4 the peer answers our resets. PPID selectors: 0 DCEP, 1 text,
# 2 binary, 3 empty text, 4 empty binary, 5/6 the old partial PPIDs, 7 a u32 follows.

def u16(v):
    return struct.pack(">H", v)


def dcep_open(channel_type, priority, parameter, label, protocol=b""):
    return bytes([0x03, channel_type]) + struct.pack(">HIHH", priority, parameter, len(label), len(protocol)) + label + protocol


def peer_send(stream, selector, data, ppid=None):
    return bytes([0x00]) + u16(stream) + bytes([selector]) + (struct.pack(">I", ppid) if selector & 7 == 7 else b"") + u16(len(data)) + data


def peer_open(stream, channel_type, label, protocol=b"", priority=256, parameter=0):
    return bytes([0x01]) + u16(stream) + bytes([channel_type]) + struct.pack(">HI", priority, parameter) + u16(len(label)) + label + u16(len(protocol)) + protocol


def peer_repeat(count, stream, selector, data):
    return bytes([0x02]) + u16(count - 1) + u16(stream) + bytes([selector, len(data)]) + data


def peer_opens(count, first, label):
    return bytes([0x03]) + u16(count - 1) + u16(first) + bytes([len(label)]) + label


def peer_reset(*streams):
    return bytes([0x04, len(streams)]) + b"".join(u16(s) for s in streams)


def create(label, protocol=b"", flags=0, id=0, parameter=0):
    return bytes([0x05, flags]) + u16(id) + u16(parameter) + u16(len(label)) + label + u16(len(protocol)) + protocol


def send(index, kind, data=b""):
    return bytes([0x06, index, kind]) + u16(len(data)) + data


close_channel = lambda index: bytes([0x07, index])
read_channels = lambda count=0: bytes([0x08, count])
read_messages = lambda index, count=0xFFFF: bytes([0x09, index]) + u16(count)
CONNECT, PEER_ABORT, CLOSE = b"\x0a", b"\x0b", b"\x0c"
peer_ack = lambda stream: b"\x0d" + u16(stream)

seed("DataChannelFuzzer", "client-every-channel-type-and-message.bin", bytes([0x11]) + b"".join([
    peer_open(1, 0x00, b"chat"),
    peer_open(3, 0x81, b"game", b"json", priority=512, parameter=3),
    peer_open(5, 0x02, b"telemetry", parameter=500),
    peer_open(7, 0x82, "данные 🎉".encode(), "протокол".encode(), priority=128, parameter=100),
    peer_open(9, 0x00, b""),
    read_channels(),
    peer_send(1, 1, "hello ☃".encode()), peer_send(1, 2, b"\x00\x01\x02"), peer_send(1, 3, b"\x00"), peer_send(1, 4, b"\x00"),
    peer_send(3, 0x19, b"unordered, no retransmissions"), peer_send(5, 2, bytes(range(256)) * 4),
    peer_send(9, 1, b"\xff\xfe not utf-8"),
    read_messages(0), read_messages(1), read_messages(2), read_messages(4),
    create(b"mine", b"proto"), create(b"unordered", flags=0x06, parameter=2), create(b"timed", flags=0x08, parameter=250),
    send(5, 0, b"from us"), send(5, 1, b"\x01\x02"), send(5, 2), send(5, 3), send(0, 0, b"answer on theirs"),
    close_channel(5), peer_reset(1), close_channel(3),
]))
seed("DataChannelFuzzer", "server-wrong-parity-and-malformed-dcep.bin", bytes([0x00]) + b"".join([
    peer_open(1, 0x00, b"our parity: taken when free"),
    peer_send(2, 0, dcep_open(0x00, 256, 0, b"ab")[:11]),  # truncated header
    peer_send(4, 0, dcep_open(0x00, 256, 0, b"label past the end")[:-3]),
    peer_send(6, 0, dcep_open(0x03, 256, 0, b"unknown type")),
    peer_send(8, 0, dcep_open(0x83, 256, 0, b"unknown unordered type")),
    peer_send(10, 0, dcep_open(0x00, 256, 0, b"\xc3\x28", b"")),  # not UTF-8
    peer_send(12, 0, dcep_open(0x00, 256, 0, b"ok", b"\xe2\x82")),  # protocol cut inside a character
    peer_send(14, 0, b"\x04"), peer_send(16, 0, b""), peer_ack(18),
    peer_send(20, 0, dcep_open(0x00, 256, 7, b"reliable with a parameter")),
    peer_open(22, 0x00, b"twice"), peer_open(22, 0x01, b"twice again", parameter=1),
    peer_send(24, 0, dcep_open(0x00, 256, 0, b"trailing") + b"junk"),
    read_channels(),
    peer_send(22, 1, b"still the first"), read_messages(0),
]))
seed("DataChannelFuzzer", "server-channels-before-connect-limit-16.bin", bytes([0x0C]) + b"".join([
    create(b"early"), create(b"negotiated", flags=0x01, id=100), create(b"negotiated again", flags=0x01, id=100),
    send(0, 0, b"too soon"), CONNECT,
    send(0, 0, b"sixteen bytes ok"), send(0, 1, b"seventeen bytes!!"), send(1, 1, b"n"), send(1, 3),
    peer_send(100, 1, b"negotiated from the peer"), read_messages(1),
    peer_open(100, 0x00, b"open on a negotiated id"), read_channels(),
]))
seed("DataChannelFuzzer", "client-1100-messages-unread.bin", bytes([0x01]) + b"".join([
    peer_open(1, 0x00, b"flood"), read_channels(),
    peer_repeat(1100, 1, 1, b"m"), read_messages(0, 10), peer_repeat(20, 1, 2, b"\x07"), read_messages(0),
]))
seed("DataChannelFuzzer", "server-1100-channels-unread.bin", bytes([0x10]) + b"".join([
    peer_opens(1100, 0, b"many"), read_channels(10), peer_opens(5, 4000, b"more"), read_channels(),
]))
seed("DataChannelFuzzer", "client-peer-aborts.bin", bytes([0x01]) + b"".join([
    peer_open(1, 0x00, b"a"), create(b"b"), read_channels(), peer_send(1, 1, b"before the abort"),
    PEER_ABORT, send(0, 0, b"after"), create(b"after the abort"), read_messages(0),
]))
seed("DataChannelFuzzer", "client-we-close.bin", bytes([0x11]) + b"".join([
    peer_open(1, 0x00, b"a"), create(b"b"), read_channels(), CLOSE, create(b"after close"), send(2, 0, b"x"),
]))
seed("DataChannelFuzzer", "server-unknown-streams-and-ppids.bin", bytes([0x02]) + b"".join([
    peer_open(0, 0x00, b"known"), read_channels(),
    peer_send(0, 5, b"old binary partial"), peer_send(0, 6, b"old string partial"),
    peer_send(0, 7, b"ppid 0", ppid=0), peer_send(0, 7, b"ppid max", ppid=0xFFFFFFFF),
    peer_send(300, 1, b"no channel here"), peer_send(0, 0, b"\x02"), peer_send(0, 1, b"last"), read_messages(0),
]))

# --- FileReaderFuzzer and RecorderFuzzer: media from ffmpeg ---------------------------------

tmp = tempfile.mkdtemp()


def ffmpeg(*args):
    out = os.path.join(tmp, args[-1])
    subprocess.run(["ffmpeg", "-y", "-loglevel", "error", *args[:-1], out], check=True)
    return open(out, "rb").read()


wav = ffmpeg("-f", "lavfi", "-i", "sine=f=440:d=0.06", "-ar", "8000", "-ac", "1", "mono-8k.wav")
wav_stereo = ffmpeg("-f", "lavfi", "-i", "sine=f=440:d=0.03", "-ar", "44100", "-ac", "2", "stereo-44k.wav")
ogg = ffmpeg("-f", "lavfi", "-i", "sine=f=440:d=0.1", "-c:a", "libopus", "-b:a", "12k", "sine.opus")
ivf = ffmpeg("-f", "lavfi", "-i", "testsrc=size=32x24:rate=10", "-t", "0.3", "-c:v", "libvpx", "-b:v", "20k", "-g", "2", "testsrc.ivf")
y4m = ffmpeg("-f", "lavfi", "-i", "testsrc=size=16x8:rate=5", "-t", "0.4", "-pix_fmt", "yuv420p", "testsrc.y4m")
webm = ffmpeg("-f", "lavfi", "-i", "testsrc=size=32x24:rate=10", "-f", "lavfi", "-i", "sine=f=440:d=0.2", "-t", "0.2",
              "-c:v", "libvpx", "-b:v", "20k", "-c:a", "libopus", "-b:a", "12k", "testsrc.webm")
shutil.rmtree(tmp)

# WAVE_FORMAT_EXTENSIBLE by hand: fmt chunk of 40 bytes with the PCM sub-format.
pcm = wav[44:44 + 200]
fmt = struct.pack("<HHIIHHHHI", 0xFFFE, 1, 16000, 32000, 2, 16, 22, 16, 4) + struct.pack("<H", 1) + b"\x00\x00\x00\x00\x10\x00\x80\x00\x00\xaa\x00\x38\x9b\x71"
extensible = b"RIFF" + struct.pack("<I", 4 + 8 + len(fmt) + 8 + len(pcm)) + b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(pcm)) + pcm
seed("FileReaderFuzzer", "wav-mono-8k.bin", b"\x00" + wav)
seed("FileReaderFuzzer", "wav-stereo-44k.bin", b"\x00" + wav_stereo)
seed("FileReaderFuzzer", "wav-extensible-16k.bin", b"\x00" + extensible)
seed("FileReaderFuzzer", "ogg-opus-sine.bin", b"\x01" + ogg)
seed("FileReaderFuzzer", "ivf-vp8-32x24.bin", b"\x02" + ivf)
seed("FileReaderFuzzer", "y4m-16x8.bin", b"\x03" + y4m)
seed("FileReaderFuzzer", "webm-vp8-opus.bin", b"\x05" + webm)
seed("FileReaderFuzzer", "pcapng-gstreamer-opus.bin", b"\x04" + open(os.path.join(FIX, "rtp", "gstreamer-opus.pcapng"), "rb").read()[:6000])
seed("FileReaderFuzzer", "pcapng-sll2-ffmpeg-opus.bin", b"\x04" + open(os.path.join(FIX, "rtp", "ffmpeg-opus-sll2.pcapng"), "rb").read()[:6000])
seed("FileReaderFuzzer", "pcap-gstreamer-vp8-rtcp.bin", b"\x04" + open(os.path.join(FIX, "rtp", "gstreamer-1.22-vp8-rtp-rtcp.pcap"), "rb").read()[:8000])


def ogg_packets(data):
    packets, partial, off = [], b"", 0
    while off + 27 <= len(data) and data[off:off + 4] == b"OggS":
        count = data[off + 26]
        table = data[off + 27:off + 27 + count]
        pos = off + 27 + count
        for lace in table:
            partial += data[pos:pos + lace]
            pos += lace
            if lace < 255:
                packets.append(partial)
                partial = b""
        off = pos
    return packets[2:]


def ivf_frames(data):
    frames, off = [], 32
    while off + 12 <= len(data):
        size = struct.unpack("<I", data[off:off + 4])[0]
        frames.append(data[off + 12:off + 12 + size])
        off += 12 + size
    return frames


# Recorder frames: [flags: bit 0 VP8, bit 1 keyframe, bit 2 `at` ms follows, bit 3 speech]
# [RTP timestamp: u32][size: u16][data]([at: u32]).
def frame(flags, timestamp, data, at=None):
    return bytes([flags]) + struct.pack(">IH", timestamp & 0xFFFFFFFF, len(data)) + data + (struct.pack(">I", at) if at is not None else b"")


opus_frames = ogg_packets(ogg)
vp8_frames = ivf_frames(ivf)
both = []
for i in range(max(len(opus_frames), len(vp8_frames))):
    if i < len(opus_frames):
        both.append(frame(0x08, 1000 + 960 * i, opus_frames[i]))
    if i < len(vp8_frames):
        both.append(frame(0x01 | (0x02 if vp8_frames[i][0] & 1 == 0 else 0), 5000 + 9000 * i, vp8_frames[i]))
size = struct.pack(">HH", 32, 24)
seed("RecorderFuzzer", "webm-both-ogg-ivf.bin", bytes([0x30]) + size + b"".join(both))
seed("RecorderFuzzer", "trimming-stereo-jumps.bin", bytes([0x0E | 0x10]) + size + b"".join(
    frame(0x08 if i % 3 else 0, t, opus_frames[i % len(opus_frames)]) for i, t in enumerate([0, 960, 1920, 0x7FFFFFFF, 0x80000000, 0xFFFFFF00, 5, 900000])))
seed("RecorderFuzzer", "video-at-times.bin", bytes([0x20]) + size + b"".join(
    frame(0x07 if f[0] & 1 == 0 else 0x05, 3000 * i, f, at=40 * i) for i, f in enumerate(vp8_frames)))

# --- JanusFuzzer: lines of Janus's JSON messages to session 1, handle 2 (Janus 1.1.2's shapes) ---

def janus(**fields):
    return json.dumps(fields, separators=(",", ":")).encode()

room = {"plugin": "janus.plugin.videoroom"}
seed("JanusFuzzer", "videoroom-join-and-events.jsonl", b"\n".join([
    janus(janus="ack", session_id=1, transaction="t"),
    janus(janus="event", session_id=1, sender=2, transaction="t", plugindata=dict(room, data={
        "videoroom": "joined", "room": 1234, "id": 5, "private_id": 6, "publishers": [
            {"id": 7, "display": "bob", "streams": [{"type": "audio", "mindex": 0, "mid": "0", "codec": "opus"}]}]})),
    janus(janus="event", session_id=1, sender=2, plugindata=dict(room, data={"videoroom": "event", "room": 1234, "joining": {"id": 8, "display": "carol"}})),
    janus(janus="event", session_id=1, sender=2, plugindata=dict(room, data={"videoroom": "event", "room": 1234, "leaving": 7})),
    janus(janus="event", session_id=1, sender=2, plugindata=dict(room, data={"videoroom": "attached", "room": 1234}),
          jsep={"type": "offer", "sdp": "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"}),
    janus(janus="trickle", session_id=1, sender=2, candidate={"sdpMid": "0", "sdpMLineIndex": 0, "candidate": "candidate:1 1 udp 2015363327 10.0.0.1 40000 typ host"}),
    janus(janus="trickle", session_id=1, sender=2, candidate={"completed": True}),
    janus(janus="webrtcup", session_id=1, sender=2),
    janus(janus="media", session_id=1, sender=2, mid="0", type="audio", receiving=True),
    janus(janus="slowlink", session_id=1, sender=2, mid="1", media="video", uplink=False, lost=42),
    janus(janus="hangup", session_id=1, sender=2, reason="DTLS alert"),
    janus(janus="detached", session_id=1, sender=2),
]))
seed("JanusFuzzer", "errors-and-timeout.jsonl", b"\n".join([
    janus(janus="error", session_id=1, transaction="t", error={"code": 458, "reason": "No such session 1"}),
    janus(janus="event", session_id=1, sender=2, transaction="u", plugindata=dict(room, data={"videoroom": "event", "error_code": 426, "error": "No such room (1234)"})),
    janus(janus="success", transaction="v", data={"id": 9007199254740991}),
    janus(janus="timeout", session_id=1),
]))

# --- write ------------------------------------------------------------------------------------

for target, files in sorted(corpora.items()):
    folder = os.path.join(ROOT, "Fuzz", target, "corpus")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    for name, data in sorted(files.items()):
        open(os.path.join(folder, name), "wb").write(data)
    print(f"{target}: {len(files)} seeds, {sum(map(len, files.values()))} bytes")
