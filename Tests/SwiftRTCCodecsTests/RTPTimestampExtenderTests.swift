import Testing

@testable import SwiftRTCCodecs

@Test func rtpTimestampsExtendAcrossWrapAndReordering() {
    var extender = RTPTimestampExtender()
    let input: [UInt32] = [4_294_960_000, 4_294_963_000, 2_704, 5_704, 2_704, 4_294_966_000, 100]
    let expected: [UInt64] = [
        4_294_960_000, 4_294_963_000, 4_294_967_296 + 2_704, 4_294_967_296 + 5_704,
        4_294_967_296 + 2_704, 4_294_966_000, 4_294_967_296 + 100,
    ]
    #expect(input.map { extender.extend($0) } == expected)
    var early = RTPTimestampExtender()
    #expect(early.extend(10) == 10)
    #expect(early.extend(4_294_967_000) == 0, "before the stream start clamps to 0")
}
