/// Duration of an Opus packet from its TOC byte (RFC 6716 section 3.1), in 48 kHz samples.
enum OpusPacket {
    /// Samples per frame by TOC configuration number (0-31).
    private static let frameSamples: [Int] = (0..<32).map { config in
        switch config {
        case 0..<12: return [480, 960, 1920, 2880][config % 4]  // SILK 10/20/40/60 ms
        case 12..<16: return [480, 960][config % 2]  // Hybrid 10/20 ms
        default: return [120, 240, 480, 960][config % 4]  // CELT 2.5/5/10/20 ms
        }
    }

    /// Samples (per channel, at 48 kHz) the packet decodes to, or `nil` if it is malformed
    /// (empty, code 3 without its frame count, or longer than 120 ms).
    static func sampleCount(_ packet: [UInt8]) -> Int? {
        guard let toc = packet.first else { return nil }
        let perFrame = frameSamples[Int(toc >> 3)]
        let frames: Int
        switch toc & 0x03 {
        case 0: frames = 1
        case 1, 2: frames = 2
        default:
            guard packet.count >= 2 else { return nil }
            frames = Int(packet[1] & 0x3F)
        }
        let total = perFrame * frames
        return (1...5760).contains(total) ? total : nil
    }
}
