/// What an offer and its answer agreed on (RFC 3264 §6, JSEP §5.10): per media section the
/// codecs and payload types, header extensions, directions and DTLS roles, and the BUNDLE
/// group. Building it checks that the answer only uses what the offer offered.
public struct Negotiation: Sendable, Hashable {
    /// The accepted BUNDLE group (the answer's), empty without BUNDLE.
    public var bundle: [String]
    /// One entry per media section, in order.
    public var media: [NegotiatedMedia]

    /// The outcome for one media section.
    public struct NegotiatedMedia: Sendable, Hashable {
        /// The section's mid.
        public var mid: String
        /// audio, video, application...
        public var kind: MediaKind
        /// False when the answer rejected the section (port 0).
        public var accepted: Bool
        /// The offerer's direction.
        public var offererDirection: MediaDirection
        /// The answerer's direction.
        public var answererDirection: MediaDirection
        /// The codecs both sides use, as the answer lists them (the offer's payload types).
        public var codecs: [RtpCodec]
        /// The header extensions both sides use (answer's ids, which are the offer's).
        public var extensions: [ExtMap]
        /// The answerer's `a=setup` (active: the answerer is the DTLS client).
        public var answererSetup: DTLSSetup?
        /// Whether the offerer is the DTLS client.
        public var offererIsDTLSClient: Bool { answererSetup == .passive }
    }

    /// Lines the answer up with the offer; throws when the answer uses what was not offered.
    public init(offer: SessionDescription, answer: SessionDescription) throws(JSEPError) {
        guard offer.media.count == answer.media.count else {
            throw .sectionMismatch("offer has \(offer.media.count) m-sections, answer \(answer.media.count)")
        }
        bundle = answer.bundleGroups.first ?? []
        let offeredBundle = Set(offer.bundleGroups.flatMap { $0 })
        for mid in bundle where !offeredBundle.contains(mid) {
            throw .sectionMismatch("answer bundles \(mid), which the offer did not")
        }
        media = []
        for (index, (o, a)) in zip(offer.media.map(offer.resolved), answer.media.map(answer.resolved)).enumerated() {
            let mid = o.mid ?? String(index)
            guard o.kind == a.kind, a.mid == nil || a.mid == o.mid else {
                throw .sectionMismatch(
                    "section \(index) is \(o.kind) \(o.mid ?? "-") in the offer, \(a.kind) \(a.mid ?? "-") in the answer"
                )
            }
            let accepted = a.port != 0 || bundle.contains(mid)
            var codecs: [RtpCodec] = []
            var extensions: [ExtMap] = []
            if accepted && a.isRTP {
                for pt in a.payloadTypes {
                    let answered = a.attributes.codec(pt) ?? RtpCodec(payloadType: pt, name: nil, clockRate: nil)
                    guard o.payloadTypes.contains(pt),
                        let offered = o.attributes.codec(pt) ?? (answered.name == nil ? answered : nil),
                        offered.encodingName == answered.encodingName
                    else {
                        throw .codecMismatch(mid: mid, payloadType: pt)
                    }
                    codecs.append(answered)
                }
                for ext in a.extensions {
                    guard o.extensions.contains(where: { $0.id == ext.id && $0.uri == ext.uri }) else {
                        throw .extensionMismatch(mid: mid, id: ext.id)
                    }
                    extensions.append(ext)
                }
                if a.setup == .actpass || a.setup == .holdconn {
                    throw .invalidSetup(mid: mid, setup: a.setup?.rawValue ?? "")
                }
            }
            media.append(
                NegotiatedMedia(
                    mid: mid,
                    kind: o.kind,
                    accepted: accepted,
                    offererDirection: o.direction ?? .sendrecv,
                    answererDirection: accepted ? (a.direction ?? .sendrecv) : .inactive,
                    codecs: codecs,
                    extensions: extensions,
                    answererSetup: accepted ? a.setup : nil
                )
            )
        }
    }
}
