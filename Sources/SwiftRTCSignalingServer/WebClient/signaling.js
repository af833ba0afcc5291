// The client side of the SwiftRTC signaling protocol, version 1
// (SwiftRTCSignaling.docc/SignalingProtocol.md): one JSON object per WebSocket text frame,
// `hello` first, then session messages routed by `to`, and the call log query.
//
// A second implementation of that document beside the Swift one (WebSocketSignalingChannel
// and SignalingMessage): it follows the document, not the Swift code.

/** The largest message the server takes (SignalingLimits.maxMessageBytes, 64 KiB). */
export const MAX_MESSAGE_BYTES = 64 * 1024;

/** Session message types (client to client, routed by `to`). */
export const SESSION_TYPES = new Set([
  "call", "accept", "reject", "hangUp", "offer", "answer", "candidate", "mediaSettings", "customItems", "recording",
]);

/** The WebSocket URL of the signaling server that served this page: `/signaling` on its origin. */
export function signalingURL(location) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/signaling`;
}

/** A user id as the server accepts it: letters, digits and `. _ - @`, 1 to 64. */
export function isValidUserID(id) {
  return typeof id === "string" && /^[A-Za-z0-9._@-]{1,64}$/.test(id);
}

/**
 * One authenticated connection to the signaling server.
 *
 * `connect()` opens the WebSocket, sends `hello` and resolves with the user id of `welcome`.
 * `onMessage(message)` gets every later message (session messages with `from` set by the
 * server, and `error`s); `onClose(reason)` once when the connection ends.
 */
export class SignalingConnection {
  constructor(url, { onMessage = () => {}, onClose = () => {} } = {}) {
    this.url = url;
    this.onMessage = onMessage;
    this.onClose = onClose;
    this.user = null;
    this.socket = null;
    this.nextID = 1;
    this.pending = new Map(); // message id → {resolve, reject} of a callLogQuery
    this.closed = false;
  }

  /** Opens the connection and logs in with `token` (a token, or USER:PASSWORD). */
  connect(token, timeoutMs = 10000) {
    return new Promise((resolve, reject) => {
      let settled = false;
      const fail = (reason) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(new Error(reason));
        this.close();
      };
      const timer = setTimeout(() => fail("the server did not answer the login in time"), timeoutMs);
      let socket;
      try {
        socket = new WebSocket(this.url);
      } catch (error) {
        fail(`cannot open ${this.url}: ${error.message}`);
        return;
      }
      this.socket = socket;
      socket.onopen = () => socket.send(JSON.stringify({ type: "hello", token }));
      socket.onmessage = (event) => {
        let message;
        try {
          message = JSON.parse(event.data);
        } catch {
          return; // the server sends JSON only; anything else is ignored
        }
        if (!message || typeof message !== "object" || typeof message.type !== "string") return;
        if (!settled) {
          if (message.type === "welcome" && isValidUserID(message.user)) {
            settled = true;
            clearTimeout(timer);
            this.user = message.user;
            resolve(message.user);
          } else if (message.type === "error") {
            fail(message.code === 401 ? "login refused: wrong token or password" : `login refused (${message.code}): ${message.reason}`);
          }
          return;
        }
        this.receive(message);
      };
      socket.onerror = () => fail(`cannot reach the signaling server at ${this.url}`);
      socket.onclose = (event) => {
        fail(`the server closed the connection (${event.code}${event.reason ? ": " + event.reason : ""})`);
        this.ended(event.code === 1000 || event.code === 1001 ? "closed" : `closed (${event.code}${event.reason ? " " + event.reason : ""})`);
      };
    });
  }

  receive(message) {
    if ((message.type === "callLog" || message.type === "error") && typeof message.replyTo === "string" && this.pending.has(message.replyTo)) {
      const { resolve, reject } = this.pending.get(message.replyTo);
      this.pending.delete(message.replyTo);
      if (message.type === "callLog") resolve(Array.isArray(message.records) ? message.records : []);
      else reject(new Error(`${message.code}: ${message.reason}`));
      return;
    }
    this.onMessage(message);
  }

  ended(reason) {
    if (this.closed) return;
    this.closed = true;
    for (const { reject } of this.pending.values()) reject(new Error("the connection closed"));
    this.pending.clear();
    if (this.user !== null) this.onClose(reason);
  }

  /** Sends one message; false when the connection is not open or the message is too large. */
  send(message) {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) return false;
    const text = JSON.stringify(message);
    if (new TextEncoder().encode(text).length > MAX_MESSAGE_BYTES) return false;
    this.socket.send(text);
    return true;
  }

  /** A session message: `type` with its fields, to `to` (user ids), in `session`. */
  sendSession(type, to, session, fields = {}) {
    return this.send({ type, to, session, ...fields });
  }

  /** The user's own calls, newest first: `callLogQuery` and its `callLog` reply. */
  callLog({ role, result, limit = 50, offset = 0 } = {}) {
    const id = `log-${this.nextID++}`;
    const query = { type: "callLogQuery", id, limit, offset };
    if (role) query.role = role;
    if (result) query.result = result;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (!this.send(query)) {
        this.pending.delete(id);
        reject(new Error("not connected"));
      }
    });
  }

  close() {
    if (this.socket && this.socket.readyState <= WebSocket.OPEN) this.socket.close(1000);
    this.ended("closed");
  }
}
