import SwiftRTCCore

/// Writes an RTP packet into a caller-provided buffer, in wire order: fixed header, CSRCs,
/// header extension elements, payload, padding. Nothing is allocated.
///
/// ```swift
/// var writer = try RTPPacketWriter(into: buffer, header: header)
/// try writer.appendExtension(TransportSequenceNumber(value: 7), id: 3)
/// try writer.appendPayload(payload)
/// let length = try writer.finish()
/// ```
public struct RTPPacketWriter {
    /// Which RFC 8285 form the extension block uses.
    public enum ExtensionForm: Sendable {
        /// IDs 1-14, elements of 1-16 bytes (profile 0xBEDE).
        case oneByte
        /// IDs 1-255, elements of 0-255 bytes (profile 0x1000).
        case twoByte
    }

    @usableFromInline let buffer: UnsafeMutableRawBufferPointer
    @usableFromInline let form: ExtensionForm
    @usableFromInline var written: Int
    /// Bytes written so far.
    @inlinable public var count: Int { written }
    @usableFromInline var extensionStart = -1
    @usableFromInline var inPayload = false
    @usableFromInline var payloadStart = 0

    /// The header's length (fixed header, CSRCs, extension block padded to whole words): where
    /// the payload starts, as it will be once the first payload byte is written.
    @inlinable public var headerLength: Int {
        if inPayload { return payloadStart }
        guard extensionStart >= 0 else { return count }
        return count + (4 - (count - extensionStart) % 4) % 4
    }

    /// Writes the fixed header into `buffer`.
    @inlinable
    public init(
        into buffer: UnsafeMutableRawBufferPointer,
        header: RTPHeader,
        extensionForm: ExtensionForm = .oneByte
    ) throws(RTPError) {
        guard buffer.count >= 12 else { throw .bufferTooSmall(needed: 12, available: buffer.count) }
        guard header.payloadType < 128 else {
            throw .invalidField(what: "RTP payload type", offset: 1, value: Int(header.payloadType))
        }
        self.buffer = buffer
        form = extensionForm
        buffer.put8(0x80, at: 0)
        buffer.put8((header.marker ? 0x80 : 0) | header.payloadType, at: 1)
        buffer.put16(header.sequenceNumber, at: 2)
        buffer.put32(header.timestamp, at: 4)
        buffer.put32(header.ssrc, at: 8)
        written = 12
    }

    @inlinable
    mutating func reserve(_ needed: Int) throws(RTPError) {
        guard count + needed <= buffer.count else {
            throw .bufferTooSmall(needed: count + needed, available: buffer.count)
        }
    }

    /// Appends a CSRC (before any extension or payload; at most 15).
    @inlinable
    public mutating func appendCSRC(_ csrc: UInt32) throws(RTPError) {
        let csrcs = Int(buffer.load(fromByteOffset: 0, as: UInt8.self) & 0x0F)
        guard extensionStart < 0, !inPayload, csrcs < 15 else {
            throw .invalidField(what: "RTP CSRC count (CSRCs go first, at most 15)", offset: 0, value: csrcs + 1)
        }
        try reserve(4)
        buffer.put32(csrc, at: count)
        buffer.put8(0x80 | UInt8(csrcs + 1), at: 0)
        written += 4
    }

    /// Appends a header extension element with raw data; returns where its data starts in the
    /// packet.
    @inlinable
    @discardableResult
    public mutating func appendExtension(id: UInt8, data: UnsafeRawBufferPointer) throws(RTPError) -> Int {
        try appendExtension(id: id, length: data.count) { $0.put(data, at: 0) }
    }

    /// Appends a typed header extension element; returns where its data starts in the packet
    /// (to rewrite it in place later, as a transport-wide sequence number is at send time).
    @inlinable
    @discardableResult
    public mutating func appendExtension<E: RTPHeaderExtension>(_ value: E, id: UInt8) throws(RTPError) -> Int {
        try appendExtension(id: id, length: value.encodedLength) { value.encode(into: $0) }
    }

    @inlinable
    mutating func appendExtension(
        id: UInt8,
        length: Int,
        _ body: (UnsafeMutableRawBufferPointer) -> Void
    ) throws(RTPError) -> Int {
        guard !inPayload else {
            throw .invalidField(what: "RTP extension after payload", offset: count, value: Int(id))
        }
        switch form {
        case .oneByte:
            guard (1...14).contains(id), (1...16).contains(length) else {
                throw .invalidField(
                    what: "RTP one-byte extension id/length",
                    offset: count,
                    value: Int(id) << 8 | length
                )
            }
        case .twoByte:
            guard id >= 1, length <= 255 else {
                throw .invalidField(
                    what: "RTP two-byte extension id/length",
                    offset: count,
                    value: Int(id) << 8 | length
                )
            }
        }
        if extensionStart < 0 {
            try reserve(4)
            extensionStart = count
            buffer.put16(
                form == .oneByte ? RTPHeaderExtensions.oneByteProfile : RTPHeaderExtensions.twoByteProfile,
                at: count
            )
            buffer.put16(0, at: count + 2)
            buffer.put8(buffer.load(fromByteOffset: 0, as: UInt8.self) | 0x10, at: 0)
            written += 4
        }
        let header = form == .oneByte ? 1 : 2
        try reserve(header + length)
        if form == .oneByte {
            buffer.put8(id << 4 | UInt8(length - 1), at: count)
        } else {
            buffer.put8(id, at: count)
            buffer.put8(UInt8(length), at: count + 1)
        }
        let start = count + header
        body(UnsafeMutableRawBufferPointer(rebasing: buffer[start..<start + length]))
        written += header + length
        return start
    }

    /// Pads the extension block to whole words and writes its length.
    @inlinable
    mutating func closeHeader() throws(RTPError) {
        guard !inPayload else { return }
        inPayload = true
        payloadStart = count
        guard extensionStart >= 0 else { return }
        let pad = (4 - (count - extensionStart) % 4) % 4
        try reserve(pad)
        for i in 0..<pad { buffer.put8(0, at: count + i) }
        written += pad
        payloadStart = count
        buffer.put16(UInt16((count - extensionStart - 4) / 4), at: extensionStart + 2)
    }

    /// Appends payload bytes (closing the header on the first call).
    @inlinable
    public mutating func appendPayload(_ bytes: UnsafeRawBufferPointer) throws(RTPError) {
        try closeHeader()
        try reserve(bytes.count)
        buffer.put(bytes, at: count)
        written += bytes.count
    }

    /// The free space after what is written, to build payload in place; then
    /// ``advancePayload(by:)`` with the bytes used.
    @inlinable
    public mutating func payloadSpace() throws(RTPError) -> UnsafeMutableRawBufferPointer {
        try closeHeader()
        return UnsafeMutableRawBufferPointer(rebasing: buffer[count...])
    }

    /// Counts `length` bytes written into ``payloadSpace()``.
    @inlinable
    public mutating func advancePayload(by length: Int) throws(RTPError) {
        try closeHeader()
        try reserve(length)
        written += length
    }

    /// Adds `padding` bytes of padding (0 or 1-255; the last byte holds the count) and returns
    /// the packet's length.
    @inlinable
    public mutating func finish(padding: Int = 0) throws(RTPError) -> Int {
        try closeHeader()
        guard (0...255).contains(padding) else {
            throw .invalidField(what: "RTP padding count", offset: count, value: padding)
        }
        if padding > 0 {
            try reserve(padding)
            for i in 0..<padding - 1 { buffer.put8(0, at: count + i) }
            buffer.put8(UInt8(padding), at: count + padding - 1)
            buffer.put8(buffer.load(fromByteOffset: 0, as: UInt8.self) | 0x20, at: 0)
            written += padding
        }
        return count
    }
}
