import SwiftRTCCore

/// Extends 32-bit RTP timestamps to 64 bits across wraparound for the decoders' output: SwiftRTCRTP's
/// ``TimestampUnwrapper`` (each timestamp placed within 2^31 ticks of the newest), with the
/// first taken as is and anything earlier than 0 clamped to 0.
struct RTPTimestampExtender {
    private var unwrapper = TimestampUnwrapper()

    mutating func extend(_ timestamp: UInt32) -> UInt64 {
        UInt64(max(0, unwrapper.unwrap(timestamp)))
    }
}
