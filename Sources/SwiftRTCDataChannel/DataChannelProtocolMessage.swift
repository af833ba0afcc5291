/// A message of the Data Channel Establishment Protocol (RFC 8832), sent on the channel's own
/// stream with payload protocol ``PayloadProtocol/dcep``: the opener's `DATA_CHANNEL_OPEN`,
/// then the other side's `DATA_CHANNEL_ACK`.
public enum DataChannelProtocolMessage: Sendable, Hashable {
    /// `DATA_CHANNEL_OPEN` (RFC 8832 §5.1).
    case open(DataChannelOpen)
    /// `DATA_CHANNEL_ACK` (RFC 8832 §5.2): one byte, 0x02.
    case ack

    /// The message types (RFC 8832 §8.2.1).
    static let openType: UInt8 = 0x03
    static let ackType: UInt8 = 0x02

    /// Parses one DCEP message.
    /// - Throws: ``DataChannelProtocolError`` for an unknown type, a short message, an unknown
    ///   channel type, or a label or protocol that runs past the end or is not UTF-8.
    public init(parsing bytes: some Collection<UInt8>) throws(DataChannelProtocolError) {
        let bytes = Array(bytes)
        guard let type = bytes.first else { throw .truncated(needed: 1, got: 0) }
        switch type {
        case Self.ackType:
            self = .ack
        case Self.openType:
            self = .open(try DataChannelOpen(parsing: bytes))
        default:
            throw .unknownMessageType(type)
        }
    }

    /// The message on the wire.
    public var bytes: [UInt8] {
        switch self {
        case .ack: [Self.ackType]
        case .open(let open): open.bytes
        }
    }
}

/// `DATA_CHANNEL_OPEN` (RFC 8832 §5.1):
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |  Message Type |  Channel Type |            Priority           |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                    Reliability Parameter                      |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |         Label Length          |       Protocol Length         |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     \                                                               /
///     |                             Label                             |
///     /                                                               \
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     \                                                               /
///     |                            Protocol                           |
///     /                                                               \
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
public struct DataChannelOpen: Sendable, Hashable {
    /// How the channel delivers (the channel type and its reliability parameter).
    public enum Delivery: Sendable, Hashable {
        /// Every message, retransmitted until it arrives.
        case reliable
        /// Given up after this many retransmissions (`PARTIAL_RELIABLE_REXMIT`).
        case maxRetransmits(UInt32)
        /// Given up this many milliseconds after it was first sent (`PARTIAL_RELIABLE_TIMED`).
        case maxPacketLifeTime(milliseconds: UInt32)
    }

    /// Whether messages arrive in the order sent (the channel type's high bit clear).
    public var ordered: Bool
    public var delivery: Delivery
    /// The priority (RFC 8831 §6.4: 128 below normal, 256 normal, 512 high, 1024 extra high).
    public var priority: UInt16
    public var label: String
    /// The subprotocol (`protocol` of the W3C API), empty for none.
    public var `protocol`: String

    /// An open message.
    public init(
        ordered: Bool = true,
        delivery: Delivery = .reliable,
        priority: UInt16 = 256,
        label: String,
        protocol: String = ""
    ) {
        self.ordered = ordered
        self.delivery = delivery
        self.priority = priority
        self.label = label
        self.protocol = `protocol`
    }

    /// The fixed part before the label: 12 bytes.
    static let headerSize = 12

    init(parsing bytes: [UInt8]) throws(DataChannelProtocolError) {
        guard bytes.count >= Self.headerSize else { throw .truncated(needed: Self.headerSize, got: bytes.count) }
        let channelType = bytes[1]
        ordered = channelType & 0x80 == 0
        let parameter = UInt32(bytes[4]) << 24 | UInt32(bytes[5]) << 16 | UInt32(bytes[6]) << 8 | UInt32(bytes[7])
        switch channelType & 0x7F {
        case 0x00: delivery = .reliable
        case 0x01: delivery = .maxRetransmits(parameter)
        case 0x02: delivery = .maxPacketLifeTime(milliseconds: parameter)
        default: throw .unknownChannelType(channelType)
        }
        priority = UInt16(bytes[2]) << 8 | UInt16(bytes[3])
        let labelLength = Int(bytes[8]) << 8 | Int(bytes[9])
        let protocolLength = Int(bytes[10]) << 8 | Int(bytes[11])
        let needed = Self.headerSize + labelLength + protocolLength
        guard bytes.count >= needed else { throw .truncated(needed: needed, got: bytes.count) }
        let labelEnd = Self.headerSize + labelLength
        guard let label = String(validating: bytes[Self.headerSize..<labelEnd], as: UTF8.self),
            let name = String(validating: bytes[labelEnd..<needed], as: UTF8.self)
        else { throw .notUTF8 }
        self.label = label
        self.protocol = name
    }

    /// The message on the wire; a label or protocol longer than 65535 bytes is cut there.
    public var bytes: [UInt8] {
        let label = Array(label.utf8.prefix(65535)), name = Array(self.protocol.utf8.prefix(65535))
        let (kind, parameter): (UInt8, UInt32) =
            switch delivery {
            case .reliable: (0x00, 0)
            case .maxRetransmits(let count): (0x01, count)
            case .maxPacketLifeTime(let milliseconds): (0x02, milliseconds)
            }
        var bytes: [UInt8] = [DataChannelProtocolMessage.openType, kind | (ordered ? 0 : 0x80)]
        bytes += [UInt8(priority >> 8), UInt8(priority & 0xFF)]
        bytes += [
            UInt8(parameter >> 24), UInt8(parameter >> 16 & 0xFF), UInt8(parameter >> 8 & 0xFF),
            UInt8(parameter & 0xFF),
        ]
        bytes += [UInt8(label.count >> 8), UInt8(label.count & 0xFF), UInt8(name.count >> 8), UInt8(name.count & 0xFF)]
        return bytes + label + name
    }
}

/// Why a DCEP message was not understood.
public enum DataChannelProtocolError: Error, Sendable, Hashable {
    /// Not `DATA_CHANNEL_OPEN` (0x03) or `DATA_CHANNEL_ACK` (0x02).
    case unknownMessageType(UInt8)
    /// Shorter than its fields say.
    case truncated(needed: Int, got: Int)
    /// A channel type RFC 8832 §8.2.2 does not define.
    case unknownChannelType(UInt8)
    /// The label or protocol is not UTF-8.
    case notUTF8
}

/// The payload protocol identifiers of WebRTC's SCTP messages (RFC 8831 §8).
public enum PayloadProtocol: UInt32, Sendable {
    /// DCEP (RFC 8832).
    case dcep = 50
    /// A text message.
    case string = 51
    /// A binary message.
    case binary = 53
    /// An empty text message (sent as one zero byte).
    case stringEmpty = 56
    /// An empty binary message (sent as one zero byte).
    case binaryEmpty = 57
}
