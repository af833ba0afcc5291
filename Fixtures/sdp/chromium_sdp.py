#!/usr/bin/env python3
"""Drives headless Chromium through chromedriver (W3C WebDriver over loopback HTTP, standard
library only) to produce or consume SDP.

  chromium_sdp.py record OUTDIR   writes Chromium's offer/answer (audio+video, with and without
                                  candidates) as chromium-<version>-*.sdp into OUTDIR
  chromium_sdp.py answer          reads an offer on stdin, prints Chromium's answer to it
                                  (setRemoteDescription + createAnswer + setLocalDescription)
  chromium_sdp.py renegotiate     reads two offers on stdin separated by a line "--NEXT--" and
                                  answers both on one peer connection (e.g. an ICE restart);
                                  prints the two answers separated by "--NEXT--"
  chromium_sdp.py offer [data]    prints Chromium's audio+video offer (after gathering; with a
                                  data channel too when "data" is given), then a line "--END--",
                                  then reads an answer on stdin and applies it
                                  (setRemoteDescription); prints "accepted <state>" or fails

Needs Debian's `chromium` and `chromium-driver`. No ICE servers are configured and the
peer connections are never connected: nothing is sent anywhere.
"""
import json, os, subprocess, sys, tempfile, time, urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Interop"))
from interop_common import free_port  # noqa: E402  (a port below the ephemeral range)

class Driver:
    def __init__(self):
        self.port = free_port()
        self.proc = subprocess.Popen(["chromedriver", f"--port={self.port}"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.base = f"http://127.0.0.1:{self.port}"
        for _ in range(100):
            try:
                self.call("GET", "/status")
                break
            except OSError:
                time.sleep(0.1)
        caps = {"capabilities": {"alwaysMatch": {"goog:chromeOptions": {
            "binary": "/usr/bin/chromium",
            "args": ["--headless", "--no-sandbox", "--disable-gpu", "--use-fake-device-for-media-stream",
                     "--use-fake-ui-for-media-stream", "--allow-loopback-in-peer-connection"]}}}}
        self.session = self.call("POST", "/session", caps)["sessionId"]

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as r:
            return json.loads(r.read())["value"]

    def run(self, script, *args):
        s = f"/session/{self.session}"
        self.call("POST", s + "/timeouts", {"script": 30000})
        return self.call("POST", s + "/execute/async", {"script": script, "args": list(args)})

    def close(self):
        try:
            self.call("DELETE", f"/session/{self.session}")
        finally:
            # SIGKILL: a parent may have left SIGTERM blocked (the mask is inherited).
            self.proc.kill()
            self.proc.wait()

GATHERED = """
function gathered(pc) {
  return new Promise(resolve => {
    if (pc.iceGatheringState === 'complete') return resolve();
    pc.addEventListener('icegatheringstatechange', () => { if (pc.iceGatheringState === 'complete') resolve(); });
  });
}
"""

RECORD = GATHERED + """
const done = arguments[arguments.length - 1];
(async () => {
  const out = {useragent: navigator.userAgent};
  const stream = await navigator.mediaDevices.getUserMedia({audio: true, video: true});
  const offerer = new RTCPeerConnection({iceServers: []});
  stream.getTracks().forEach(t => offerer.addTrack(t, stream));
  const offer = await offerer.createOffer();
  out['offer-audio-video-trickle'] = offer.sdp;
  await offerer.setLocalDescription(offer);
  await gathered(offerer);
  out['offer-audio-video-candidates'] = offerer.localDescription.sdp;
  const answerer = new RTCPeerConnection({iceServers: []});
  await answerer.setRemoteDescription(offer);
  const stream2 = await navigator.mediaDevices.getUserMedia({audio: true, video: true});
  stream2.getTracks().forEach(t => answerer.addTrack(t, stream2));
  const answer = await answerer.createAnswer();
  out['answer-audio-video-trickle'] = answer.sdp;
  await answerer.setLocalDescription(answer);
  await gathered(answerer);
  out['answer-audio-video-candidates'] = answerer.localDescription.sdp;
  return out;
})().then(done, e => done({error: String(e)}));
"""

ANSWER = GATHERED + """
const offerSdp = arguments[0];
const done = arguments[arguments.length - 1];
(async () => {
  const pc = new RTCPeerConnection({iceServers: []});
  await pc.setRemoteDescription({type: 'offer', sdp: offerSdp});
  const stream = await navigator.mediaDevices.getUserMedia({audio: true, video: true});
  for (const t of pc.getTransceivers()) {
    const track = stream.getTracks().find(x => x.kind === t.receiver.track.kind);
    if (track) { await t.sender.replaceTrack(track); t.direction = 'sendrecv'; }
  }
  const answer = await pc.createAnswer();
  await pc.setLocalDescription(answer);
  await gathered(pc);
  return {answer: pc.localDescription.sdp};
})().then(done, e => done({error: String(e)}));
"""

RENEGOTIATE = """
const offers = arguments[0];
const done = arguments[arguments.length - 1];
(async () => {
  const pc = new RTCPeerConnection({iceServers: []});
  const answers = [];
  for (const sdp of offers) {
    await pc.setRemoteDescription({type: 'offer', sdp});
    const answer = await pc.createAnswer();
    await pc.setLocalDescription(answer);
    answers.push(answer.sdp);
  }
  return {answers};
})().then(done, e => done({error: String(e)}));
"""

OFFER = GATHERED + """
const withData = arguments[0];
const done = arguments[arguments.length - 1];
(async () => {
  const stream = await navigator.mediaDevices.getUserMedia({audio: true, video: true});
  window.pc = new RTCPeerConnection({iceServers: []});
  stream.getTracks().forEach(t => window.pc.addTrack(t, stream));
  if (withData) window.pc.createDataChannel('chat');
  await window.pc.setLocalDescription(await window.pc.createOffer());
  await gathered(window.pc);
  return {offer: window.pc.localDescription.sdp};
})().then(done, e => done({error: String(e)}));
"""

APPLY_ANSWER = """
const answerSdp = arguments[0];
const done = arguments[arguments.length - 1];
window.pc.setRemoteDescription({type: 'answer', sdp: answerSdp})
  .then(() => done({state: window.pc.signalingState}), e => done({error: String(e)}));
"""

def main():
    driver = Driver()
    try:
        # getUserMedia needs a secure context: a file: page is one, about:blank is not.
        page = os.path.join(tempfile.mkdtemp(), "blank.html")
        with open(page, "w") as f:
            f.write("<!doctype html><title>sdp</title>")
        driver.call("POST", f"/session/{driver.session}/url", {"url": "file://" + page})
        if sys.argv[1] == "record":
            out = driver.run(RECORD)
            if "error" in out:
                sys.exit("chromium: " + out["error"])
            version = subprocess.run(["chromium", "--version"], capture_output=True, text=True).stdout.split()[1]
            major = version.split(".")[0]
            for key, sdp in out.items():
                if key == "useragent":
                    continue
                path = os.path.join(sys.argv[2], f"chromium-{major}-{key}.sdp")
                with open(path, "w", newline="") as f:
                    f.write(sdp)
                print(f"{path} ({version}, {out['useragent']})")
        elif sys.argv[1] == "answer":
            out = driver.run(ANSWER, sys.stdin.read())
            if "error" in out:
                sys.exit("chromium rejected the offer: " + out["error"])
            sys.stdout.write(out["answer"])
        elif sys.argv[1] == "renegotiate":
            out = driver.run(RENEGOTIATE, sys.stdin.read().split("--NEXT--\n"))
            if "error" in out:
                sys.exit("chromium rejected an offer: " + out["error"])
            sys.stdout.write("--NEXT--\n".join(out["answers"]))
        elif sys.argv[1] == "offer":
            out = driver.run(OFFER, sys.argv[2:] == ["data"])
            if "error" in out:
                sys.exit("chromium: " + out["error"])
            sys.stdout.write(out["offer"] + "--END--\n")
            sys.stdout.flush()
            out = driver.run(APPLY_ANSWER, sys.stdin.read())
            if "error" in out:
                sys.exit("chromium rejected the answer: " + out["error"])
            print("accepted", out["state"])
        else:
            sys.exit(__doc__)
    finally:
        driver.close()

if __name__ == "__main__":
    main()
