import CSRTP
import CSRTPNettle
import Foundation
import Testing

@testable import SwiftRTCSRTP

/// `<package root>/Fixtures`, from this file's path.
let fixturesDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures")

struct FixtureError: Error, CustomStringConvertible {
    var description: String
}

func fixtureJSON(_ name: String) throws -> [String: Any] {
    let data = try Data(contentsOf: fixturesDirectory.appendingPathComponent("vectors/\(name)"))
    guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
        throw FixtureError(description: "\(name): not a JSON object")
    }
    return object
}

extension [String: Any] {
    func string(_ key: String) throws -> String {
        guard let value = self[key] as? String else { throw FixtureError(description: "missing string \(key)") }
        return value
    }

    func object(_ key: String) throws -> [String: Any] {
        guard let value = self[key] as? [String: Any] else { throw FixtureError(description: "missing object \(key)") }
        return value
    }

    func objects(_ key: String) throws -> [[String: Any]] {
        guard let value = self[key] as? [[String: Any]] else { throw FixtureError(description: "missing array \(key)") }
        return value
    }

    func hex(_ key: String) throws -> [UInt8] {
        try hexBytes(string(key))
    }
}

func hexBytes(_ text: String) throws -> [UInt8] {
    let digits = Array(text.utf8)
    guard digits.count % 2 == 0 else { throw FixtureError(description: "odd hex length: \(text)") }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(digits.count / 2)
    for i in stride(from: 0, to: digits.count, by: 2) {
        guard let high = hexValue(digits[i]), let low = hexValue(digits[i + 1]) else {
            throw FixtureError(description: "not hex: \(text)")
        }
        bytes.append(high << 4 | low)
    }
    return bytes
}

private func hexValue(_ digit: UInt8) -> UInt8? {
    switch digit {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
    default: nil
    }
}

extension SrtpSession {
    /// Runs `operation` through the public API on a copy of `bytes` in a buffer with `extra`
    /// bytes of spare room (and `length`, default `bytes.count`); returns the new packet.
    func apply(
        _ operation: Operation,
        _ bytes: [UInt8],
        extra: Int = 64,
        length: Int? = nil
    ) -> Result<[UInt8], SrtpPacketError> {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count + extra, alignment: 16)
        defer { buffer.deallocate() }
        buffer.copyBytes(from: bytes)
        let length = length ?? bytes.count
        do throws(SrtpPacketError) {
            let newLength: Int
            switch operation {
            case .protectRTP: newLength = try protectRTP(buffer, length: length)
            case .unprotectRTP: newLength = try unprotectRTP(buffer, length: length)
            case .protectRTCP: newLength = try protectRTCP(buffer, length: length)
            case .unprotectRTCP: newLength = try unprotectRTCP(buffer, length: length)
            }
            return .success(Array(buffer[0..<newLength]))
        } catch {
            return .failure(error)
        }
    }
}

/// An RTP packet: version 2, the given payload type, sequence number, timestamp and SSRC,
/// then a deterministic payload.
func rtpPacket(
    sequence: UInt16,
    ssrc: UInt32 = 0xCAFE_BABE,
    payloadType: UInt8 = 96,
    payloadLength: Int = 160
) -> [UInt8] {
    var packet: [UInt8] = [0x80, payloadType]
    packet += [UInt8(sequence >> 8), UInt8(sequence & 0xFF)]
    let timestamp = UInt32(sequence) &* 3000
    packet += [
        UInt8(timestamp >> 24), UInt8((timestamp >> 16) & 0xFF), UInt8((timestamp >> 8) & 0xFF),
        UInt8(timestamp & 0xFF),
    ]
    packet += [UInt8(ssrc >> 24), UInt8((ssrc >> 16) & 0xFF), UInt8((ssrc >> 8) & 0xFF), UInt8(ssrc & 0xFF)]
    packet += (0..<payloadLength).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(sequence)) }
    return packet
}

/// An RTCP receiver report with no report blocks from `ssrc`, then an SDES-like filler.
func rtcpPacket(ssrc: UInt32 = 0xCAFE_BABE) -> [UInt8] {
    [
        0x80, 201, 0x00, 0x01,
        UInt8(ssrc >> 24), UInt8((ssrc >> 16) & 0xFF), UInt8((ssrc >> 8) & 0xFF), UInt8(ssrc & 0xFF),
    ]
}

/// Test keys for a profile, different for each direction and `seed`.
func testKeys(_ profile: SrtpProfile, seed: UInt8) -> SrtpMasterKey {
    SrtpMasterKey(
        key: (0..<profile.keyLength).map { UInt8(truncatingIfNeeded: Int($0) * 7 + Int(seed)) },
        salt: (0..<profile.saltLength).map { UInt8(truncatingIfNeeded: Int($0) * 13 + Int(seed) + 1) }
    )
}

/// A pair of sessions that talk to each other (a's local key is b's remote key).
func sessionPair(
    _ profile: SrtpProfile,
    a cryptoA: SrtpCrypto = .default,
    b cryptoB: SrtpCrypto = .default
) throws -> (SrtpSession, SrtpSession) {
    let keyA = testKeys(profile, seed: 1), keyB = testKeys(profile, seed: 101)
    return (
        try SrtpSession(profile: profile, local: keyA, remote: keyB, crypto: cryptoA),
        try SrtpSession(profile: profile, local: keyB, remote: keyA, crypto: cryptoB)
    )
}

// MARK: - libsrtp cipher and auth types, driven directly

/// A libsrtp type exported by libsrtp2.so but not declared in its headers (the stock
/// `srtp_aes_icm_128`, `srtp_hmac`, `srtp_aes_gcm_128`, ...).
func libsrtpSymbol<T>(_ name: String, as type: T.Type) throws -> UnsafePointer<T> {
    guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, name) else {
        throw FixtureError(description: "libsrtp2 exports no \(name)")
    }
    return UnsafeRawPointer(symbol).assumingMemoryBound(to: T.self)
}

/// Runs a libsrtp cipher of `type` keyed with `key` (with salt, for AES-ICM) over `data` in
/// place after setting `iv` (and `aad`), as libsrtp's SRTP code does; for AEAD types the tag is
/// appended on encrypt and checked on decrypt.
func runCipher(
    _ type: UnsafePointer<srtp_cipher_type_t>,
    key: [UInt8],
    tagLength: Int = 0,
    iv: [UInt8],
    aad: [UInt8] = [],
    data: [UInt8],
    decrypt: Bool = false,
    split: Int? = nil
) throws -> [UInt8] {
    var cipher: UnsafeMutablePointer<srtp_cipher_t>?
    try check(srtp_cipher_type_alloc(type, &cipher, Int32(key.count), Int32(tagLength)))
    defer { srtp_cipher_dealloc(cipher) }
    try check(srtp_cipher_init(cipher, key))
    var iv = iv + [UInt8](repeating: 0, count: 16 - iv.count)
    let direction = decrypt ? srtp_direction_decrypt : srtp_direction_encrypt
    try check(srtp_cipher_set_iv(cipher, &iv, Int32(direction.rawValue)))
    if tagLength > 0 {
        try check(srtp_cipher_set_aad(cipher, aad, UInt32(aad.count)))
    }
    var buffer = data + [UInt8](repeating: 0, count: 16)
    var length = UInt32(data.count)
    if decrypt {
        try check(srtp_cipher_decrypt(cipher, &buffer, &length))
        return Array(buffer[0..<Int(length)])
    }
    if let split {  // two calls, continuing the keystream
        var first = UInt32(split), second = UInt32(data.count - split)
        try buffer.withUnsafeMutableBufferPointer { bytes in
            try check(srtp_cipher_encrypt(cipher, bytes.baseAddress, &first))
            try check(srtp_cipher_encrypt(cipher, bytes.baseAddress! + split, &second))
        }
    } else {
        try check(srtp_cipher_encrypt(cipher, &buffer, &length))
    }
    var output = Array(buffer[0..<data.count])
    if tagLength > 0 {
        var tag = [UInt8](repeating: 0, count: tagLength)
        var produced = UInt32(tagLength)
        try check(srtp_cipher_get_tag(cipher, &tag, &produced))
        output += tag[0..<Int(produced)]
    }
    return output
}

/// HMAC of `chunks` (fed with update, the last with compute) by a libsrtp auth of `type`.
func runAuth(_ type: UnsafePointer<srtp_auth_type_t>, key: [UInt8], tagLength: Int, chunks: [[UInt8]]) throws -> [UInt8]
{
    var auth: UnsafeMutablePointer<srtp_auth_t>?
    try check(type.pointee.alloc(&auth, Int32(key.count), Int32(tagLength)))
    let a = try #require(auth)
    defer { _ = a.pointee.type.pointee.dealloc(a) }
    try check(a.pointee.type.pointee.`init`(a.pointee.state, key, Int32(key.count)))
    try check(a.pointee.type.pointee.start(a.pointee.state))
    for chunk in chunks.dropLast() {
        try check(a.pointee.type.pointee.update(a.pointee.state, chunk, Int32(chunk.count)))
    }
    var tag = [UInt8](repeating: 0, count: tagLength)
    let last = chunks.last ?? []
    try check(a.pointee.type.pointee.compute(a.pointee.state, last, Int32(last.count), Int32(tagLength), &tag))
    return tag
}

func check(_ status: srtp_err_status_t) throws {
    guard status == srtp_err_status_ok else { throw FixtureError(description: "libsrtp status \(status.rawValue)") }
}

/// The stock and the nettle-backed cipher and auth types.
enum CryptoTypes {
    static func aesIcm128(_ crypto: SrtpCrypto) throws -> UnsafePointer<srtp_cipher_type_t> {
        switch crypto {
        case .stock: try libsrtpSymbol("srtp_aes_icm_128", as: srtp_cipher_type_t.self)
        case .nettle: swiftrtc_srtp_nettle_aes_icm_128().assumingMemoryBound(to: srtp_cipher_type_t.self)
        }
    }

    static func aesGcm(_ keyLength: Int, _ crypto: SrtpCrypto) throws -> UnsafePointer<srtp_cipher_type_t> {
        switch crypto {
        case .stock:
            try libsrtpSymbol(keyLength == 16 ? "srtp_aes_gcm_128" : "srtp_aes_gcm_256", as: srtp_cipher_type_t.self)
        case .nettle:
            (keyLength == 16 ? swiftrtc_srtp_nettle_aes_gcm_128() : swiftrtc_srtp_nettle_aes_gcm_256())
                .assumingMemoryBound(to: srtp_cipher_type_t.self)
        }
    }

    static func hmacSha1(_ crypto: SrtpCrypto) throws -> UnsafePointer<srtp_auth_type_t> {
        switch crypto {
        case .stock: try libsrtpSymbol("srtp_hmac", as: srtp_auth_type_t.self)
        case .nettle: swiftrtc_srtp_nettle_hmac_sha1().assumingMemoryBound(to: srtp_auth_type_t.self)
        }
    }
}
