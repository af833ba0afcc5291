import Foundation

/// A usrsctp call failed.
public enum SctpError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `call` failed with `errno`.
    case call(String, Int32)

    public var description: String {
        switch self {
        case let .call(call, code): "\(call) failed: \(String(cString: strerror(code)))"
        }
    }
}
