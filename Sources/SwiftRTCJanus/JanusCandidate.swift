/// An ICE candidate trickled to or from Janus.
public struct JanusCandidate: Sendable, Hashable {
    /// The `candidate:` attribute's value, as in SDP (without `a=`).
    public var candidate: String
    /// The media section's `mid` it belongs to.
    public var sdpMid: String?
    /// The media section's index in the SDP.
    public var sdpMLineIndex: Int?

    /// A candidate of the section `sdpMid` (index `sdpMLineIndex`).
    public init(candidate: String, sdpMid: String?, sdpMLineIndex: Int?) {
        self.candidate = candidate
        self.sdpMid = sdpMid
        self.sdpMLineIndex = sdpMLineIndex
    }

    init?(json: JanusJSON) {
        guard let candidate = json["candidate"]?.string, candidate.utf8.count <= 1024 else { return nil }
        self.init(
            candidate: candidate,
            sdpMid: json["sdpMid"]?.string.map { String($0.prefix(JanusMessage.maxString)) },
            sdpMLineIndex: json["sdpMLineIndex"]?.integer.map { Int(clamping: min(max($0, 0), 1024)) }
        )
    }

    var json: JanusJSON {
        var members: [String: JanusJSON] = ["candidate": .string(candidate)]
        if let sdpMid { members["sdpMid"] = .string(sdpMid) }
        if let sdpMLineIndex { members["sdpMLineIndex"] = .number(Double(sdpMLineIndex)) }
        return .object(members)
    }
}
