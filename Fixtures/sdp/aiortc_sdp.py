#!/usr/bin/env python3
"""Drives aiortc (PyPI) to produce or consume SDP.

  aiortc_sdp.py record OUTDIR   writes aiortc's offer and its answer to it (audio+video, full
                                candidate lists: aiortc gathers before setLocalDescription returns)
                                as aiortc-<version>-*.sdp into OUTDIR
  aiortc_sdp.py answer          reads an offer on stdin, prints aiortc's answer to it
                                (setRemoteDescription + createAnswer + setLocalDescription)
  aiortc_sdp.py offer [data]    prints aiortc's audio+video offer (with a data channel too when
                                "data" is given), then a line "--END--", then reads an answer on
                                stdin and applies it (setRemoteDescription); prints
                                "accepted <state>" or fails

ICE gathers on 127.0.0.1 only (aioice leaves loopback out unless patched as below) and no ICE
servers are configured, so nothing is sent anywhere.
"""
import asyncio, os, sys

import aioice.ice
import aiortc
from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription
from aiortc.mediastreams import AudioStreamTrack, VideoStreamTrack

aioice.ice.get_host_addresses = lambda use_ipv4, use_ipv6: ["127.0.0.1"]

def peer():
    return RTCPeerConnection(RTCConfiguration(iceServers=[]))

async def record(outdir):
    offerer = peer()
    offerer.addTrack(AudioStreamTrack())
    offerer.addTrack(VideoStreamTrack())
    await offerer.setLocalDescription(await offerer.createOffer())
    answerer = peer()
    await answerer.setRemoteDescription(offerer.localDescription)
    for t in answerer.getTransceivers():
        answerer.addTrack(AudioStreamTrack() if t.kind == "audio" else VideoStreamTrack())
    await answerer.setLocalDescription(await answerer.createAnswer())
    major = ".".join(aiortc.__version__.split(".")[:2])
    for name, desc in [("offer-audio-video-candidates", offerer.localDescription),
                       ("answer-audio-video-candidates", answerer.localDescription)]:
        path = os.path.join(outdir, f"aiortc-{major}-{name}.sdp")
        with open(path, "w", newline="") as f:
            f.write(desc.sdp)
        print(f"{path} (aiortc {aiortc.__version__}, aioice {aioice.__version__})")
    await offerer.close()
    await answerer.close()

async def answer(offer_sdp):
    pc = peer()
    try:
        await pc.setRemoteDescription(RTCSessionDescription(sdp=offer_sdp, type="offer"))
        for t in pc.getTransceivers():
            if t.kind in ("audio", "video"):
                pc.addTrack(AudioStreamTrack() if t.kind == "audio" else VideoStreamTrack())
        await pc.setLocalDescription(await pc.createAnswer())
    except Exception as e:
        sys.exit(f"aiortc rejected the offer: {type(e).__name__}: {e}")
    sys.stdout.write(pc.localDescription.sdp)
    await pc.close()

async def offer(with_data):
    pc = peer()
    pc.addTrack(AudioStreamTrack())
    pc.addTrack(VideoStreamTrack())
    if with_data:
        pc.createDataChannel("chat")
    await pc.setLocalDescription(await pc.createOffer())
    sys.stdout.write(pc.localDescription.sdp + "--END--\n")
    sys.stdout.flush()
    answer_sdp = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    try:
        await pc.setRemoteDescription(RTCSessionDescription(sdp=answer_sdp, type="answer"))
    except Exception as e:
        sys.exit(f"aiortc rejected the answer: {type(e).__name__}: {e}")
    print("accepted", pc.signalingState)
    await pc.close()

if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "record":
        asyncio.run(record(sys.argv[2]))
    elif len(sys.argv) == 2 and sys.argv[1] == "answer":
        asyncio.run(answer(sys.stdin.read()))
    elif len(sys.argv) in (2, 3) and sys.argv[1] == "offer":
        asyncio.run(offer(sys.argv[2:] == ["data"]))
    else:
        sys.exit(__doc__)
