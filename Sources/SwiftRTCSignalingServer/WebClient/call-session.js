// A call session in the browser with the semantics of SwiftRTC's CallSession
// (SwiftRTCSignaling.docc/SignalingProtocol.md, "Session messages", "Trickle ICE" and "Mesh"):
// one RTCPeerConnection per other participant, offers and answers sent as soon as they are set
// and candidates trickled after them (`candidate` messages, an empty one for end of
// candidates), the initiator re-sending its call (with the candidates gathered so far) every
// dialing interval until answered or the answer timeout, mesh connections offered by the lower
// user id, and a chat channel on each connection (negotiated: label "chat", id 0 on both
// ends, made with the connection so that it is in the first offer and answer).

import { compactStats } from "./stats.js";

export const DIALING_INTERVAL_MS = 5000;
export const ANSWER_TIMEOUT_MS = 45000;
export const DISCONNECT_TIMEOUT_MS = 30000;
/**
 * The most trickled candidates kept per other user while the description they belong to has
 * not arrived (a call not answered yet, an ICE restart's candidates ahead of its offer); more
 * are dropped and counted (`CallSession.droppedCandidates`). SwiftRTC's limit is the same
 * (`RemoteInputLimits.maxQueuedRemoteCandidates`).
 */
export const MAX_QUEUED_CANDIDATES = 64;
/** A session has at most 4 members (initiator + 1...3 opponents). */
export const MAX_OPPONENTS = 3;
/** The chat channel on each connection, as SwiftRTC's `CallSession.chatLabel` and `chatChannelID`. */
export const CHAT_LABEL = "chat";
export const CHAT_CHANNEL_ID = 0;
/**
 * Chat messages to one user that wait for the channel with them to open, at most (SwiftRTC's
 * `CallSession.maxWaitingChatMessages`); more are not sent (`sendChat` leaves that user out).
 */
export const MAX_WAITING_CHAT_MESSAGES = 256;

/** End results of a call (the server derives the same from what it routed). */
export const END_RESULTS = ["completed", "canceled", "declined", "busy", "no_answer", "timed_out", "connection_lost", "failed"];

/** Whether `host` (of the page's URL) is this machine: the call then stays on loopback. */
export function isLoopbackHost(host) {
  return host === "localhost" || host === "[::1]" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * Keeps only loopback candidates (127.0.0.0/8, ::1) in `sdp`. With the signaling server on this
 * machine, a call is between programs on this machine: as SwiftRTC's bots do, nothing is
 * offered on (or checked towards) any other address.
 */
export function keepLoopbackCandidates(sdp) {
  return sdp
    .split("\r\n")
    .filter((line) => {
      const match = /^a=candidate:\S+ \d+ \S+ \d+ (\S+) \d+ typ /.exec(line);
      return !match || /^127\./.test(match[1]) || match[1] === "::1";
    })
    .join("\r\n");
}

/** The `a=ice-ufrag` of a description (the first: one BUNDLEd transport), or null. */
export function iceUfrag(sdp) {
  const match = /^a=ice-ufrag:(\S+)/m.exec(sdp || "");
  return match ? match[1] : null;
}

/** The connection with one other participant. */
class PeerLink {
  constructor(session, user, isOfferer) {
    this.session = session;
    this.user = user;
    this.isOfferer = isOfferer;
    this.pc = new RTCPeerConnection({ iceServers: session.iceServers, bundlePolicy: "max-bundle" });
    this.stream = new MediaStream();
    this.callRequest = null;
    this.timers = [];
    this.everConnected = false;
    this.connectedAt = null;
    this.stats = null; // the newest compact stats (kept after the connection closed)
    this.previousReport = null;
    this.restartTimer = null;
    this.disconnectTimer = null;
    for (const track of session.localStream.getTracks()) this.pc.addTrack(track, session.localStream);
    if (session.conferenceType === "video" && session.localStream.getVideoTracks().length === 0) {
      this.pc.addTransceiver("video", { direction: "recvonly" });
    }
    this.pc.ontrack = (event) => {
      this.stream.addTrack(event.track);
      session.emit("track", { user, kind: event.track.kind, stream: this.stream });
    };
    this.pc.onconnectionstatechange = () => this.connectionStateChanged();
    // The chat channel: negotiated, so both ends make it and nothing races to open it.
    this.chat = this.pc.createDataChannel(CHAT_LABEL, { negotiated: true, id: CHAT_CHANNEL_ID });
    this.chat.binaryType = "arraybuffer";
    this.chatWaiting = []; // texts sent before it opened, in order
    this.chat.onopen = () => {
      const waiting = this.chatWaiting;
      this.chatWaiting = [];
      for (const text of waiting) this.sendChat(text);
    };
    this.chat.onmessage = (event) => {
      const text = typeof event.data === "string" ? event.data : null;
      session.emit("chat", { from: user, text, bytes: text === null ? event.data.byteLength : undefined });
    };
    // Trickle: each local candidate goes to the other user once the description it belongs to
    // has gone (`descriptionSent`); null (or an empty candidate) is the end of candidates.
    this.unsentCandidates = [];
    this.sentCandidates = new Set(); // candidate lines the other user has (in a description or trickled)
    this.gateOpen = false;
    this.pc.onicecandidate = (event) => this.localCandidate(event.candidate);
    // Remote candidates: the ufrag of the remote description set now and of earlier ones.
    this.remoteUfrag = null;
    this.pastRemoteUfrags = new Set();
    this.flushing = false; // queued candidates are being applied: newer ones queue behind them
  }

  description() {
    const sdp = this.pc.localDescription.sdp;
    return this.session.loopbackOnly ? keepLoopbackCandidates(sdp) : sdp;
  }

  /** Sent at once: the candidates gathered later trickle after it. */
  async offer(iceRestart = false) {
    this.gateOpen = false;
    await this.pc.setLocalDescription(await this.pc.createOffer({ iceRestart }));
    return this.description();
  }

  async answer(offerSDP) {
    await this.setRemote("offer", offerSDP);
    this.gateOpen = false;
    await this.pc.setLocalDescription(await this.pc.createAnswer());
    return this.description();
  }

  /** Sets the remote description, then the queued candidates that belong to it. */
  async setRemote(type, sdp) {
    await this.pc.setRemoteDescription({ type, sdp });
    const ufrag = iceUfrag(sdp);
    if (this.remoteUfrag !== null && ufrag !== this.remoteUfrag) this.pastRemoteUfrags.add(this.remoteUfrag);
    this.remoteUfrag = ufrag;
    await this.session.flushCandidates(this);
  }

  /** This side's description `sdp` went to the other user: trickle what it does not hold. */
  descriptionSent(sdp) {
    for (const line of sdp.split("\r\n")) {
      if (line.startsWith("a=candidate:")) this.sentCandidates.add(line.slice(2));
      else if (line === "a=end-of-candidates") this.sentCandidates.add(`end ${iceUfrag(sdp)}`);
    }
    this.gateOpen = true;
    const unsent = this.unsentCandidates;
    this.unsentCandidates = [];
    for (const candidate of unsent) this.localCandidate(candidate);
  }

  localCandidate(candidate) {
    if (this.pc.signalingState === "closed" || this.session.state === "closed") return;
    if (!this.gateOpen) {
      this.unsentCandidates.push(candidate);
      return;
    }
    const ufrag = candidate?.usernameFragment || iceUfrag(this.pc.localDescription?.sdp);
    let fields;
    if (!candidate || candidate.candidate === "") {
      // One end-of-candidates per generation (browsers signal it per section and at the end).
      if (this.sentCandidates.has(`end ${ufrag}`)) return;
      this.sentCandidates.add(`end ${ufrag}`);
      fields = { candidate: "" };
    } else {
      if (this.sentCandidates.has(candidate.candidate)) return;
      if (this.session.loopbackOnly && keepLoopbackCandidates(`a=${candidate.candidate}`) === "") return;
      this.sentCandidates.add(candidate.candidate);
      fields = { candidate: candidate.candidate };
      if (candidate.sdpMid !== null && candidate.sdpMid !== undefined) fields.sdpMid = candidate.sdpMid;
      if (candidate.sdpMLineIndex !== null && candidate.sdpMLineIndex !== undefined) fields.sdpMLineIndex = candidate.sdpMLineIndex;
    }
    if (ufrag) fields.usernameFragment = ufrag;
    this.session.send("candidate", [this.user], fields);
  }

  connectionStateChanged() {
    const state = this.pc.connectionState;
    const session = this.session;
    session.emit("connectionState", { user: this.user, state });
    if (state === "connected") {
      clearTimeout(this.disconnectTimer);
      clearInterval(this.restartTimer);
      this.disconnectTimer = this.restartTimer = null;
      if (!this.everConnected) {
        this.everConnected = true;
        this.connectedAt = performance.now();
        session.setUserState(this.user, "connected");
        session.emit("connected", { user: this.user, ms: Math.round(this.connectedAt - session.startedAt) });
        if (session.state !== "connected") session.setState("connected");
      } else {
        session.emit("reconnected", { user: this.user });
      }
    } else if ((state === "disconnected" || state === "failed") && session.state !== "closed") {
      if (!this.everConnected) {
        if (state === "failed") session.fail(this);
        return;
      }
      // The side that made this pair's first offer restarts ICE, again every dialing interval,
      // until it reconnects or the disconnect timeout ends the pair as connection_lost.
      if (!this.disconnectTimer) {
        session.emit("reconnecting", { user: this.user });
        this.disconnectTimer = setTimeout(() => session.fail(this, "connection_lost"), DISCONNECT_TIMEOUT_MS);
        if (this.isOfferer) {
          const restart = () => this.restartIce();
          restart();
          this.restartTimer = setInterval(restart, DIALING_INTERVAL_MS);
        }
      }
    }
  }

  async restartIce() {
    if (this.pc.signalingState !== "stable") return;
    try {
      const sdp = await this.offer(true);
      this.session.send("offer", [this.user], { sdp, iceRestart: true });
      this.descriptionSent(sdp);
    } catch (error) {
      this.session.log(`ICE restart with ${this.user} failed: ${error}`);
    }
  }

  /** Sends `text` on the chat channel, or keeps it until the channel opens; false if it cannot. */
  sendChat(text) {
    if (this.chat.readyState === "open") {
      try {
        this.chat.send(text);
        return true;
      } catch (error) {
        this.session.log(`chat message to ${this.user} not sent: ${error}`);
        return false;
      }
    }
    if (this.chat.readyState !== "connecting" || this.chatWaiting.length >= MAX_WAITING_CHAT_MESSAGES) return false;
    this.chatWaiting.push(text);
    return true;
  }

  async collectStats() {
    if (this.pc.connectionState === "closed") return this.stats;
    try {
      const report = await this.pc.getStats();
      this.stats = compactStats(report, this.previousReport);
      this.previousReport = report;
    } catch {
      // closed meanwhile: keep the last figures
    }
    return this.stats;
  }

  close() {
    for (const timer of this.timers) clearTimeout(timer), clearInterval(timer);
    clearTimeout(this.disconnectTimer);
    clearInterval(this.restartTimer);
    this.timers = [];
    this.pc.close();
  }
}

/**
 * One call: outgoing (`CallSession.outgoing`, then `start()`) or incoming (`CallSession.incoming`
 * from the first `call` message, then `accept()` or `reject()`).
 *
 * Events (`onEvent(name, detail)`): state, userState, accepted, rejected, hungUp,
 * didNotRespond, connected, connectionState, reconnecting, reconnected, connectionFailed,
 * track, mediaSettings, customItems, recording, chat (a message on the chat channel: `from`,
 * `text`, or `bytes` for a binary one), ended (with the record).
 */
export class CallSession {
  constructor({ id, me, initiator, opponents, conferenceType, signaling, localStream, iceServers = [], loopbackOnly = false, onEvent = () => {}, log = () => {} }) {
    this.id = id;
    this.me = me;
    this.initiator = initiator;
    this.opponents = opponents;
    this.conferenceType = conferenceType;
    this.signaling = signaling;
    this.localStream = localStream;
    this.iceServers = iceServers;
    this.loopbackOnly = loopbackOnly;
    this.onEvent = onEvent;
    this.log = log;
    this.isIncoming = initiator !== me;
    this.state = "new"; // new, pending, connecting, connected, closed
    this.links = new Map(); // user → PeerLink
    this.userStates = new Map(); // user → pending, connecting, connected, rejected, hungUp, noAnswer, failed, closed
    for (const user of this.others) this.userStates.set(user, "pending");
    this.joined = new Set(); // other opponents who accepted (mesh)
    this.hasAccepted = false;
    this.answeredAt = null;
    this.started = Date.now() / 1000;
    this.startedAt = performance.now();
    this.initiatorOffer = null;
    this.rejects = [];
    this.lossResults = [];
    this.localHangUp = false;
    this.remoteCanceled = false;
    this.items = {};
    this.remoteMedia = new Map(); // user → {audioEnabled, videoEnabled}
    this.remoteRecording = new Map(); // user → option
    this.record = null;
    this.closedStats = new Map(); // user → the last stats of a connection that closed
    this.queuedCandidates = new Map(); // user → trickled candidates before their description
    this.droppedCandidates = 0; // over MAX_QUEUED_CANDIDATES
  }

  /** Everyone in the call but this user. */
  get others() {
    return [this.initiator, ...this.opponents].filter((user) => user !== this.me);
  }

  /** The other participants still in the call (not rejected, hung up, unanswered or failed). */
  get liveUsers() {
    return this.others.filter((user) => !["rejected", "hungUp", "noAnswer", "failed", "closed"].includes(this.userStates.get(user)));
  }

  emit(name, detail = {}) {
    this.onEvent(name, { session: this.id, ...detail });
  }

  setState(state) {
    if (this.state === state) return;
    this.state = state;
    this.emit("state", { state });
  }

  setUserState(user, state) {
    this.userStates.set(user, state);
    this.emit("userState", { user, state });
  }

  send(type, to, fields = {}) {
    if (to.length === 0) return;
    if (!this.signaling.sendSession(type, to, this.id, fields)) this.log(`could not send ${type} to ${to.join(",")}`);
  }

  // MARK: Outgoing

  /** Calls every opponent with an offer, re-sent every dialing interval until answered. */
  async start(userInfo = {}) {
    this.setState("pending");
    for (const user of this.opponents) {
      const link = new PeerLink(this, user, true);
      this.links.set(user, link);
      let sdp;
      try {
        sdp = await link.offer();
      } catch (error) {
        this.log(`cannot call ${user}: ${error}`);
        this.lossResults.push("failed");
        this.hangUp();
        throw error;
      }
      if (this.state === "closed") return;
      link.callRequest = { sdp, conferenceType: this.conferenceType, initiator: this.me, opponents: this.opponents, userInfo };
      this.send("call", [user], link.callRequest);
      link.descriptionSent(sdp);
      link.timers.push(setInterval(() => {
        if (this.userStates.get(user) !== "pending") return;
        // Again with the candidates gathered since: it stands on its own for a callee who missed some.
        link.callRequest.sdp = link.description();
        this.send("call", [user], link.callRequest);
        link.descriptionSent(link.callRequest.sdp);
      }, DIALING_INTERVAL_MS));
      link.timers.push(setTimeout(() => this.answerTimedOut(user), ANSWER_TIMEOUT_MS));
    }
    this.announceLocalState(this.opponents);
  }

  answerTimedOut(user) {
    const link = this.links.get(user);
    if (this.userStates.get(user) !== "pending" || !link) return;
    this.setUserState(user, "noAnswer");
    this.emit("didNotRespond", { user });
    this.send("hangUp", [user], { result: "no_answer" });
    this.closeLink(link);
    this.endIfDone();
  }

  /** Muted media and custom items set before the call go out with it. */
  announceLocalState(users) {
    const audio = this.localStream.getAudioTracks().every((track) => track.enabled);
    const videoTracks = this.localStream.getVideoTracks();
    const video = videoTracks.length ? videoTracks.every((track) => track.enabled) : undefined;
    if (!audio || video === false) this.send("mediaSettings", users, video === undefined ? { audioEnabled: audio } : { audioEnabled: audio, videoEnabled: video });
    if (Object.keys(this.items).length) this.send("customItems", users, { updated: this.items, deleted: [] });
  }

  // MARK: Incoming

  /** Accepts: answers the initiator, tells the other opponents, connects to those who joined. */
  async accept(userInfo = {}) {
    if (!this.isIncoming || this.hasAccepted || this.state !== "pending" || this.initiatorOffer === null) return;
    this.hasAccepted = true;
    this.answeredAt = Date.now() / 1000;
    this.setState("connecting");
    this.setUserState(this.initiator, "connecting");
    const link = new PeerLink(this, this.initiator, false);
    this.links.set(this.initiator, link);
    let sdp;
    try {
      sdp = await link.answer(this.initiatorOffer);
    } catch (error) {
      this.log(`cannot answer ${this.initiator}: ${error}`);
      this.lossResults.push("failed");
      this.setUserState(this.initiator, "failed");
      this.send("hangUp", [this.initiator], { result: "failed" });
      this.finish();
      return;
    }
    if (this.state === "closed") return;
    this.send("accept", [this.initiator], { sdp, userInfo });
    link.descriptionSent(sdp);
    const others = this.opponents.filter((user) => user !== this.me && this.liveUsers.includes(user));
    this.send("accept", others, { userInfo });
    this.announceLocalState([this.initiator, ...others]);
    for (const user of [...this.joined].sort()) await this.connectMesh(user);
  }

  /** Rejects; `busy` when this user is in another call. */
  reject(userInfo = {}, busy = false) {
    if (!this.isIncoming || this.hasAccepted || this.state === "closed") return;
    this.localHangUp = true;
    this.rejects.push({ user: this.me, busy });
    this.send("reject", this.liveUsers, { userInfo, busy });
    for (const user of this.liveUsers) this.userStates.set(user, "closed");
    this.finish();
  }

  /** Leaves the call (before anyone answered: cancels it) and ends the session. */
  hangUp(userInfo = {}) {
    if (this.state === "closed") return;
    if (this.isIncoming && !this.hasAccepted) return this.reject(userInfo);
    this.localHangUp = true;
    const recipients = this.liveUsers;
    this.send("hangUp", recipients, this.answeredAt !== null ? { userInfo } : { userInfo, result: "canceled" });
    for (const user of recipients) this.userStates.set(user, "closed");
    this.finish();
  }

  // MARK: Media settings and custom items

  /** Mutes or unmutes local audio or video (`kind`), and tells everyone in the call. */
  setMediaEnabled(kind, enabled) {
    const tracks = kind === "audio" ? this.localStream.getAudioTracks() : this.localStream.getVideoTracks();
    for (const track of tracks) track.enabled = enabled;
    if (this.state !== "closed" && (this.hasAccepted || !this.isIncoming)) {
      this.send("mediaSettings", this.liveUsers, kind === "audio" ? { audioEnabled: enabled } : { videoEnabled: enabled });
    }
  }

  /** Sets and deletes custom items of the call, and tells everyone in it. */
  updateItems(updated = {}, deleted = []) {
    for (const [key, value] of Object.entries(updated)) this.items[key] = value;
    for (const key of deleted) delete this.items[key];
    if (this.state !== "closed" && (this.hasAccepted || !this.isIncoming)) {
      this.send("customItems", this.liveUsers, { updated, deleted });
    }
    this.emit("customItems", { by: this.me, items: { ...this.items } });
  }

  // MARK: Chat

  /**
   * Sends `text` on the chat channel to every other participant this side is connected to or
   * connecting with (it waits for a channel still opening); returns the users it went to.
   */
  sendChat(text) {
    if (this.state === "closed") return [];
    return [...this.links.values()].filter((link) => link.sendChat(text)).map((link) => link.user);
  }

  // MARK: Signaling in

  async receive(message) {
    const sender = message.from;
    if (this.state === "closed" || !sender || sender === this.me || !this.userStates.has(sender)) return;
    switch (message.type) {
      case "call":
        // The first request made the session; repeats are the dialing.
        if (this.initiatorOffer === null && typeof message.sdp === "string") this.initiatorOffer = message.sdp;
        break;
      case "accept":
        await this.receivedAccept(message, sender);
        break;
      case "reject": {
        this.rejects.push({ user: sender, busy: message.busy === true });
        this.setUserState(sender, "rejected");
        this.emit("rejected", { user: sender, userInfo: message.userInfo || {}, busy: message.busy === true });
        const link = this.links.get(sender);
        if (link) this.closeLink(link);
        this.endIfDone();
        break;
      }
      case "hangUp": {
        if (message.result === "canceled") this.remoteCanceled = true;
        if (["connection_lost", "failed", "timed_out"].includes(message.result)) this.lossResults.push(message.result);
        this.setUserState(sender, "hungUp");
        this.emit("hungUp", { user: sender, userInfo: message.userInfo || {}, result: message.result });
        const link = this.links.get(sender);
        if (link) this.closeLink(link);
        this.endIfDone();
        break;
      }
      case "offer":
        await this.receivedOffer(message, sender);
        break;
      case "answer": {
        const link = this.links.get(sender);
        if (!link || link.pc.signalingState !== "have-local-offer") return;
        try {
          await link.setRemote("answer", message.sdp);
        } catch (error) {
          this.log(`answer from ${sender} refused: ${error}`);
          if (link.everConnected) await link.pc.setLocalDescription({ type: "rollback" }).catch(() => {});
          else this.fail(link);
        }
        break;
      }
      case "candidate":
        await this.receivedCandidate(message, sender);
        break;
      case "mediaSettings": {
        const known = this.remoteMedia.get(sender) || { audioEnabled: true, videoEnabled: true };
        if (typeof message.audioEnabled === "boolean") known.audioEnabled = message.audioEnabled;
        if (typeof message.videoEnabled === "boolean") known.videoEnabled = message.videoEnabled;
        this.remoteMedia.set(sender, known);
        this.emit("mediaSettings", { user: sender, audioEnabled: message.audioEnabled, videoEnabled: message.videoEnabled });
        break;
      }
      case "customItems": {
        for (const [key, value] of Object.entries(message.updated || {})) if (typeof value === "string") this.items[key] = value;
        for (const key of message.deleted || []) delete this.items[key];
        this.emit("customItems", { by: sender, items: { ...this.items } });
        break;
      }
      case "recording":
        if (message.active) this.remoteRecording.set(sender, message.option);
        else this.remoteRecording.delete(sender);
        this.emit("recording", { user: sender, active: message.active === true, option: message.option });
        break;
    }
  }

  async receivedAccept(message, sender) {
    if (!this.isIncoming) {
      // The initiator: the answer for our offer.
      const link = this.links.get(sender);
      if (!link || this.userStates.get(sender) !== "pending" || typeof message.sdp !== "string") return;
      for (const timer of link.timers) clearTimeout(timer), clearInterval(timer);
      link.timers = [];
      if (this.answeredAt === null) this.answeredAt = Date.now() / 1000;
      if (this.state === "pending") this.setState("connecting");
      this.setUserState(sender, "connecting");
      this.emit("accepted", { user: sender, userInfo: message.userInfo || {} });
      try {
        await link.setRemote("answer", message.sdp);
      } catch (error) {
        this.log(`answer from ${sender} refused: ${error}`);
        this.fail(link);
      }
    } else {
      // Another opponent joined: connect (the lower user id offers) once both accepted.
      if (this.joined.has(sender)) return;
      this.joined.add(sender);
      this.emit("accepted", { user: sender, userInfo: message.userInfo || {} });
      if (this.hasAccepted) await this.connectMesh(sender);
    }
  }

  /** Between two opponents who both accepted, the one whose id sorts first offers. */
  async connectMesh(user) {
    if (user === this.initiator || this.links.has(user) || !(this.me < user) || !this.liveUsers.includes(user)) return;
    const link = new PeerLink(this, user, true);
    this.links.set(user, link);
    this.setUserState(user, "connecting");
    try {
      const sdp = await link.offer();
      this.send("offer", [user], { sdp, iceRestart: false });
      link.descriptionSent(sdp);
    } catch (error) {
      this.log(`mesh connection with ${user}: ${error}`);
      this.fail(link);
    }
  }

  async receivedOffer(message, sender) {
    let link = this.links.get(sender);
    try {
      if (link) {
        // An ICE restart on an existing connection.
        if (message.iceRestart !== true) return;
        const sdp = await link.answer(message.sdp);
        this.send("answer", [sender], { sdp, iceRestart: true });
        link.descriptionSent(sdp);
      } else {
        // A mesh connection from another opponent (we both accepted).
        if (!this.isIncoming || !this.hasAccepted || sender === this.initiator || !this.liveUsers.includes(sender)) return;
        this.joined.add(sender);
        link = new PeerLink(this, sender, false);
        this.links.set(sender, link);
        this.setUserState(sender, "connecting");
        const sdp = await link.answer(message.sdp);
        this.send("answer", [sender], { sdp, iceRestart: false });
        link.descriptionSent(sdp);
      }
    } catch (error) {
      this.log(`offer from ${sender} refused: ${error}`);
      if (!link) return;
      if (link.everConnected) await link.pc.setRemoteDescription({ type: "rollback" }).catch(() => {});
      else this.fail(link);
    }
  }

  // MARK: Trickle ICE in

  /**
   * A trickled candidate: applied if it belongs to the remote description set now, ignored if
   * it belongs to an earlier one (before an ICE restart), else kept (at most
   * MAX_QUEUED_CANDIDATES per user) until its description is set.
   */
  async receivedCandidate(message, sender) {
    if (typeof message.candidate !== "string") return;
    const link = this.links.get(sender);
    const ufrag = typeof message.usernameFragment === "string" ? message.usernameFragment : null;
    if (link && link.remoteUfrag !== null && !link.flushing) {
      if (ufrag === null || ufrag === link.remoteUfrag) return this.applyCandidate(link, message);
      if (link.pastRemoteUfrags.has(ufrag)) return;
    }
    const queue = this.queuedCandidates.get(sender) || [];
    if (queue.length >= MAX_QUEUED_CANDIDATES) {
      this.droppedCandidates += 1;
      return;
    }
    queue.push(message);
    this.queuedCandidates.set(sender, queue);
  }

  /** Applies the queued candidates of the link's remote description (after it was set). */
  async flushCandidates(link) {
    if (link.flushing) return;
    link.flushing = true;
    const later = [];
    try {
      let queue;
      while ((queue = this.queuedCandidates.get(link.user)) && queue.length) {
        this.queuedCandidates.delete(link.user);
        for (const message of queue) {
          const ufrag = typeof message.usernameFragment === "string" ? message.usernameFragment : null;
          if (ufrag === null || ufrag === link.remoteUfrag) await this.applyCandidate(link, message);
          else if (!link.pastRemoteUfrags.has(ufrag)) later.push(message); // its description is still to come
        }
      }
    } finally {
      link.flushing = false;
      if (later.length) this.queuedCandidates.set(link.user, later);
    }
  }

  async applyCandidate(link, message) {
    const init = { candidate: message.candidate };
    if (typeof message.sdpMid === "string") init.sdpMid = message.sdpMid;
    if (Number.isInteger(message.sdpMLineIndex)) init.sdpMLineIndex = message.sdpMLineIndex;
    if (init.candidate !== "") {
      if (this.loopbackOnly && keepLoopbackCandidates(`a=${init.candidate}`) === "") return;
      if (init.sdpMid === undefined && init.sdpMLineIndex === undefined) init.sdpMLineIndex = 0;
    }
    if (typeof message.usernameFragment === "string") init.usernameFragment = message.usernameFragment;
    // An empty candidate: the end of the other side's candidates (of that generation).
    await link.pc.addIceCandidate(init).catch((error) => this.log(`candidate from ${link.user}: ${error}`));
  }

  // MARK: Ending

  fail(link, result = null) {
    if (this.links.get(link.user) !== link) return;
    this.setUserState(link.user, "failed");
    this.emit("connectionFailed", { user: link.user });
    this.lossResults.push(result || (link.everConnected ? "connection_lost" : "failed"));
    this.send("hangUp", [link.user], { result: result || "failed" });
    this.closeLink(link);
    this.endIfDone();
  }

  closeLink(link) {
    if (this.links.get(link.user) !== link) return;
    this.links.delete(link.user);
    if (link.stats) this.closedStats.set(link.user, this.linkStats(link));
    link.close();
    this.emit("connectionClosed", { user: link.user });
  }

  /** Ends when nobody is left: the initiator when every opponent is gone; an opponent when
   * its request was withdrawn (before accepting) or its last connection closed (after). */
  endIfDone() {
    if (this.state === "closed") return;
    if (this.isIncoming) {
      const initiatorGone = !["pending", "connecting", "connected"].includes(this.userStates.get(this.initiator));
      if (this.hasAccepted ? this.links.size === 0 : initiatorGone) this.finish();
    } else if (this.liveUsers.length === 0) {
      this.finish();
    }
  }

  get endResult() {
    if (this.lossResults.length) return this.lossResults[0];
    if (this.answeredAt !== null) return "completed";
    if (this.isIncoming) {
      if (this.localHangUp) return this.rejects[0]?.busy ? "busy" : "declined";
      return this.remoteCanceled ? "canceled" : "no_answer";
    }
    if (this.localHangUp) return "canceled";
    if (this.rejects.length && this.rejects.length === this.opponents.length) return this.rejects.every((r) => r.busy) ? "busy" : "declined";
    return "no_answer";
  }

  /** The newest compact stats of every connection (including closed ones), by user. */
  async collectStats() {
    for (const link of this.links.values()) await link.collectStats();
    return this.statsByUser();
  }

  statsByUser() {
    const result = Object.fromEntries(this.closedStats);
    for (const link of this.links.values()) if (link.stats) result[link.user] = this.linkStats(link);
    return result;
  }

  linkStats(link) {
    return { ...link.stats, connectedMs: link.connectedAt === null ? null : Math.round(link.connectedAt - this.startedAt) };
  }

  finish() {
    if (this.state === "closed") return;
    for (const link of [...this.links.values()]) this.closeLink(link);
    const ended = Date.now() / 1000;
    this.record = {
      callId: this.id,
      caller: this.initiator,
      callees: this.opponents,
      conferenceType: this.conferenceType,
      started: this.started,
      answered: this.answeredAt,
      ended,
      duration: this.answeredAt === null ? 0 : ended - this.answeredAt,
      result: this.endResult,
      customItems: { ...this.items },
    };
    this.setState("closed");
    for (const track of this.localStream.getTracks()) track.stop();
    this.emit("ended", { record: this.record });
  }
}
