/// A plugin attached to a ``JanusSession`` (`janus.plugin.videoroom`...): its requests, its
/// trickled candidates and what it tells without being asked (``events``).
///
/// ```swift
/// let handle = try await session.attach(plugin: "janus.plugin.videoroom")
/// let joined = try await handle.message(["request": "join", "ptype": "publisher", "room": 1234])
/// let answer = try await handle.message(["request": "publish"], jsep: JanusJSEP(type: "offer", sdp: offer))
/// for await event in handle.events { ... }
/// ```
public final class JanusHandle: Sendable {
    /// The handle's id at Janus.
    public let id: Int64
    /// The plugin's package name.
    public let plugin: String
    /// Plugin events, media and connection events of this handle, in order; ends once the
    /// handle is detached or the session closed.
    public let events: AsyncStream<JanusHandleEvent>
    /// The session it belongs to.
    public let session: JanusSession

    init(id: Int64, plugin: String, session: JanusSession, events: AsyncStream<JanusHandleEvent>) {
        self.id = id
        self.plugin = plugin
        self.session = session
        self.events = events
    }

    /// A plugin reply: its data and, when the plugin sent one, an SDP.
    public struct Reply: Sendable, Equatable {
        /// The plugin's `plugindata.data`.
        public var data: JanusJSON
        /// The SDP that came with it (a subscription's offer, a publisher's answer).
        public var jsep: JanusJSEP?
    }

    /// A synchronous plugin request (VideoRoom's `create`, `exists`, `list`,
    /// `listparticipants`...): Janus answers at once. A plugin error throws
    /// ``JanusError/plugin(code:reason:)``.
    public func request(_ body: JanusJSON) async throws(JanusError) -> JanusJSON {
        let reply = try await send(body, jsep: nil, awaitsEvent: false)
        guard let data = reply.pluginData else { throw .malformedReply("no plugindata in the answer") }
        return data
    }

    /// An asynchronous plugin request (VideoRoom's `join`, `configure`, `publish`, `start`...),
    /// with an SDP when it carries one: Janus acknowledges it, then answers with an event
    /// (and its SDP). A plugin error throws ``JanusError/plugin(code:reason:)``.
    public func message(_ body: JanusJSON, jsep: JanusJSEP? = nil) async throws(JanusError) -> Reply {
        let reply = try await send(body, jsep: jsep, awaitsEvent: true)
        guard let data = reply.pluginData else { throw .malformedReply("no plugindata in the answer") }
        return Reply(data: data, jsep: reply.jsep)
    }

    /// Trickles one of our candidates to Janus.
    public func trickle(_ candidate: JanusCandidate) async throws(JanusError) {
        _ = try await session.send(
            ["janus": "trickle", "handle_id": .number(Double(id)), "candidate": candidate.json],
            awaitsEvent: false,
            name: "trickle"
        )
    }

    /// Tells Janus we have no more candidates.
    public func trickleCompleted() async throws(JanusError) {
        _ = try await session.send(
            ["janus": "trickle", "handle_id": .number(Double(id)), "candidate": ["completed": true]],
            awaitsEvent: false,
            name: "trickle"
        )
    }

    /// Hangs up the handle's PeerConnection with Janus (the handle stays attached).
    public func hangup() async throws(JanusError) {
        _ = try await session.send(
            ["janus": "hangup", "handle_id": .number(Double(id))],
            awaitsEvent: false,
            name: "hangup"
        )
    }

    /// Detaches the plugin; ``events`` ends.
    public func detach() async throws(JanusError) {
        defer { session.forget(handle: id) }
        _ = try await session.send(
            ["janus": "detach", "handle_id": .number(Double(id))],
            awaitsEvent: false,
            name: "detach"
        )
    }

    private func send(_ body: JanusJSON, jsep: JanusJSEP?, awaitsEvent: Bool) async throws(JanusError) -> JanusMessage {
        var request: [String: JanusJSON] = ["janus": "message", "handle_id": .number(Double(id)), "body": body]
        if let jsep { request["jsep"] = jsep.json }
        let name = body["request"]?.string ?? "message"
        return try await session.send(.object(request), awaitsEvent: awaitsEvent, name: name)
    }
}
