/// A closure as a value a lock can hold (`Mutex<Callback<I, O>?>`, `Locked<…>`).
///
/// A lock whose value is a function type itself re-wraps the function in a reabstraction
/// thunk each time `withLock` hands it out (Swift 6.3, at -Onone and -O alike): every read
/// allocated 32 bytes that stayed, and made the next call one thunk deeper. A remote audio
/// track's sink is read twice per frame, so a day-long call grew by gigabytes and its
/// decoding task's stack overflowed within the hour. Wrapped in a struct, the function is
/// stored as it is and read without a thunk (`CallbackTests`).
package struct Callback<Input, Output>: Sendable {
    package let call: @Sendable (Input) -> Output

    package init(_ call: @escaping @Sendable (Input) -> Output) { self.call = call }

    package func callAsFunction(_ input: Input) -> Output { call(input) }
}

extension Callback where Input == Void {
    package func callAsFunction() -> Output { call(()) }
}
