// The browser side of the Janus WebSocket API (the `janus-protocol` subprotocol): a session
// (`create`, `keepalive` every 25 s, `destroy`), plugin handles (`attach`, `message` with an
// optional JSEP, `detach`), replies matched to requests by transaction, and the events Janus
// sends on its own. The same requests SwiftRTCJanus makes from Swift; this one follows
// Janus's documentation (janus.conf.meetecho.com/docs/rest.html), not that code.

/** How long a request waits for Janus's reply. */
const REPLY_TIMEOUT_MS = 15000;
/** Janus ends a session it has not heard from in 60 s (session_timeout). */
const KEEPALIVE_MS = 25000;
/** Requests waiting for a reply, at most (a page that asks more is refused, not queued). */
const MAX_PENDING = 64;

/** A request Janus refused: its error code (Janus's, or the plugin's `error_code`) and reason. */
export class JanusError extends Error {
  constructor(code, reason) {
    super(`Janus error ${code}: ${reason}`);
    this.code = code;
  }
}

/**
 * One Janus session over one WebSocket.
 *
 * `connect()` opens it; `onEvent(handle, message)` gets every message that answers no request
 * (plugin events, `webrtcup`, `media`, `slowlink`, `hangup`, `detached`), `onClose(reason)`
 * once when the session ends.
 */
export class JanusSession {
  constructor(url, { onEvent = () => {}, onClose = () => {} } = {}) {
    this.url = url;
    this.onEvent = onEvent;
    this.onClose = onClose;
    this.socket = null;
    this.id = null;
    this.pending = new Map(); // transaction → {resolve, reject, timer, acked}
    this.next = 1;
    this.keepalive = null;
    this.closed = false;
  }

  /** Opens the WebSocket and creates the session. */
  async connect() {
    await new Promise((resolve, reject) => {
      const socket = new WebSocket(this.url, "janus-protocol");
      this.socket = socket;
      socket.onopen = () => resolve();
      socket.onerror = () => reject(new Error(`cannot reach Janus at ${this.url}`));
      socket.onclose = () => this.end("the connection to Janus closed");
      socket.onmessage = (message) => this.received(message.data);
    });
    const created = await this.send({ janus: "create" });
    this.id = created.data.id;
    this.keepalive = setInterval(() => {
      this.send({ janus: "keepalive", session_id: this.id }, { ack: true }).catch(() => {});
    }, KEEPALIVE_MS);
  }

  /** Attaches `plugin`: the handle's id. */
  async attach(plugin) {
    const attached = await this.send({ janus: "attach", plugin, session_id: this.id });
    return attached.data.id;
  }

  /**
   * A plugin request on `handle`, with `jsep` when given: `{data, jsep}` of Janus's answer
   * (synchronous, or the event that follows its `ack`). A plugin error rejects with its code.
   */
  async message(handle, body, jsep) {
    const request = { janus: "message", session_id: this.id, handle_id: handle, body };
    if (jsep) request.jsep = { type: jsep.type, sdp: jsep.sdp };
    const reply = await this.send(request);
    const data = reply.plugindata?.data ?? {};
    if (data.error_code) throw new JanusError(data.error_code, data.error ?? "");
    return { data, jsep: reply.jsep };
  }

  /** Detaches `handle` (its PeerConnection on Janus's side is hung up). */
  detach(handle) {
    return this.send({ janus: "detach", session_id: this.id, handle_id: handle }).catch(() => {});
  }

  /** Destroys the session and closes the WebSocket. */
  async close() {
    if (this.closed) return;
    if (this.id !== null) await this.send({ janus: "destroy", session_id: this.id }).catch(() => {});
    this.end("left");
  }

  send(message, { ack = false } = {}) {
    if (this.closed || !this.socket || this.socket.readyState !== WebSocket.OPEN) {
      return Promise.reject(new Error("the Janus session is closed"));
    }
    if (this.pending.size >= MAX_PENDING) return Promise.reject(new Error("too many Janus requests at once"));
    const transaction = `t${this.next++}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(transaction);
        reject(new Error(`Janus did not answer ${message.janus} in time`));
      }, REPLY_TIMEOUT_MS);
      this.pending.set(transaction, { resolve, reject, timer, ack });
      this.socket.send(JSON.stringify({ ...message, transaction }));
    });
  }

  received(text) {
    let message;
    try {
      message = JSON.parse(text);
    } catch {
      return; // Not JSON: dropped.
    }
    if (typeof message !== "object" || message === null) return;
    const waiting = message.transaction !== undefined ? this.pending.get(message.transaction) : undefined;
    if (waiting) {
      // An asynchronous request is acknowledged first; its answer is the event that follows.
      if (message.janus === "ack" && !waiting.ack) return;
      this.pending.delete(message.transaction);
      clearTimeout(waiting.timer);
      if (message.janus === "error") {
        waiting.reject(new JanusError(message.error?.code ?? 0, message.error?.reason ?? "unknown"));
      } else {
        waiting.resolve(message);
      }
      return;
    }
    if (message.janus === "timeout") {
      this.end("Janus ended the session (timeout)");
      return;
    }
    if (message.sender !== undefined) this.onEvent(message.sender, message);
  }

  end(reason) {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.keepalive);
    for (const waiting of this.pending.values()) {
      clearTimeout(waiting.timer);
      waiting.reject(new Error(reason));
    }
    this.pending.clear();
    if (this.socket && this.socket.readyState <= WebSocket.OPEN) this.socket.close();
    this.onClose(reason);
  }
}
