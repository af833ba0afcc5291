import Testing

@testable import SwiftRTCDTLS

@Test func answererRoleFollowsTheOfferedSetup() {
    #expect(DtlsRole.answerer(offered: "actpass") == .client)
    #expect(DtlsRole.answerer(offered: "actpass", preferred: .server) == .server)
    #expect(DtlsRole.answerer(offered: "active") == .server)
    #expect(DtlsRole.answerer(offered: "passive") == .client)
    #expect(DtlsRole.answerer(offered: "holdconn") == nil)
    #expect(DtlsRole.client.setupAttribute == "active")
    #expect(DtlsLibrary.version.hasPrefix("GnuTLS 3."))
}
