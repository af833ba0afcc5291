/// SplitMix64 (Steele, Lea and Flood, 2014): a small deterministic generator for the tests'
/// reproducible inputs, simulations and loss patterns, the same sequence on every run and
/// machine. Not for anything secret.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    /// The generator's state: each value adds ``increment`` to it and mixes the sum.
    public var state: UInt64

    /// The odd constant added per value (2^64 divided by the golden ratio).
    public static let increment: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// A generator whose first value is `mix(seed + increment)`.
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= Self.increment
        return Self.mix(state)
    }

    /// SplitMix64's output function: `value`'s bits spread over the whole word (also a
    /// stateless hash: `mix(seed + index * increment)` is the index-th value of a sequence).
    public static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
