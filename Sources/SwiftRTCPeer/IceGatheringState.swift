import SwiftRTCCodecs
import SwiftRTCRTP

/// Where candidate gathering is (W3C `RTCIceGatheringState`).
public enum IceGatheringState: String, Sendable, Hashable, CaseIterable {
    case new, gathering, complete
}
