/// An SDP offer or answer as Janus carries it (`jsep`).
public struct JanusJSEP: Sendable, Hashable {
    /// `offer` or `answer`.
    public var type: String
    /// The SDP text.
    public var sdp: String

    /// The largest SDP taken from Janus (a room of many streams stays far below).
    static let maxSDP = 256 * 1024

    /// An SDP of `type` (`offer` or `answer`).
    public init(type: String, sdp: String) {
        self.type = type
        self.sdp = sdp
    }

    init?(json: JanusJSON) {
        guard let type = json["type"]?.string, type == "offer" || type == "answer",
            let sdp = json["sdp"]?.string, sdp.utf8.count <= Self.maxSDP
        else { return nil }
        self.init(type: type, sdp: sdp)
    }

    var json: JanusJSON { ["type": .string(type), "sdp": .string(sdp)] }
}
