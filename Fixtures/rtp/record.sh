#!/usr/bin/env bash
# Records the RTP conformance captures of this folder again: real third-party packetizers
# (GStreamer rtpvp8pay/rtpopuspay, ffmpeg's RTP muxer with libvpx/libopus) send to a loopback
# port while tshark captures. Writes the captures and expected.json (what each producer sent,
# read from the producer's own output: GStreamer's identity element, ffmpeg's IVF/Ogg copy).
# Needs: gstreamer1.0-tools/-plugins-base/-plugins-good, ffmpeg, tshark, python3 (its standard
# library only; see ./Scripts/bootstrap.sh --tests). Run as root (or with capture rights) from anywhere.
set -euo pipefail
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

capture() { # capture FILE FORMAT INTERFACE PORT -- producer command...
  local file=$1 format=$2 iface=$3 port=$4; shift 5
  tshark -q -i "$iface" ${LINKTYPE:+-y $LINKTYPE} -F "$format" -f "udp portrange $port-$((port + 1))" -w "$work/cap" >/dev/null 2>&1 &
  local pid=$!
  sleep 2
  "$@"
  sleep 1
  kill -INT "$pid"; wait "$pid" || true
  cp "$work/cap" "$file"; chmod 644 "$file"
}

# GStreamer VP8: 60 frames 320x240@15, keyframe every 30, 15-bit PictureID, MTU 400 (so frames
# span several packets).
# identity prints every encoded frame (size, delta-unit flag) on stdout with -v.
capture gstreamer-vp8.pcapng pcapng lo 5004 -- sh -c "gst-launch-1.0 -v videotestsrc num-buffers=60 pattern=ball \
  ! video/x-raw,width=320,height=240,framerate=15/1 ! vp8enc keyframe-max-dist=30 target-bitrate=300000 deadline=1 \
  ! identity silent=false ! rtpvp8pay pt=96 ssrc=1111 picture-id-mode=15-bit mtu=400 \
  ! udpsink host=127.0.0.1 port=5004 > $work/gst-vp8.log"

# GStreamer Opus: 100 buffers of 20 ms 440 Hz sine, 32 kbit/s.
capture gstreamer-opus.pcapng pcapng lo 5004 -- sh -c "gst-launch-1.0 -v audiotestsrc num-buffers=100 samplesperbuffer=960 freq=440 \
  ! audio/x-raw,rate=48000,channels=1 ! opusenc bitrate=32000 frame-size=20 \
  ! identity silent=false ! rtpopuspay pt=111 ssrc=2222 ! udpsink host=127.0.0.1 port=5004 > $work/gst-opus.log"

# ffmpeg VP8: 45 frames 320x240@15 (testsrc), GOP 30, 500-byte packets, sent paced (-re), with
# the muxer's RTCP SR on the next port; a copy in IVF gives the sizes.
capture ffmpeg-vp8.pcap pcap lo 5006 -- ffmpeg -hide_banner -loglevel error -re -f lavfi -i testsrc=size=320x240:rate=15 \
  -frames:v 45 -c:v libvpx -b:v 300k -g 30 -deadline realtime \
  -f tee -map 0:v "[f=rtp:ssrc=3333:payload_type=96]rtp://127.0.0.1:5006?pkt_size=500|[f=ivf]$work/ffmpeg.ivf"

# ffmpeg Opus: 2 s of 440 Hz sine, 20 ms frames; a copy in Ogg gives the packet count.
# Captured on "any" with the Linux cooked v2 (SLL2) link type, what `tcpdump -i any` writes.
LINKTYPE=LINUX_SLL2 capture ffmpeg-opus-sll2.pcapng pcapng any 5008 -- ffmpeg -hide_banner -loglevel error -re -f lavfi \
  -i sine=frequency=440:sample_rate=48000:duration=2 -c:a libopus -b:a 32k -frame_duration 20 \
  -f tee -map 0:a "[f=rtp:ssrc=4444:payload_type=111]rtp://127.0.0.1:5008|[f=ogg]$work/ffmpeg.ogg"

ffprobe -v error -select_streams a -show_entries packet=size -of csv=p=0 "$work/ffmpeg.ogg" > "$work/ffmpeg-opus.sizes"

python3 - "$work" <<'PY'
import json, re, struct, sys
work = sys.argv[1]

def gst_frames(log):
    frames = []
    for line in open(log):
        m = re.search(r"identity0: last-message = chain.*?\((\d+) bytes, .*?flags: ([0-9a-f]+)", line)
        if m:
            flags = int(m.group(2), 16)
            frames.append({"size": int(m.group(1)), "keyframe": not (flags & 0x2000)})
    return frames

def ivf_frames(path):
    data = open(path, "rb").read()
    header = struct.unpack_from("<4sHHIHHIII", data, 0)
    off, frames = header[2], []
    while off + 12 <= len(data):
        size = struct.unpack_from("<I", data, off)[0]
        frame = data[off + 12: off + 12 + size]
        frames.append({"size": size, "keyframe": (frame[0] & 1) == 0})
        off += 12 + size
    return frames

def opus_sizes(path):
    return [int(l.split(",")[0]) for l in open(path) if l.strip()]

vp8g = gst_frames(f"{work}/gst-vp8.log")
opusg = gst_frames(f"{work}/gst-opus.log")
vp8f = ivf_frames(f"{work}/ffmpeg.ivf")
# The Ogg copy holds the same packets the RTP muxer sent.
opusf = [{"size": s, "keyframe": True} for s in opus_sizes(f"{work}/ffmpeg-opus.sizes")]
expected = {
  "gstreamer-vp8.pcapng": {"producer": "GStreamer rtpvp8pay (vp8enc)", "ssrc": 1111, "payload_type": 96, "codec": "VP8", "width": 320, "height": 240, "frames": vp8g},
  "gstreamer-opus.pcapng": {"producer": "GStreamer rtpopuspay (opusenc)", "ssrc": 2222, "payload_type": 111, "codec": "opus", "frame_duration_ms": 20, "frames": opusg},
  "ffmpeg-vp8.pcap": {"producer": "ffmpeg RTP muxer (libvpx)", "ssrc": 3333, "payload_type": 96, "codec": "VP8", "width": 320, "height": 240, "frames": vp8f},
  "ffmpeg-opus-sll2.pcapng": {"producer": "ffmpeg RTP muxer (libopus)", "ssrc": 4444, "payload_type": 111, "codec": "opus", "frame_duration_ms": 20, "frames": opusf},
}
json.dump(expected, open("expected.json", "w"), indent=1)
for k, v in expected.items():
    print(k, len(v["frames"]), "frames,", sum(f["keyframe"] for f in v["frames"]), "keyframes")
PY
ls -l *.pcap *.pcapng
