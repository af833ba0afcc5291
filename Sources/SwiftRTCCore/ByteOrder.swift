// Byte-order loads and stores on raw byte buffers (big-endian for the network, `le` for the
// little-endian file formats), with the bounds checked by the caller. Every parser checks the
// length it needs once, then reads with these; readers of `[UInt8]` go through
// `withUnsafeBytes` (no copy).

extension UnsafeRawBufferPointer {
    @inlinable
    package func u8(_ offset: Int) -> UInt8 { load(fromByteOffset: offset, as: UInt8.self) }

    @inlinable
    package func u16(_ offset: Int) -> UInt16 {
        UInt16(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }

    @inlinable
    package func u24(_ offset: Int) -> UInt32 {
        UInt32(u8(offset)) << 16 | UInt32(u8(offset + 1)) << 8 | UInt32(u8(offset + 2))
    }

    @inlinable
    package func u32(_ offset: Int) -> UInt32 {
        UInt32(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    @inlinable
    package func u64(_ offset: Int) -> UInt64 {
        UInt64(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    @inlinable
    package func le16(_ offset: Int) -> UInt16 {
        UInt16(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }

    @inlinable
    package func le32(_ offset: Int) -> UInt32 {
        UInt32(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    @inlinable
    package func le64(_ offset: Int) -> UInt64 {
        UInt64(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// The bytes `offset..<offset+count` as a buffer of their own (no copy).
    @inlinable
    package func slice(_ offset: Int, _ count: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: self[offset..<offset + count])
    }
}

extension UnsafeMutableRawBufferPointer {
    @inlinable
    package func put8(_ value: UInt8, at offset: Int) { storeBytes(of: value, toByteOffset: offset, as: UInt8.self) }

    @inlinable
    package func put16(_ value: UInt16, at offset: Int) {
        storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt16.self)
    }

    @inlinable
    package func put24(_ value: UInt32, at offset: Int) {
        put8(UInt8(truncatingIfNeeded: value >> 16), at: offset)
        put8(UInt8(truncatingIfNeeded: value >> 8), at: offset + 1)
        put8(UInt8(truncatingIfNeeded: value), at: offset + 2)
    }

    @inlinable
    package func put32(_ value: UInt32, at offset: Int) {
        storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt32.self)
    }

    @inlinable
    package func put64(_ value: UInt64, at offset: Int) {
        storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt64.self)
    }

    /// Copies `bytes` to `offset` (the caller checked the room).
    @inlinable
    package func put(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
        guard bytes.count > 0, let base = baseAddress, let source = bytes.baseAddress else { return }
        (base + offset).copyMemory(from: source, byteCount: bytes.count)
    }
}

/// Little-endian appenders, for the file writers.
extension Array where Element == UInt8 {
    package mutating func appendLE16(_ value: UInt16) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
    package mutating func appendLE32(_ value: UInt32) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
    package mutating func appendLE64(_ value: UInt64) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}
