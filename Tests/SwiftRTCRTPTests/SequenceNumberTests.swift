import Testing

@testable import SwiftRTCRTP

@Test(arguments: [
    (UInt16(1), UInt16(0), true), (0, 65535, true), (65535, 0, false), (5, 5, false),
    (0x8000, 0, false), (0x7FFF, 0, true), (10, 65530, true),
])
func newerAcrossWrap(a: UInt16, b: UInt16, newer: Bool) {
    #expect(SequenceNumber.isNewer(a, than: b) == newer)
}

@Test func unwrapCountsCyclesAndPlacesLatePackets() {
    var unwrapper = SequenceUnwrapper()
    #expect(unwrapper.unwrap(65534) == 65534)
    #expect(unwrapper.unwrap(65535) == 65535)
    #expect(unwrapper.unwrap(0) == 65536)
    #expect(unwrapper.unwrap(3) == 65539)
    #expect(unwrapper.unwrap(65533) == 65533, "a late packet from before the wrap")
    #expect(unwrapper.unwrap(4) == 65540)
}
