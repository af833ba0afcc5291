import CNice
import Testing

/// libnice and GLib really load: an agent on its own main context gets a stream with
/// generated ICE credentials, and is freed.
@Test func niceAgentCreatesStreamWithCredentials() throws {
    #expect(glib_major_version == 2)
    #expect(glib_minor_version >= 74)

    let context = try #require(g_main_context_new())
    defer { g_main_context_unref(context) }
    let agent = try #require(nice_agent_new(context, NICE_COMPATIBILITY_RFC5245))
    defer { g_object_unref(UnsafeMutableRawPointer(agent)) }

    let streamID = nice_agent_add_stream(agent, 1)
    #expect(streamID == 1)

    var ufrag: UnsafeMutablePointer<gchar>?
    var pwd: UnsafeMutablePointer<gchar>?
    #expect(nice_agent_get_local_credentials(agent, streamID, &ufrag, &pwd) != 0)
    defer {
        g_free(ufrag)
        g_free(pwd)
    }
    let ufragString = String(cString: try #require(ufrag))
    let pwdString = String(cString: try #require(pwd))
    // RFC 8445 §5.3: ufrag at least 4 and password at least 22 ice-chars.
    #expect(ufragString.count >= 4)
    #expect(pwdString.count >= 22)

    nice_agent_remove_stream(agent, streamID)
}
