import Testing

@testable import SwiftRTCCodecs

@Test func reportsLibraryVersions() {
    #expect(CodecLibrary.opusVersion.hasPrefix("libopus 1."))
    #expect(CodecLibrary.vpxVersion.hasPrefix("libvpx v1."))
}
