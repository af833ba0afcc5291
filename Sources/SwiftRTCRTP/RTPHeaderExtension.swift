/// A typed RTP header extension element: read from and written to its data bytes.
public protocol RTPHeaderExtension {
    /// The URI that `a=extmap` names it by.
    static var uri: String { get }
    /// Reads the element's data (without the element header).
    init(parsing data: UnsafeRawBufferPointer) throws(RTPError)
    /// How many data bytes ``encode(into:)`` writes.
    var encodedLength: Int { get }
    /// Writes the data into a buffer of exactly ``encodedLength`` bytes.
    func encode(into buffer: UnsafeMutableRawBufferPointer)
}

extension RTPHeaderExtension {
    @inlinable
    static func require(_ data: UnsafeRawBufferPointer, _ length: Int, _ what: StaticString) throws(RTPError) {
        guard data.count >= length else {
            throw .truncated(what: what, offset: 0, needed: length, available: data.count)
        }
    }
}
