/// The negotiated IDs of the header extensions SwiftRTC understands (from `a=extmap`).
public struct RTPHeaderExtensionIDs: Sendable, Hashable {
    /// The negotiated ID, nil if not negotiated.
    public var mid: UInt8?
    /// The negotiated ID, nil if not negotiated.
    public var absSendTime: UInt8?
    /// The negotiated ID, nil if not negotiated.
    public var transportSequenceNumber: UInt8?
    /// The negotiated ID, nil if not negotiated.
    public var audioLevel: UInt8?
    /// The negotiated ID, nil if not negotiated.
    public var rid: UInt8?
    /// The negotiated ID, nil if not negotiated.
    public var repairedRid: UInt8?
    /// The negotiated ID, nil if not negotiated.
    public var playoutDelay: UInt8?

    /// Creates an empty value.
    public init() {}

    /// Picks the known extensions out of an `a=extmap` id → URI map.
    public init(extmap: [UInt8: String]) {
        for (id, uri) in extmap {
            switch uri {
            case SDESMid.uri: mid = id
            case AbsSendTime.uri: absSendTime = id
            case TransportSequenceNumber.uri: transportSequenceNumber = id
            case AudioLevel.uri: audioLevel = id
            case RTPStreamID.uri: rid = id
            case RepairedRTPStreamID.uri: repairedRid = id
            case PlayoutDelay.uri: playoutDelay = id
            default: break
            }
        }
    }
}
