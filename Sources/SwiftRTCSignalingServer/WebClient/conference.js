// The SwiftRTC conference page: a person in a Janus VideoRoom with bots (`callbot conference`)
// and other browsers. It publishes the camera and microphone (one connection to Janus) and
// subscribes to every other publisher in one connection from Janus (VideoRoom multistream),
// following arrivals and departures; each publisher gets a tile and a row of stats. A chat box
// sends on our publishing connection's data channel, which Janus relays to everyone subscribed
// to us; each publisher's messages come on a channel of the subscription that Janus labels with
// its id. The server that served the page says where Janus is (`/conference/settings`).
//
// `window.conferenceApp` exposes what the page saw (`events`) and its figures per publisher
// (`snapshot()`), for the browser tests and for a look from the developer console.

import { addChatLine } from "./chat-lines.js";
import { JanusSession, JanusError } from "./janus-session.js";

const $ = (id) => document.getElementById(id);
const VIDEOROOM = "janus.plugin.videoroom";
const STATS_INTERVAL_MS = 1000;
/** Publishers the page subscribes to, at most (the others are listed, not received). */
const MAX_SUBSCRIBED = 24;
/** Publishers a room this page creates takes (as ConferenceSession.maxPublishers). */
const ROOM_PUBLISHERS = 32;
/** Streams whose figures the page keeps, at most (two per publisher received). */
const MAX_STREAMS = 4 * MAX_SUBSCRIBED;
/** Events kept in `conferenceApp.events`, at most (the list on the page shows the last 200). */
const MAX_EVENTS = 2000;
/** VideoRoom's error for a room that does not exist. */
const NO_SUCH_ROOM = 426;
/** How long an offer or answer waits for its ICE candidates before it goes without the rest. */
const GATHERING_TIMEOUT_MS = 5000;

const app = {
  events: [],
  janus: null,
  room: null,
  display: null,
  id: null, // ours in the room
  privateID: null,
  publisherHandle: null,
  subscriberHandle: null,
  publishing: null, // RTCPeerConnection to Janus
  chat: null, // our data channel on it: what we say goes to the room
  subscription: null, // RTCPeerConnection from Janus
  localStream: null,
  publishers: new Map(), // id → {id, display}
  subscribed: new Set(), // publisher ids in the subscription
  mids: new Map(), // subscription mid → publisher id (Janus reuses the mids of those who left)
  streams: new Map(), // inbound SSRC → {id: its publisher (fixed when first seen), kind, stats: the last}
  figures: new Map(), // publisher id → its streams' figures, summed
  changes: Promise.resolve(), // subscription changes, one at a time
  statsTimer: null,

  /** Everything the page knows of the room, for tests and the console. */
  snapshot() {
    return {
      room: this.room,
      id: this.id,
      display: this.display,
      publishing: this.publishing?.connectionState ?? null,
      subscription: this.subscription?.connectionState ?? null,
      publishers: [...this.figures.values()].map((row) => ({ ...row })),
      tiles: [...document.querySelectorAll(".tile")].map((tile) => ({
        publisher: tile.dataset.publisher, name: tile.querySelector(".name").textContent,
        width: tile.querySelector("video").videoWidth, height: tile.querySelector("video").videoHeight,
      })),
      chat: [...document.querySelectorAll("#chat-lines li")].map((line) => [...line.children].map((part) => part.textContent).join(" ")),
    };
  },
};
window.conferenceApp = app;

/** An event for the tests and the console, and a line in the page's list. */
function note(name, detail = {}) {
  if (app.events.length < MAX_EVENTS) app.events.push({ at: Math.round(performance.now()), name, ...detail });
  const item = document.createElement("li");
  item.textContent = describe(name, detail);
  const list = $("events");
  list.append(item);
  while (list.children.length > 200) list.firstElementChild.remove();
  list.scrollTop = list.scrollHeight;
}

function describe(name, d) {
  switch (name) {
    case "joined": return `Joined room ${d.room} as ${d.display} (id ${d.id})`;
    case "published": return "Publishing camera and microphone";
    case "publisherArrived": return `${d.display || d.id} is in the room`;
    case "publisherLeft": return `${d.display || d.id} left`;
    case "subscribed": return `Receiving ${d.ids.length} publisher(s)`;
    case "connection": return `${d.which} connection: ${d.state}`;
    case "slowLink": return `Slow link (${d.uplink ? "sending" : "receiving"}, ${d.lost} lost)`;
    case "chat": return `${d.from} said something`;
    case "chatSent": return d.sent ? "You said something" : `Not sent: ${d.why}`;
    case "left": return `Left the room${d.reason ? `: ${d.reason}` : ""}`;
    case "error": return `Error: ${d.message}`;
    default: return name;
  }
}

function status(text) {
  $("status").textContent = text;
}

/** Waits for `connection`'s ICE candidates (all, or what came in GATHERING_TIMEOUT_MS). */
function gathered(connection) {
  if (connection.iceGatheringState === "complete") return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, GATHERING_TIMEOUT_MS);
    connection.addEventListener("icegatheringstatechange", () => {
      if (connection.iceGatheringState !== "complete") return;
      clearTimeout(timer);
      resolve();
    });
  });
}

function follow(connection, which) {
  connection.addEventListener("connectionstatechange", () => {
    note("connection", { which, state: connection.connectionState });
  });
}

// MARK: Joining and publishing

async function join(room, display, pin) {
  const settings = await (await fetch("/conference/settings")).json();
  if (!settings.janus) throw new Error("this server has no conference room (callbot serve --janus URL)");
  app.room = room;
  app.display = display;
  const janus = new JanusSession(settings.janus, { onEvent: janusEvent, onClose: (reason) => left(reason) });
  app.janus = janus;
  await janus.connect();
  app.publisherHandle = await janus.attach(VIDEOROOM);
  const request = { request: "join", ptype: "publisher", room, display };
  if (pin) request.pin = pin;
  let joined;
  try {
    joined = await janus.message(app.publisherHandle, request);
  } catch (error) {
    if (!(error instanceof JanusError) || error.code !== NO_SUCH_ROOM) throw error;
    // The first in the room makes it, as the bots do (`--create-room`).
    await janus.message(app.publisherHandle, {
      request: "create", room, publishers: ROOM_PUBLISHERS, audiocodec: "opus", videocodec: "vp8", permanent: false,
    });
    joined = await janus.message(app.publisherHandle, request);
  }
  app.id = joined.data.id;
  app.privateID = joined.data.private_id ?? null;
  note("joined", { room, display, id: app.id });
  $("join-panel").hidden = true;
  $("room-panel").hidden = false;
  $("leave").hidden = false;
  status(`In room ${room}`);
  $("room-state").textContent = `Room ${room}: you are ${display}`;
  await publish();
  arrived(joined.data.publishers);
  app.statsTimer = setInterval(() => collectStats().catch(() => {}), STATS_INTERVAL_MS);
}

async function publish() {
  const stream = await navigator.mediaDevices.getUserMedia({ audio: true, video: { width: 640, height: 480 } });
  app.localStream = stream;
  const connection = new RTCPeerConnection();
  app.publishing = connection;
  follow(connection, "publishing");
  for (const track of stream.getTracks()) connection.addTrack(track, stream);
  app.chat = connection.createDataChannel("data");
  await connection.setLocalDescription(await connection.createOffer());
  await gathered(connection);
  const reply = await app.janus.message(
    app.publisherHandle, { request: "publish", display: app.display }, connection.localDescription,
  );
  if (!reply.jsep || reply.jsep.type !== "answer") throw new Error("Janus did not answer the offer");
  await connection.setRemoteDescription(reply.jsep);
  tile("self", `${app.display} (you)`).querySelector("video").srcObject = stream;
  note("published");
}

/** Mutes or unmutes our `kind` track, and tells the room (VideoRoom `configure`). */
async function setMuted(kind, muted) {
  const sender = app.publishing?.getSenders().find((s) => s.track?.kind === kind);
  if (!sender) return;
  sender.track.enabled = !muted;
  const mid = app.publishing.getTransceivers().find((t) => t.sender === sender)?.mid;
  if (mid) await app.janus.message(app.publisherHandle, { request: "configure", streams: [{ mid, send: !muted }] });
}

// MARK: The room's publishers and the subscription

function arrived(list) {
  const added = [];
  for (const publisher of Array.isArray(list) ? list : []) {
    const id = publisher.id;
    if (typeof id !== "number" || id === app.id || app.publishers.has(id)) continue;
    app.publishers.set(id, { id, display: String(publisher.display ?? "") });
    note("publisherArrived", { id, display: publisher.display ?? "" });
    if (app.subscribed.size < MAX_SUBSCRIBED) {
      app.subscribed.add(id);
      added.push(id);
    }
  }
  if (added.length) change(() => subscribe(added));
}

function departed(id) {
  const publisher = app.publishers.get(id);
  if (!publisher) return;
  app.publishers.delete(id);
  note("publisherLeft", { id, display: publisher.display });
  document.querySelector(`.tile[data-publisher="${id}"]`)?.remove();
  if (!app.subscribed.delete(id)) return;
  change(async () => {
    try {
      answer(await app.janus.message(app.subscriberHandle, { request: "unsubscribe", streams: [{ feed: id }] }));
    } catch {
      // Janus took the streams out already (its own offer follows).
    }
  });
}

/** Runs `work` after the subscription changes before it: each ends with Janus's offer answered. */
function change(work) {
  app.changes = app.changes.then(work).catch((error) => note("error", { message: String(error.message ?? error) }));
}

async function subscribe(ids) {
  const streams = ids.map((feed) => ({ feed }));
  let reply;
  if (app.subscriberHandle === null) {
    app.subscriberHandle = await app.janus.attach(VIDEOROOM);
    const request = { request: "join", ptype: "subscriber", room: app.room, streams };
    if (app.privateID !== null) request.private_id = app.privateID;
    reply = await app.janus.message(app.subscriberHandle, request);
  } else {
    reply = await app.janus.message(app.subscriberHandle, { request: "subscribe", streams });
  }
  await answer(reply);
  note("subscribed", { ids });
}

/** Takes Janus's offer for the subscription (its `streams` say whose each mid is) and answers. */
async function answer(reply) {
  for (const stream of Array.isArray(reply.data.streams) ? reply.data.streams : []) {
    if (typeof stream.mid !== "string") continue;
    if (stream.active === false || typeof stream.feed_id !== "number") app.mids.delete(stream.mid);
    else app.mids.set(stream.mid, stream.feed_id);
  }
  if (!reply.jsep || reply.jsep.type !== "offer") return;
  if (app.subscription === null) {
    const connection = new RTCPeerConnection();
    app.subscription = connection;
    follow(connection, "subscription");
    connection.addEventListener("track", (event) => received(event.transceiver.mid, event.track));
    connection.addEventListener("datachannel", (event) => chatFrom(event.channel));
    // Janus relays the publishers' data to a subscription only once its association has sent
    // something: a channel of ours, as janus.js opens, that carries nothing else.
    connection.createDataChannel("data");
  }
  await app.subscription.setRemoteDescription(reply.jsep);
  await app.subscription.setLocalDescription(await app.subscription.createAnswer());
  await gathered(app.subscription);
  await app.janus.message(app.subscriberHandle, { request: "start" }, app.subscription.localDescription);
}

/** A track of the subscription: into the tile of the publisher its mid carries. */
function received(mid, track) {
  const id = app.mids.get(mid);
  const publisher = app.publishers.get(id);
  if (!publisher) return;
  const video = tile(String(id), publisher.display || String(id)).querySelector("video");
  const stream = video.srcObject ?? new MediaStream();
  for (const old of stream.getTracks().filter((t) => t.kind === track.kind)) stream.removeTrack(old);
  stream.addTrack(track);
  if (video.srcObject !== stream) video.srcObject = stream;
  video.play().catch(() => {});
}

function tile(key, name) {
  let element = document.querySelector(`.tile[data-publisher="${key}"]`);
  if (element) return element;
  element = document.createElement("div");
  element.className = "tile";
  element.dataset.publisher = key;
  const video = document.createElement("video");
  video.autoplay = true;
  video.playsInline = true;
  video.muted = key === "self";
  const label = document.createElement("span");
  label.className = "name";
  label.textContent = name;
  const notice = document.createElement("span");
  notice.className = "notice";
  element.append(video, label, notice);
  $("tiles").append(element);
  return element;
}

// MARK: Chat

/** A publisher's messages: Janus opens a channel of the subscription for each, labelled with its id. */
function chatFrom(channel) {
  const id = Number(channel.label);
  channel.binaryType = "arraybuffer";
  channel.addEventListener("message", (event) => {
    const from = app.publishers.get(id)?.display || channel.label;
    const text = typeof event.data === "string" ? event.data : `[${event.data.byteLength} bytes]`;
    addChatLine($("chat-lines"), `${from}:`, text);
    note("chat", { id, from, text });
  });
}


// MARK: Janus's own events

function janusEvent(handle, message) {
  if (message.janus === "slowlink") {
    note("slowLink", { uplink: !!message.uplink, lost: Number(message.lost) || 0 });
    return;
  }
  if (message.janus !== "event") return;
  const data = message.plugindata?.data ?? {};
  if (handle === app.publisherHandle) {
    if (data.publishers) arrived(data.publishers);
    const gone = data.unpublished ?? data.leaving;
    if (typeof gone === "number") departed(gone);
  } else if (handle === app.subscriberHandle && message.jsep) {
    // An offer Janus makes on its own (a publisher's streams taken out).
    change(() => answer({ data, jsep: message.jsep }));
  }
}

// MARK: Stats

/**
 * Each subscribed publisher's figures, summed over its streams (`inbound-rtp` by SSRC). A
 * stream's last figures stay when its stats go (a browser drops them once a departed
 * publisher's m-line turns inactive).
 */
async function collectStats() {
  if (!app.subscription) return;
  for (const transceiver of app.subscription.getTransceivers()) {
    const owner = app.mids.get(transceiver.mid);
    const kind = transceiver.receiver.track.kind;
    const report = await transceiver.receiver.getStats();
    for (const s of report.values()) {
      if (s.type !== "inbound-rtp") continue;
      // An SSRC belongs to the publisher whose mid it first came on (a mid may pass to another).
      const known = app.streams.get(s.ssrc);
      const id = known?.id ?? owner;
      if (id === undefined || (!known && app.streams.size >= MAX_STREAMS)) continue;
      app.streams.set(s.ssrc, { id, kind, stats: s });
    }
  }
  const rows = new Map();
  for (const { id, kind, stats: s } of app.streams.values()) {
    const row = rows.get(id) ?? {
      id, display: app.publishers.get(id)?.display ?? app.figures.get(id)?.display ?? "",
      audio_packets_received: 0, audio_frames_decoded: 0, audio_energy: 0,
      video_packets_received: 0, video_frames_decoded: 0, width: null, height: null, packets_lost: 0,
    };
    row.packets_lost += s.packetsLost ?? 0;
    if (kind === "audio") {
      row.audio_packets_received += s.packetsReceived ?? 0;
      // 20 ms of audio played from decoded packets (not concealment), as a bot's Opus frames.
      const decoded = (s.totalSamplesReceived ?? 0) - (s.concealedSamples ?? 0);
      row.audio_frames_decoded += Math.max(0, Math.round(decoded / 960));
      row.audio_energy += s.totalAudioEnergy ?? 0;
    } else {
      row.video_packets_received += s.packetsReceived ?? 0;
      row.video_frames_decoded += s.framesDecoded ?? 0;
      row.width = s.frameWidth ?? row.width;
      row.height = s.frameHeight ?? row.height;
    }
    rows.set(id, row);
  }
  app.figures = rows;
  $("stats").textContent = [...rows.values()].map((r) =>
    `${r.display || r.id}: audio ${r.audio_frames_decoded} frames, video ${r.video_frames_decoded} frames`
    + `${r.width ? ` ${r.width}x${r.height}` : ""}, ${r.packets_lost} lost`).join("\n");
}

// MARK: Leaving

async function leave() {
  if (!app.janus) return;
  const janus = app.janus;
  await collectStats().catch(() => {});
  try {
    await janus.message(app.publisherHandle, { request: "leave" });
  } catch {
    // Gone already.
  }
  await janus.close();
}

function left(reason) {
  clearInterval(app.statsTimer);
  app.publishing?.close();
  app.subscription?.close();
  for (const track of app.localStream?.getTracks() ?? []) track.stop();
  note("left", { reason: reason === "left" ? "" : reason });
  status("Not in a room");
  $("leave").hidden = true;
}

// MARK: The page

$("join-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const room = Number($("room").value);
  const display = $("display").value.trim();
  $("join-error").textContent = "";
  if (!Number.isSafeInteger(room) || room < 1) {
    $("join-error").textContent = "The room is a number.";
    return;
  }
  $("join").disabled = true;
  join(room, display, $("pin").value).catch((error) => {
    $("join-error").textContent = String(error.message ?? error);
    note("error", { message: String(error.message ?? error) });
    $("join").disabled = false;
    app.janus?.close();
  });
});
$("chat-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = $("chat-text").value;
  if (!text) return;
  const open = app.chat?.readyState === "open";
  if (open) app.chat.send(text);
  addChatLine($("chat-lines"), `${app.display} (you):`, open ? text : `${text} (not sent: not publishing yet)`, {
    mine: true, unsent: !open,
  });
  note("chatSent", { text, sent: open, why: open ? "" : "not publishing yet" });
  $("chat-text").value = "";
});
$("leave").addEventListener("click", () => leave());
for (const [button, kind] of [["mute-audio", "audio"], ["mute-video", "video"]]) {
  $(button).addEventListener("click", () => {
    const muted = $(button).getAttribute("aria-pressed") !== "true";
    $(button).setAttribute("aria-pressed", String(muted));
    setMuted(kind, muted).catch((error) => note("error", { message: String(error.message ?? error) }));
  });
}
