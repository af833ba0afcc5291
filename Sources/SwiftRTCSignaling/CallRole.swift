import Foundation
import SwiftRTCCore

/// Which side of a call a user was on (call-log queries).
public enum CallRole: String, Sendable, Hashable, Codable, CaseIterable {
    case caller, callee
}
