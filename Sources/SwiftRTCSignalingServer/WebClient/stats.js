// A compact statsString from RTCPeerConnection.getStats(): the figures SwiftRTC's statsString
// shows (CN, VS, VR, AS, AR lines), from the W3C stats of this browser.

function kbps(bytes, previousBytes, ms) {
  if (previousBytes === undefined || ms <= 0) return 0;
  return Math.max(0, Math.round(((bytes - previousBytes) * 8) / ms));
}

function byType(report, type, kind) {
  const found = [];
  report.forEach((entry) => {
    if (entry.type === type && (kind === undefined || entry.kind === kind || entry.mediaType === kind)) found.push(entry);
  });
  return found;
}

/** The report entry with `id`, or undefined. */
function entry(report, id) {
  return id === undefined ? undefined : report.get(id);
}

function codec(report, rtp) {
  const found = entry(report, rtp?.codecId);
  return found ? found.mimeType.split("/")[1].toLowerCase() : "-";
}

/**
 * The figures of one connection: `audio`/`video` (received and sent), `pair` (the selected
 * candidate pair) and `lines` (the compact text). `previous` is the report of the last call,
 * for rates.
 */
export function compactStats(report, previous) {
  const sum = (entries, field) => entries.reduce((total, e) => total + (e[field] || 0), 0);
  const audioIn = byType(report, "inbound-rtp", "audio");
  const videoIn = byType(report, "inbound-rtp", "video");
  const audioOut = byType(report, "outbound-rtp", "audio");
  const videoOut = byType(report, "outbound-rtp", "video");
  let selected;
  byType(report, "transport").forEach((transport) => {
    if (transport.selectedCandidatePairId) selected = report.get(transport.selectedCandidatePairId);
  });
  // Firefox has no transport entry: its selected pair is marked on the pair itself.
  if (!selected) selected = byType(report, "candidate-pair").find((pair) => pair.selected || pair.nominated && pair.state === "succeeded");
  const local = entry(report, selected?.localCandidateId);
  const remote = entry(report, selected?.remoteCandidateId);
  const now = performance.now();
  const ms = previous ? now - previous.takenAt : 0;
  const before = (entries, field) => (previous ? sum(entries.map((e) => previous.get(e.id) || {}), field) : undefined);
  // What audio and video both have: packets, rates and codec, received (inbound) and sent.
  const stream = (inbound, outbound) => ({
    packetsReceived: sum(inbound, "packetsReceived"),
    packetsLost: sum(inbound, "packetsLost"),
    packetsSent: sum(outbound, "packetsSent"),
    receivedKbps: kbps(sum(inbound, "bytesReceived"), before(inbound, "bytesReceived"), ms),
    sentKbps: kbps(sum(outbound, "bytesSent"), before(outbound, "bytesSent"), ms),
    codec: codec(report, inbound[0] || outbound[0]),
  });
  const largest = (entries, field) => (entries.length ? Math.max(...entries.map((e) => e[field] || 0)) : 0);
  const stats = {
    audio: {
      ...stream(audioIn, audioOut),
      samplesReceived: sum(audioIn, "totalSamplesReceived"),
      concealedSamples: sum(audioIn, "concealedSamples"),
      audioLevel: largest(audioIn, "audioLevel"),
      totalAudioEnergy: sum(audioIn, "totalAudioEnergy"),
    },
    video: {
      ...stream(videoIn, videoOut),
      framesDecoded: sum(videoIn, "framesDecoded"),
      frameWidth: largest(videoIn, "frameWidth"),
      frameHeight: largest(videoIn, "frameHeight"),
      framesPerSecond: largest(videoIn, "framesPerSecond"),
      nackCount: sum(videoIn, "nackCount"),
      pliCount: sum(videoIn, "pliCount"),
      framesEncoded: sum(videoOut, "framesEncoded"),
    },
    pair: {
      rttMs: selected?.currentRoundTripTime === undefined ? null : Math.round(selected.currentRoundTripTime * 1000),
      types: local && remote ? `${local.candidateType}->${remote.candidateType}` : "-",
      protocol: local?.protocol || "-",
    },
  };
  const a = stats.audio, v = stats.video, p = stats.pair;
  stats.lines = [
    `CN ${p.rttMs === null ? "-" : p.rttMs + "ms"} | ${p.types} ${p.protocol}`,
    `VS ${v.sentKbps}kbps | ${v.framesEncoded} frames | ${v.codec}`,
    `VR ${v.receivedKbps}kbps | ${v.framesDecoded} decoded | ${v.frameWidth}x${v.frameHeight} ${Math.round(v.framesPerSecond)}fps | lost ${v.packetsLost}`,
    `AS ${a.sentKbps}kbps | ${a.codec}`,
    `AR ${a.receivedKbps}kbps | level ${a.audioLevel.toFixed(3)} | lost ${a.packetsLost}`,
  ];
  report.takenAt = now;
  return stats;
}
