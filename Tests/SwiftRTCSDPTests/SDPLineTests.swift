import Testing

@testable import SwiftRTCSDP

@Test func splitsCRLFAndLFAndNumbersLines() {
    let lines = SDPLine.split("v=0\r\no=- 1 2 IN IP4 127.0.0.1\n\na=group:BUNDLE 0\r\nbroken\n")
    #expect(lines.map(\.type) == ["v", "o", "a", "?"])
    #expect(lines.map(\.number) == [1, 2, 4, 5])
    #expect(lines[2].value == "group:BUNDLE 0")
    #expect(lines[3].value == "broken")
}
