import CNice

#if canImport(Glibc)
import Glibc
import SwiftRTCCore
#endif

/// Asks a TURN server over UDP why it gives no allocation: libnice gives up on a TURN server
/// silently (no relayed candidate, no error), so when that happens the agent repeats the
/// Allocate exchange itself (RFC 8656 section 7, long-term credentials of RFC 8489 section 9.2)
/// and reports the server's STUN error code, e.g. `401 Unauthorized` for wrong credentials.
/// Control plane only; blocking, run off the transport threads.
enum TurnProbe {
    struct Outcome: Equatable {
        /// The STUN error code, or `nil` if the server never answered or allocated.
        var code: Int?
        var reason: String
    }

    static func run(address: String, port: UInt16, username: String, credential: String) -> Outcome {
        guard let socket = UDPClient(address: address, port: port) else {
            return Outcome(code: nil, reason: "could not open a UDP socket to \(address):\(port)")
        }
        defer { socket.close() }

        // 1. Unauthenticated Allocate: the server answers 401 with its realm and nonce.
        var request = StunMessage(type: StunMessage.allocateRequest)
        request.append(StunMessage.requestedTransport, [17, 0, 0, 0])  // UDP
        guard let first = socket.exchange(request) else {
            return Outcome(code: nil, reason: "no answer from \(address):\(port) (timed out)")
        }
        guard let (code, reason) = first.errorCode else {
            return Outcome(code: nil, reason: "the server allocated without credentials when probed")
        }
        guard code == 401, let realm = first.attribute(StunMessage.realm),
            let nonce = first.attribute(StunMessage.nonce)
        else {
            return Outcome(code: code, reason: reason)
        }

        // 2. Allocate with the long-term credential: key = MD5(username ":" realm ":" password).
        let key = md5(Array("\(username):\(String(decoding: realm, as: UTF8.self)):\(credential)".utf8))
        /// A request with one attribute, then USERNAME, REALM, NONCE and MESSAGE-INTEGRITY.
        func signed(_ type: UInt16, _ attribute: UInt16, _ value: [UInt8]) -> StunMessage {
            var message = StunMessage(type: type)
            message.append(attribute, value)
            message.append(StunMessage.username, Array(username.utf8))
            message.append(StunMessage.realm, realm)
            message.append(StunMessage.nonce, nonce)
            message.appendMessageIntegrity(key: key)
            return message
        }
        guard
            let second = socket.exchange(
                signed(StunMessage.allocateRequest, StunMessage.requestedTransport, [17, 0, 0, 0])
            )
        else {
            return Outcome(code: nil, reason: "no answer to the authenticated Allocate (timed out)")
        }
        if let (code, reason) = second.errorCode { return Outcome(code: code, reason: reason) }

        // The probe got an allocation after all: give it back (Refresh with LIFETIME 0).
        _ = socket.exchange(signed(StunMessage.refreshRequest, StunMessage.lifetime, [0, 0, 0, 0]))
        return Outcome(code: nil, reason: "the server allocated when probed again")
    }

    private static func md5(_ bytes: [UInt8]) -> [UInt8] {
        let checksum = g_checksum_new(G_CHECKSUM_MD5)!
        defer { g_checksum_free(checksum) }
        g_checksum_update(checksum, bytes, bytes.count)
        var digest = [UInt8](repeating: 0, count: 16)
        var length = gsize(digest.count)
        g_checksum_get_digest(checksum, &digest, &length)
        return digest
    }
}

/// The few STUN messages the probe needs (RFC 8489 section 5), built and read totally
/// (`package`: the STUN fuzzer in Fuzz/ reads what a server could answer):
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |0 0|     STUN Message Type     |         Message Length        |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                         Magic Cookie                          |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                     Transaction ID (96 bits)                  |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |         Type                  |            Length             |  attributes,
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+  padded to 4
/// ```
package struct StunMessage {
    package static let bindingRequest: UInt16 = 0x0001
    package static let bindingSuccess: UInt16 = 0x0101
    package static let allocateRequest: UInt16 = 0x0003
    package static let refreshRequest: UInt16 = 0x0004
    package static let username: UInt16 = 0x0006
    package static let messageIntegrity: UInt16 = 0x0008
    package static let errorCodeAttribute: UInt16 = 0x0009
    package static let lifetime: UInt16 = 0x000D
    package static let realm: UInt16 = 0x0014
    package static let nonce: UInt16 = 0x0015
    package static let requestedTransport: UInt16 = 0x0019
    package static let magicCookie: [UInt8] = [0x21, 0x12, 0xA4, 0x42]

    package private(set) var bytes: [UInt8]

    /// A new request with a random transaction ID.
    package init(type: UInt16) {
        bytes = [UInt8(type >> 8), UInt8(type & 0xFF), 0, 0] + Self.magicCookie
        for _ in 0..<12 { bytes.append(UInt8.random(in: 0...255)) }
    }

    /// A received message, if it is a well-formed STUN message.
    package init?(received: [UInt8]) {
        guard received.count >= 20, Array(received[4..<8]) == Self.magicCookie, received[0] & 0xC0 == 0 else {
            return nil
        }
        let length = Int(received.withUnsafeBytes { $0.u16(2) })
        guard length % 4 == 0, received.count == 20 + length else { return nil }
        bytes = received
    }

    package var transactionID: ArraySlice<UInt8> { bytes[8..<20] }

    /// The message type (method and class), e.g. ``bindingSuccess``.
    package var type: UInt16 { bytes.withUnsafeBytes { $0.u16(0) } }

    private mutating func setLength(_ length: Int) {
        bytes[2] = UInt8(length >> 8)
        bytes[3] = UInt8(length & 0xFF)
    }

    package mutating func append(_ type: UInt16, _ value: [UInt8]) {
        bytes += [UInt8(type >> 8), UInt8(type & 0xFF), UInt8(value.count >> 8), UInt8(value.count & 0xFF)]
        bytes += value
        bytes += [UInt8](repeating: 0, count: (4 - value.count % 4) % 4)
        setLength(bytes.count - 20)
    }

    /// MESSAGE-INTEGRITY: HMAC-SHA1 over the message so far, with the length already
    /// counting this attribute (RFC 8489 section 14.5).
    package mutating func appendMessageIntegrity(key: [UInt8]) {
        setLength(bytes.count - 20 + 24)
        let hmac = g_hmac_new(G_CHECKSUM_SHA1, key, gsize(key.count))!
        defer { g_hmac_unref(hmac) }
        g_hmac_update(hmac, bytes, bytes.count)
        var digest = [UInt8](repeating: 0, count: 20)
        var length = gsize(digest.count)
        g_hmac_get_digest(hmac, &digest, &length)
        append(Self.messageIntegrity, digest)
    }

    /// The value of the first attribute of `type`.
    package func attribute(_ type: UInt16) -> [UInt8]? {
        var offset = 20
        while offset + 4 <= bytes.count {
            let (attributeType, length) = bytes.withUnsafeBytes { [offset] in ($0.u16(offset), Int($0.u16(offset + 2)))
            }
            let start = offset + 4
            guard start + length <= bytes.count else { return nil }
            if attributeType == type { return Array(bytes[start..<start + length]) }
            offset = start + (length + 3) / 4 * 4
        }
        return nil
    }

    /// ERROR-CODE of an error response: class * 100 + number, and the reason phrase.
    package var errorCode: (Int, String)? {
        guard bytes[1] & 0x10 != 0, bytes[0] & 0x01 != 0, let value = attribute(Self.errorCodeAttribute),
            value.count >= 4
        else {
            return nil
        }
        return (Int(value[2] & 0x07) * 100 + Int(value[3]), String(decoding: value[4...], as: UTF8.self))
    }
}
