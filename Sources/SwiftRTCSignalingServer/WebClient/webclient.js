// The SwiftRTC web client: log in, call one to three users or answer their calls, with the
// call semantics of SwiftRTC's CallSession (call-session.js), a chat with everyone in the call
// (the call's chat channels), live stats and the call log.
//
// `window.callApp` exposes what the page saw (`events`) and the current call's figures
// (`snapshot()`), for the browser tests and for a look from the developer console.

import { SignalingConnection, signalingURL, isValidUserID } from "./signaling.js";
import { CallSession, MAX_OPPONENTS, isLoopbackHost } from "./call-session.js";
import { addChatLine as addLine } from "./chat-lines.js";

const $ = (id) => document.getElementById(id);
const STATS_INTERVAL_MS = 1000;
/** Chat messages kept in `callApp.events`, at most per call (the chat box shows them all). */
const MAX_RECORDED_CHAT = 1000;

const app = {
  signaling: null,
  user: null,
  session: null, // the current CallSession (ringing, in progress, or just ended)
  sessions: new Set(), // ids of every session seen, so that a re-sent call does not ring twice
  events: [],
  statsTimer: null,
  lastRecord: null,
  names: new Map(), // user → the display name their user info gave (`name`)
  recordedChat: 0, // chat messages of the current call in `events`

  /** Everything the page knows of the current call, for tests and the console. */
  snapshot() {
    const session = this.session;
    return {
      user: this.user,
      session: session && {
        id: session.id, state: session.state, initiator: session.initiator, opponents: session.opponents,
        isIncoming: session.isIncoming, items: { ...session.items }, userStates: Object.fromEntries(session.userStates),
        remoteMedia: Object.fromEntries(session.remoteMedia), stats: session.statsByUser(), record: session.record,
      },
      lastRecord: this.lastRecord,
      tiles: [...document.querySelectorAll(".tile")].map((tile) => ({
        user: tile.dataset.user, notice: tile.querySelector(".notice").textContent,
        width: tile.querySelector("video").videoWidth, height: tile.querySelector("video").videoHeight,
      })),
      callLog: [...document.querySelectorAll("#call-log tbody tr")].map((row) => [...row.cells].map((cell) => cell.textContent)),
      chat: [...document.querySelectorAll("#chat-lines li")].map((line) => [...line.children].map((part) => part.textContent).join(" ")),
    };
  },
};
window.callApp = app;

/** An event for the tests and the console (`callApp.events`), not shown in the list. */
function record(name, detail = {}) {
  app.events.push({ at: Math.round(performance.now()), name, ...detail });
}

function note(name, detail = {}) {
  record(name, detail);
  const item = document.createElement("li");
  item.textContent = describe(name, detail);
  const list = $("events");
  list.append(item);
  list.scrollTop = list.scrollHeight;
}

function text(info) {
  const entries = Object.entries(info || {});
  return entries.length ? ` (${entries.map(([k, v]) => `${k}: ${v}`).join(", ")})` : "";
}

function describe(name, d) {
  switch (name) {
    case "loggedIn": return `Logged in as ${d.user}`;
    case "incoming": return `${d.conferenceType === "video" ? "Video" : "Audio"} call from ${d.from}${text(d.userInfo)}`;
    case "accepted": return `${d.user} accepted${text(d.userInfo)}`;
    case "rejected": return `${d.user} rejected${d.busy ? " (busy)" : ""}${text(d.userInfo)}`;
    case "hungUp": return `${d.user} hung up${text(d.userInfo)}`;
    case "didNotRespond": return `${d.user} did not respond`;
    case "connected": return `Connected with ${d.user} after ${d.ms} ms`;
    case "connectionFailed": return `The connection with ${d.user} failed`;
    case "reconnecting": return `Reconnecting with ${d.user}`;
    case "mediaSettings": return `${d.user}: ${[d.audioEnabled === undefined ? null : `audio ${d.audioEnabled ? "on" : "off"}`, d.videoEnabled === undefined ? null : `video ${d.videoEnabled ? "on" : "off"}`].filter(Boolean).join(", ")}`;
    case "customItems": return `Custom items by ${d.by}: ${JSON.stringify(d.items)}`;
    case "recording": return `${d.user} ${d.active ? "started" : "stopped"} recording`;
    case "ended": return `Call ended: ${d.record.result.replace("_", " ")}`;
    case "localMedia": return `You ${d.enabled ? "turned on" : "turned off"} your ${d.kind === "audio" ? "microphone" : "camera"}`;
    case "callLog": return `Call log: ${d.records} calls`;
    case "error": return `Error: ${d.message}`;
    default: return `${name} ${JSON.stringify(d)}`;
  }
}

/** `name=Ada, role=tester` as {name: "Ada", role: "tester"}. */
function userInfo() {
  const info = {};
  for (const part of $("user-info").value.split(",")) {
    const [key, ...rest] = part.split("=");
    if (key.trim() && rest.length) info[key.trim()] = rest.join("=").trim();
  }
  return info;
}

// MARK: Log in

$("login-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const user = $("login-user").value.trim();
  const secret = $("login-secret").value;
  const token = user ? `${user}:${secret}` : secret;
  $("login-error").textContent = "";
  $("login").disabled = true;
  const signaling = new SignalingConnection(signalingURL(window.location), { onMessage: received, onClose: signalingClosed });
  try {
    app.user = await signaling.connect(token);
  } catch (error) {
    $("login-error").textContent = error.message;
    $("login").disabled = false;
    return;
  }
  app.signaling = signaling;
  $("login-secret").value = "";
  $("login-panel").hidden = true;
  $("phone").hidden = false;
  $("logout").hidden = false;
  $("status").textContent = `Logged in as ${app.user}`;
  note("loggedIn", { user: app.user });
  refreshCallLog();
});

$("logout").addEventListener("click", () => {
  if (app.session && app.session.state !== "closed") app.session.hangUp(userInfo());
  app.signaling?.close();
});

function signalingClosed(reason) {
  if (app.session && app.session.state !== "closed") app.session.hangUp();
  app.signaling = null;
  app.user = null;
  $("status").textContent = `Not logged in (${reason})`;
  $("login-panel").hidden = false;
  $("login").disabled = false;
  $("phone").hidden = true;
  $("logout").hidden = true;
}

// MARK: Calls

async function localMedia(video) {
  return navigator.mediaDevices.getUserMedia({ audio: true, video: video ? { width: 640, height: 480 } : false });
}

function newSession(fields) {
  return new CallSession({
    ...fields,
    me: app.user,
    signaling: app.signaling,
    loopbackOnly: isLoopbackHost(window.location.hostname),
    onEvent: sessionEvent,
    log: (message) => console.warn(message),
  });
}

$("call-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("phone-error").textContent = "";
  const users = [...new Set($("call-users").value.split(",").map((user) => user.trim()).filter(Boolean))];
  const problem = users.length === 0 || users.length > MAX_OPPONENTS ? `call 1 to ${MAX_OPPONENTS} users`
    : users.find((user) => !isValidUserID(user)) ? `'${users.find((user) => !isValidUserID(user))}' is not a user id`
    : users.includes(app.user) ? "you cannot call yourself"
    : app.session && app.session.state !== "closed" ? "you are in a call" : null;
  if (problem) {
    $("phone-error").textContent = problem;
    return;
  }
  const video = $("call-video").checked;
  let stream;
  try {
    stream = await localMedia(video);
  } catch (error) {
    $("phone-error").textContent = `no camera or microphone: ${error.message}`;
    return;
  }
  const session = newSession({ id: crypto.randomUUID(), initiator: app.user, opponents: users, conferenceType: video ? "video" : "audio", localStream: stream });
  showCall(session);
  try {
    await session.start(userInfo());
  } catch (error) {
    $("phone-error").textContent = `cannot call: ${error.message}`;
  }
});

function received(message) {
  if (message.type === "error") {
    note("error", { message: `${message.code} ${message.reason}` });
    return;
  }
  if (typeof message.session !== "string") return;
  if (app.session && app.session.id === message.session) {
    app.session.receive(message);
    return;
  }
  // A new call: ring, or answer busy when in another one.
  if (message.type !== "call" || app.sessions.has(message.session) || message.initiator !== message.from) return;
  if (!Array.isArray(message.opponents) || !message.opponents.includes(app.user) || typeof message.sdp !== "string") return;
  app.sessions.add(message.session);
  const ringing = { id: message.session, initiator: message.from, opponents: message.opponents, conferenceType: message.conferenceType === "video" ? "video" : "audio" };
  if (app.session && app.session.state !== "closed") {
    const busy = newSession({ ...ringing, localStream: new MediaStream() });
    busy.receive(message);
    busy.state = "pending";
    busy.reject(userInfo(), true);
    note("rejected", { user: app.user, busy: true, userInfo: {} });
    return;
  }
  ring(ringing, message);
}

function ring(ringing, message) {
  // Local media is asked for when accepting; until then the session has none.
  const session = newSession({ ...ringing, localStream: new MediaStream() });
  session.state = "pending";
  session.receive(message);
  app.session = session;
  const others = message.opponents.filter((user) => user !== app.user);
  learnName(message.from, message.userInfo);
  $("incoming-text").textContent = `${ringing.conferenceType === "video" ? "Video" : "Audio"} call from ${message.from}` +
    `${others.length ? ` with ${others.join(", ")}` : ""}${text(message.userInfo)}`;
  $("incoming").hidden = false;
  note("incoming", { from: message.from, conferenceType: ringing.conferenceType, opponents: message.opponents, userInfo: message.userInfo || {} });
}

$("accept").addEventListener("click", async () => {
  const session = app.session;
  $("incoming").hidden = true;
  if (!session || session.state !== "pending") return;
  try {
    session.localStream = await localMedia(session.conferenceType === "video");
  } catch (error) {
    $("phone-error").textContent = `no camera or microphone: ${error.message}`;
    session.reject(userInfo());
    return;
  }
  if (session.state === "closed") return; // withdrawn meanwhile
  showCall(session);
  await session.accept(userInfo());
});

$("reject").addEventListener("click", () => {
  $("incoming").hidden = true;
  app.session?.reject(userInfo());
});

$("hang-up").addEventListener("click", () => app.session?.hangUp(userInfo()));

for (const [button, kind, offLabel, onLabel] of [["mute-audio", "audio", "Mute", "Unmute"], ["mute-video", "video", "Stop video", "Start video"]]) {
  $(button).addEventListener("click", () => {
    const session = app.session;
    if (!session || session.state === "closed") return;
    const muted = $(button).getAttribute("aria-pressed") !== "true";
    session.setMediaEnabled(kind, !muted);
    $(button).setAttribute("aria-pressed", String(muted));
    $(button).textContent = muted ? onLabel : offLabel;
    note("localMedia", { kind, enabled: !muted });
  });
}

$("items-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const key = $("item-key").value.trim();
  if (!key || !app.session || app.session.state === "closed") return;
  app.session.updateItems({ [key]: $("item-value").value });
  $("item-key").value = $("item-value").value = "";
});

// MARK: Chat

/** Keeps the display name a user's info gave (`name=...`). */
function learnName(user, info) {
  const name = info && typeof info.name === "string" ? info.name.trim().slice(0, 64) : "";
  if (user && name) app.names.set(user, name);
}

/** `Display Name (id)`, or the id alone. */
function displayName(user) {
  const name = app.names.get(user);
  return name && name !== user ? `${name} (${user})` : user;
}

function addChatLine(from, text, { mine = false, unsent = false } = {}) {
  addLine($("chat-lines"), mine ? `${from} (you):` : `${displayName(from)}:`, text, { mine, unsent });
}

$("chat-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = $("chat-text").value;
  const session = app.session;
  if (!text.trim() || !session || session.state === "closed") return;
  const to = session.sendChat(text);
  addChatLine(app.user, to.length ? text : `${text} (not sent: nobody is connected)`, { mine: true, unsent: to.length === 0 });
  record("chatSent", { text, to });
  $("chat-text").value = "";
});

function showItems(items) {
  $("items").replaceChildren(...Object.entries(items).sort().map(([key, value]) => {
    const item = document.createElement("li");
    item.textContent = `${key} = ${value}`;
    const remove = document.createElement("button");
    remove.type = "button";
    remove.textContent = "×";
    remove.setAttribute("aria-label", `delete ${key}`);
    remove.addEventListener("click", () => app.session?.updateItems({}, [key]));
    item.append(remove);
    return item;
  }));
}

function showCall(session) {
  app.session = session;
  $("call-panel").hidden = false;
  $("call").disabled = true;
  $("call-state").textContent = session.isIncoming ? `Call from ${session.initiator}` : `Calling ${session.opponents.join(", ")}`;
  for (const id of ["mute-audio", "mute-video"]) $(id).setAttribute("aria-pressed", "false");
  $("mute-audio").textContent = "Mute";
  $("mute-video").textContent = "Stop video";
  $("mute-video").hidden = session.conferenceType !== "video";
  $("tiles").replaceChildren(tile(`${app.user} (you)`, session.localStream, true));
  $("chat-lines").replaceChildren();
  app.recordedChat = 0;
  showItems(session.items);
  clearInterval(app.statsTimer);
  app.statsTimer = setInterval(() => showStats(session), STATS_INTERVAL_MS);
}

function tile(name, stream, local = false) {
  const box = document.createElement("div");
  box.className = "tile";
  box.dataset.user = local ? app.user : name;
  const video = document.createElement("video");
  video.autoplay = true;
  video.playsInline = true;
  video.muted = local; // never play one's own microphone
  video.srcObject = stream;
  const label = document.createElement("span");
  label.className = "name";
  label.textContent = name;
  const notice = document.createElement("span");
  notice.className = "notice";
  box.append(video, label, notice);
  return box;
}

function remoteTile(user) {
  return document.querySelector(`.tile[data-user="${CSS.escape(user)}"]`);
}

async function showStats(session) {
  const stats = await session.collectStats();
  $("stats").textContent = Object.entries(stats).map(([user, s]) => `${user}\n${s.lines.map((line) => "  " + line).join("\n")}`).join("\n");
  if (session.state === "closed") clearInterval(app.statsTimer);
}

function sessionEvent(name, detail) {
  const session = app.session;
  if (!session || detail.session !== session.id) return;
  switch (name) {
    case "track": {
      let box = remoteTile(detail.user);
      if (!box) {
        box = tile(detail.user, detail.stream);
        $("tiles").append(box);
      }
      break;
    }
    case "state":
      if (detail.state === "connected") $("call-state").textContent = `In a call with ${session.others.join(", ")}`;
      break;
    case "mediaSettings": {
      const known = session.remoteMedia.get(detail.user);
      const box = remoteTile(detail.user);
      if (box) box.querySelector(".notice").textContent = [known.audioEnabled ? null : "muted", known.videoEnabled ? null : "video off"].filter(Boolean).join(", ");
      note(name, detail);
      break;
    }
    case "customItems":
      showItems(detail.items);
      note(name, detail);
      break;
    case "connectionClosed":
      remoteTile(detail.user)?.remove();
      break;
    case "chat":
      addChatLine(detail.from, detail.text ?? `[${detail.bytes} bytes]`);
      if (app.recordedChat < MAX_RECORDED_CHAT) {
        app.recordedChat += 1;
        record(name, detail);
      }
      break;
    case "accepted":
      learnName(detail.user, detail.userInfo);
      note(name, detail);
      break;
    case "ended":
      endCall(session, detail.record);
      note(name, detail);
      break;
    case "rejected": case "hungUp": case "didNotRespond": case "connected": case "connectionFailed": case "reconnecting": case "recording":
      note(name, detail);
      break;
  }
}

function endCall(session, record) {
  app.lastRecord = record;
  app.lastStats = session.statsByUser();
  $("incoming").hidden = true;
  $("call").disabled = false;
  $("call-state").textContent = `Call ended: ${record.result.replace("_", " ")}`;
  for (const video of document.querySelectorAll(".tile video")) video.srcObject = null;
  $("tiles").replaceChildren();
  // The server writes the record when the session ends on its side: ask a moment later.
  setTimeout(refreshCallLog, 1000);
}

// MARK: Call log

async function refreshCallLog() {
  if (!app.signaling) return;
  let records;
  try {
    records = await app.signaling.callLog({ limit: 20 });
  } catch (error) {
    note("error", { message: `call log: ${error.message}` });
    return;
  }
  $("call-log").tBodies[0].replaceChildren(...records.map((record) => {
    const row = document.createElement("tr");
    row.dataset.callId = record.callId;
    for (const value of [new Date(record.started * 1000).toLocaleString(), record.caller, (record.callees || []).join(", "),
      record.conferenceType, record.result, `${Math.round(record.duration || 0)} s`]) {
      const cell = document.createElement("td");
      cell.textContent = value;
      row.append(cell);
    }
    return row;
  }));
  note("callLog", { records: records.length });
}

$("refresh-log").addEventListener("click", refreshCallLog);

// Closing or leaving the page leaves the call: the others learn it at once, not when the
// server notices the closed connection.
window.addEventListener("pagehide", () => {
  if (app.session && app.session.state !== "closed") app.session.hangUp(userInfo());
});
