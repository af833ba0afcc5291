import Foundation

/// A value behind a lock, for state that holds non-`Sendable` parts (a ``FrameAssembler``)
/// shared between the transport thread and the control plane. The lock is never held
/// across a suspension point.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
