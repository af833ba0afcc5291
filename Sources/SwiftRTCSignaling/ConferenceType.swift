import Foundation
import SwiftRTCCore

/// Whether a call carries audio only or audio and video.
public enum ConferenceType: String, Sendable, Hashable, Codable, CaseIterable {
    case audio, video
}
