import Synchronization
import Testing

@testable import SwiftRTCCore

/// A closure behind a lock keeps its depth however often it is read: wrapped in ``Callback``,
/// reading it through `withLock` does not re-wrap it in a thunk (a bare function type as the
/// lock's value grew one thunk per read: the stack depth of a call grew with every read).
@Suite struct CallbackTests {
    /// Where the stack is inside a call: its depth, compared across calls.
    @inline(never)
    static func stackAddress() -> Int {
        var marker = 0
        return withUnsafeMutablePointer(to: &marker) { Int(bitPattern: $0) }
    }

    @Test func readingThroughTheLockKeepsTheCallsDepth() {
        let depths = Mutex<[Int]>([])
        let lock = Mutex<Callback<Int, Void>?>(Callback { _ in depths.withLock { $0.append(Self.stackAddress()) } })
        for i in 0..<20_000 {
            // As a track reads its sink: once to ask whether there is one, once to call it.
            _ = lock.withLock { $0 != nil }
            if let callback = lock.withLock({ $0 }), i == 0 || i == 19_999 { callback(i) }
        }
        let recorded = depths.withLock { $0 }
        #expect(recorded.count == 2)
        // One thunk per read would put the last call some 40,000 frames deeper.
        #expect(abs(recorded[0] - recorded[1]) < 1024, "stack moved \(recorded[0] - recorded[1]) bytes")
    }

    @Test func aVoidCallbackIsCalledWithoutAnArgument() {
        let calls = Mutex(0)
        let callback = Callback<Void, Int> {
            calls.withLock {
                $0 += 1
                return $0
            }
        }
        #expect(callback() == 1 && callback() == 2)
    }
}
