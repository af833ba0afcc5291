import SwiftRTCICE

/// A TURN server's answer as the TURN probe (`TurnProbe`, SwiftRTCICE) reads it: the input,
/// cut to the probe's 1500-byte receive buffer, through `StunMessage(received:)`, its
/// transaction ID, ERROR-CODE and attributes; a 401 with REALM and NONCE is answered as the
/// probe answers it (an Allocate carrying USERNAME, the server's REALM and NONCE and
/// MESSAGE-INTEGRITY), which must parse as STUN and give back the same REALM and NONCE.
public func fuzzSTUN(_ bytes: UnsafeRawBufferPointer) {
    guard let message = StunMessage(received: Array(bytes.prefix(1500))) else { return }
    _ = message.transactionID
    for type in UInt16(0)..<0x30 { _ = message.attribute(type) }
    _ = message.attribute(0x8028)  // FINGERPRINT
    guard let (code, _) = message.errorCode, code == 401,
        let realm = message.attribute(StunMessage.realm), let nonce = message.attribute(StunMessage.nonce)
    else { return }
    var request = StunMessage(type: StunMessage.allocateRequest)
    request.append(StunMessage.requestedTransport, [17, 0, 0, 0])
    request.append(StunMessage.username, Array("fuzz-user".utf8))
    request.append(StunMessage.realm, realm)
    request.append(StunMessage.nonce, nonce)
    request.appendMessageIntegrity(key: Array(repeating: 0x5A, count: 16))
    guard let sent = StunMessage(received: request.bytes) else {
        fatalError("the probe's own request does not parse as STUN")
    }
    guard sent.attribute(StunMessage.realm) == realm, sent.attribute(StunMessage.nonce) == nonce else {
        fatalError("the probe's request does not carry the server's REALM and NONCE back")
    }
}
