import Synchronization

/// What a datagram arriving on the one WebRTC socket is, by its first byte (RFC 7983
/// section 7), and for RTP/RTCP by its second byte (RFC 5761 section 4):
///
/// ```
///                 +----------------+
///                 |        [0..3] -+--> STUN
///                 |      [16..19] -+--> ZRTP
///     packet -->  |      [20..63] -+--> DTLS
///                 |      [64..79] -+--> TURN channel
///                 |    [128..191] -+--> RTP/RTCP: payload type 64..95 (second byte & 0x7F)
///                 +----------------+              is RTCP (SR 200 ... XR 207), else RTP
/// ```
public enum DatagramKind: Sendable, Hashable, CaseIterable {
    case stun, zrtp, dtls, turnChannel, rtp, rtcp
    /// Empty, or a first byte in no range RFC 7983 assigns.
    case unknown

    /// Classifies a datagram. Total: any bytes, including none, give a kind.
    @inlinable
    public init(classifying datagram: UnsafeRawBufferPointer) {
        guard let first = datagram.first else {
            self = .unknown
            return
        }
        switch first {
        case 0...3: self = .stun
        case 16...19: self = .zrtp
        case 20...63: self = .dtls
        case 64...79: self = .turnChannel
        case 128...191:
            guard datagram.count >= 2 else {
                self = .unknown
                return
            }
            let payloadType = datagram[1] & 0x7F
            self = (64...95).contains(payloadType) ? .rtcp : .rtp
        default: self = .unknown
        }
    }
}
