import Testing

@testable import SwiftRTCSignaling

private func next(_ channel: InProcessSignalingChannel) async -> SignalingMessage? {
    var iterator = channel.messages.makeAsyncIterator()
    return await iterator.next()
}

private func call(
    from initiator: String,
    to opponent: String,
    opponents: [String],
    session: String = "s1"
) -> SignalingMessage {
    SignalingMessage(
        id: "c",
        from: "forged",
        to: [opponent],
        session: session,
        body: .call(.init(sdp: "v=0", conferenceType: .audio, initiator: initiator, opponents: opponents))
    )
}

@Test func hubRoutesByRecipientAndSetsTheSender() async throws {
    let hub = InProcessSignalingHub()
    let alice = hub.connect(user: "alice"), bob = hub.connect(user: "bob")
    try await alice.send(call(from: "alice", to: "bob", opponents: ["bob"]))
    let received = try #require(await next(bob))
    #expect(received.from == "alice")
    #expect(received.type == .call)
    try await bob.send(
        SignalingMessage(to: ["alice"], session: "s1", body: .accept(.init(sdp: "v=0", userInfo: ["x": "y"])))
    )
    let accept = try #require(await next(alice))
    #expect(accept.from == "bob")
    #expect(accept.body == .accept(.init(sdp: "v=0", userInfo: ["x": "y"])))
}

@Test func hubRefusesStrangersImpostorsAndAbsentees() async throws {
    let hub = InProcessSignalingHub()
    let alice = hub.connect(user: "alice"), mallory = hub.connect(user: "mallory")
    _ = hub.connect(user: "bob")
    try await alice.send(call(from: "alice", to: "bob", opponents: ["bob", "carol"]))
    // carol is invited but not connected: alice hears 404... but bob got the call.
    try await alice.send(call(from: "alice", to: "carol", opponents: ["bob", "carol"]))
    let absent = try #require(await next(alice))
    guard case .error(let reply) = absent.body else {
        Issue.record("expected an error, got \(absent)")
        return
    }
    #expect(reply.code == .recipientUnavailable && reply.replyTo == "c" && reply.reason.contains("carol"))

    // mallory is not invited: cannot accept, cannot hang up for the session, cannot start it as alice.
    try await mallory.send(SignalingMessage(id: "m", to: ["alice"], session: "s1", body: .accept(.init(sdp: "v=0"))))
    try await mallory.send(call(from: "alice", to: "bob", opponents: ["bob"], session: "s2"))
    try await mallory.send(call(from: "mallory", to: "bob", opponents: ["bob"], session: "s1"))
    var codes: [SignalingErrorCode] = []
    for await message in mallory.messages {
        if case .error(let reply) = message.body { codes.append(reply.code) }
        if codes.count == 3 { break }
    }
    #expect(codes == [.forbidden, .forbidden, .conflict])
}

@Test func hubRepliesToMalformedMessagesAndClosedChannelsStopSending() async throws {
    let hub = InProcessSignalingHub()
    let alice = hub.connect(user: "alice")
    try await alice.send(SignalingMessage(id: "bad", to: ["bob"], body: .hangUp(.init())))
    let reply = try #require(await next(alice))
    #expect(
        reply.body
            == .error(
                .init(code: .malformed, reason: "field 'session': a hangUp message needs a session id", replyTo: "bad")
            )
    )
    await alice.close()
    #expect(hub.connectedUsers.isEmpty)
    await #expect(throws: SignalingChannelError.closed) {
        try await alice.send(SignalingMessage(body: .callLogQuery(.init())))
    }
}
