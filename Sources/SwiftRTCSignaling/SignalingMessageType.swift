import Foundation
import SwiftRTCCore

/// The `type` of a ``SignalingMessage`` on the wire.
public enum SignalingMessageType: String, Sendable, Hashable, Codable, CaseIterable {
    case hello, welcome, call, accept, reject, hangUp, offer, answer, candidate
    case mediaSettings, customItems, recording, callLogQuery, callLog, error
}
