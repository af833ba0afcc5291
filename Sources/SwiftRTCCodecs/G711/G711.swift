/// G.711 (ITU-T G.711): 16-bit linear PCM to and from 8-bit µ-law (PCMU, RTP payload type 0)
/// or A-law (PCMA, payload type 8), at 8 kHz, one byte a sample (RFC 3551 §4.5.14). Pure
/// arithmetic, no state, the segment search of the reference implementation (the one Sun
/// published, which Python's `audioop` and most stacks use): `Fixtures/g711/` holds that
/// implementation's output for every 16-bit sample and every code, and the tests compare.
///
/// ```
/// µ-law code (inverted on the wire)     A-law code (even bits inverted on the wire)
///  7   6 5 4   3 2 1 0                   7   6 5 4   3 2 1 0
/// +-+-------+---------+                 +-+-------+---------+
/// |S| segment| mantissa|                |S| segment| mantissa|
/// +-+-------+---------+                 +-+-------+---------+
/// ```
public enum G711 {
    /// The two companding laws.
    public enum Law: Sendable, Hashable {
        /// µ-law: PCMU (North America, Japan), 14-bit range.
        case mu
        /// A-law: PCMA (the rest of the world), 13-bit range.
        case a
    }

    /// The upper ends of the µ-law segments (14-bit magnitude plus the bias).
    static let muSegmentEnds: [Int32] = [0x3F, 0x7F, 0xFF, 0x1FF, 0x3FF, 0x7FF, 0xFFF, 0x1FFF]
    /// The upper ends of the A-law segments (13-bit magnitude).
    static let aSegmentEnds: [Int32] = [0x1F, 0x3F, 0x7F, 0xFF, 0x1FF, 0x3FF, 0x7FF, 0xFFF]

    /// The segment of `magnitude` (the first whose end it does not pass), 8 past the last.
    static func segment(_ magnitude: Int32, _ ends: [Int32]) -> Int32 {
        Int32(ends.firstIndex { magnitude <= $0 } ?? ends.count)
    }

    /// One sample's µ-law code.
    public static func muLaw(_ sample: Int16) -> UInt8 {
        var value = Int32(sample) >> 2
        let mask: Int32
        if value < 0 {
            value = -value
            mask = 0x7F
        } else {
            mask = 0xFF
        }
        value = min(value, 8159) + 0x21
        let segment = segment(value, muSegmentEnds)
        guard segment < 8 else { return UInt8(0x7F ^ mask) }
        return UInt8(truncatingIfNeeded: ((segment << 4) | ((value >> (segment + 1)) & 0x0F)) ^ mask)
    }

    /// One sample's A-law code.
    public static func aLaw(_ sample: Int16) -> UInt8 {
        var value = Int32(sample) >> 3
        let mask: Int32
        if value >= 0 {
            mask = 0xD5
        } else {
            mask = 0x55
            value = -value - 1
        }
        let segment = segment(value, aSegmentEnds)
        guard segment < 8 else { return UInt8(0x7F ^ mask) }
        let mantissa = segment < 2 ? (value >> 1) & 0x0F : (value >> segment) & 0x0F
        return UInt8(truncatingIfNeeded: ((segment << 4) | mantissa) ^ mask)
    }

    /// The linear sample of a µ-law code.
    public static func linear(muLaw code: UInt8) -> Int16 {
        let inverted = Int32(~code)
        let magnitude = (((inverted & 0x0F) << 3) + 0x84) << ((inverted & 0x70) >> 4)
        return Int16(truncatingIfNeeded: inverted & 0x80 != 0 ? 0x84 - magnitude : magnitude - 0x84)
    }

    /// The linear sample of an A-law code.
    public static func linear(aLaw code: UInt8) -> Int16 {
        let value = Int32(code ^ 0x55)
        var magnitude = (value & 0x0F) << 4
        let segment = (value & 0x70) >> 4
        switch segment {
        case 0: magnitude += 8
        case 1: magnitude += 0x108
        default: magnitude = (magnitude + 0x108) << (segment - 1)
        }
        return Int16(truncatingIfNeeded: value & 0x80 != 0 ? magnitude : -magnitude)
    }

    /// `samples` (8 kHz linear PCM) as codes of `law`, one byte each.
    public static func encode(_ samples: some Collection<Int16>, law: Law) -> [UInt8] {
        switch law {
        case .mu: samples.map(muLaw)
        case .a: samples.map(aLaw)
        }
    }

    /// `codes` of `law` as 8 kHz linear PCM.
    public static func decode(_ codes: some Collection<UInt8>, law: Law) -> [Int16] {
        switch law {
        case .mu: codes.map { linear(muLaw: $0) }
        case .a: codes.map { linear(aLaw: $0) }
        }
    }
}
