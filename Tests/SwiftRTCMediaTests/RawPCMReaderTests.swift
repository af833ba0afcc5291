import SwiftRTCCodecs
import Testing

@testable import SwiftRTCMedia

@Test func rawPCMRoundTrips() throws {
    var tone = ToneGenerator(frequency: 300, channels: 2)
    let frame = tone.nextFrame()
    var reader = try RawPCMReader(
        bytes: frame.samples.littleEndianBytes,
        format: PCMFormat(sampleRate: 48_000, channels: 2)
    )
    #expect(reader.readFrame() == frame)
    #expect(reader.readFrame() == nil)
    #expect(throws: MediaFileError.self) {
        try RawPCMReader(bytes: [1, 2, 3], format: PCMFormat(sampleRate: 48_000, channels: 2))
    }
}
