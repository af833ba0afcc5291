/// The data channels' section of JSEP (RFC 8829 §5.2.1, RFC 8841): one
/// `m=application 9 UDP/DTLS/SCTP webrtc-datachannel` section, bundled with the media, with
/// `a=sctp-port` and `a=max-message-size`.
extension JSEP {
    /// The proto of a data section (RFC 8841 §4.1).
    public static let dataProto = "UDP/DTLS/SCTP"
    /// Its one format.
    public static let dataFormat = "webrtc-datachannel"

    /// What this side says of its data channels in a description.
    public struct DataSection: Sendable, Hashable {
        /// The section's mid (nil: the lowest free number).
        public var mid: String?
        /// The local SCTP port (RFC 8841 §5: 5000 unless something else listens there).
        public var sctpPort: UInt16 = 5000
        /// The largest message this side takes.
        public var maxMessageSize: UInt64 = 262_144

        /// A section on port 5000 taking messages of 256 KiB.
        public init(mid: String? = nil) {
            self.mid = mid
        }
    }

    /// `offer` with the data section added into its BUNDLE group, at `index` among its
    /// sections (where a renegotiation must keep it, RFC 8829 §5.2.2) or after its media
    /// sections (nil), or, when `data.mid` names a media section it has, unchanged.
    public static func addingDataSection(
        _ data: DataSection,
        to offer: SessionDescription,
        local: LocalParameters,
        at index: Int? = nil
    ) -> SessionDescription {
        var offer = offer
        let taken = Set(offer.media.compactMap(\.mid))
        var mid = data.mid ?? ""
        if data.mid == nil {
            var next = 0
            while taken.contains(String(next)) { next += 1 }
            mid = String(next)
        } else if taken.contains(mid) {
            return offer
        }
        offer.media.insert(
            section(data, mid: mid, local: local, setup: .actpass),
            at: min(max(index ?? offer.media.count, 0), offer.media.count)
        )
        let mids = offer.media.filter { $0.port != 0 || $0.bundleOnly }.compactMap(\.mid)
        offer.groups = [SDPGroup(semantics: "BUNDLE", mids: mids)]
        return offer
    }

    /// `answer` (made by ``createAnswer(to:transceivers:local:)``, which rejects data
    /// sections) with the offer's data section accepted when it is one we take: SCTP over
    /// DTLS with the `webrtc-datachannel` format. Its mid joins the BUNDLE group.
    /// Returns the answer and the peer's SCTP port and message limit (nil when there was none
    /// to accept).
    public static func acceptingDataSection(
        _ data: DataSection,
        offer: SessionDescription,
        answer: SessionDescription,
        local: LocalParameters
    ) -> (answer: SessionDescription, remote: (sctpPort: UInt16, maxMessageSize: UInt64)?) {
        var answer = answer
        guard
            let index = offer.media.firstIndex(where: {
                $0.kind == .application && $0.isDataChannel && $0.formats.contains(dataFormat)
                    && ($0.port != 0 || ($0.bundleOnly && offer.bundleGroups.first?.contains($0.mid ?? "") == true))
            }), index < answer.media.count
        else { return (answer, nil) }
        let offered = offer.resolved(offer.media[index])
        let setup = (offered.setup ?? .actpass).answer(preferred: local.answerSetup) ?? local.answerSetup
        var m = section(data, mid: offered.mid ?? String(index), local: local, setup: setup)
        m.proto = offered.proto
        m.mid = offered.mid
        answer.media[index] = m
        if let mid = offered.mid, offer.bundleGroups.first?.contains(mid) == true {
            var mids = answer.groups.first(where: { $0.semantics == "BUNDLE" })?.mids ?? []
            if !mids.contains(mid) { mids.append(mid) }
            // In the offer's order.
            let order = offer.bundleGroups.first ?? []
            mids.sort { (order.firstIndex(of: $0) ?? 0) < (order.firstIndex(of: $1) ?? 0) }
            answer.groups = [SDPGroup(semantics: "BUNDLE", mids: mids)]
        }
        // RFC 8841 §6.1: a section without a=max-message-size takes 64 KiB.
        return (answer, (offered.sctpPort ?? 5000, offered.maxMessageSize ?? 65_536))
    }

    static func section(_ data: DataSection, mid: String, local: LocalParameters, setup: DTLSSetup) -> MediaDescription
    {
        var m = MediaDescription(kind: .application, port: 9, proto: dataProto, formats: [dataFormat])
        m.mid = mid
        addTransport(to: &m, local: local, setup: setup)
        m.sctpPort = data.sctpPort
        m.maxMessageSize = data.maxMessageSize
        return m
    }
}
