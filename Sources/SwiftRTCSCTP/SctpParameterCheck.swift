/// The parameter lists of a peer's SCTP packet, checked before usrsctp sees them: usrsctp
/// 0.9.5 loops forever on a parameter whose length is shorter than its own header (found by
/// `SctpFuzzer`: an INIT with a zero-length parameter hung `usrsctp_conninput` in
/// `sctp_send_initiate_ack`, the thread and the association's locks with it).
///
/// A packet (RFC 9260 §3) is a 12-byte common header and chunks; a chunk, and each parameter
/// or error cause inside it, is a type-length-value with 4-byte padding between them:
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |   Chunk Type  | Chunk  Flags  |         Chunk Length          |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |          (fixed fields of the chunk type, if any)             |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |        Parameter Type         |       Parameter Length        |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     \                 Parameter Value (and padding)                 \
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///
/// Chunks that hold such lists: INIT and INIT ACK (after 16 bytes of fixed fields), ABORT and
/// ERROR (error causes), RE-CONFIG (RFC 6525), ASCONF and ASCONF-ACK (RFC 5061, after a
/// 4-byte serial number). Every parameter of those lists must be at least 4 bytes long and
/// end inside its chunk; other chunks are left to usrsctp.
enum SctpParameterCheck {
    /// Where the parameter list starts in a chunk of `type` (from the chunk's first byte),
    /// or nil for a chunk without one.
    static func parametersOffset(chunkType type: UInt8) -> Int? {
        switch type {
        case 1, 2: 20  // INIT, INIT ACK
        case 6, 9, 0x82: 4  // ABORT, ERROR, RE-CONFIG
        case 0xC1, 0x80: 8  // ASCONF, ASCONF-ACK
        default: nil
        }
    }

    /// Whether every parameter list in `packet` is well formed (a packet too short to hold a
    /// chunk, or a chunk that runs past the packet, is usrsctp's to drop).
    static func isWellFormed(_ packet: UnsafeRawBufferPointer) -> Bool {
        var chunk = 12
        while chunk + 4 <= packet.count {
            let length = Int(packet[chunk + 2]) << 8 | Int(packet[chunk + 3])
            guard length >= 4, chunk + length <= packet.count else { return true }
            if let start = parametersOffset(chunkType: packet[chunk]),
                !parametersAreWellFormed(packet, from: chunk + start, to: chunk + length)
            {
                return false
            }
            chunk += (length + 3) & ~3
        }
        return true
    }

    private static func parametersAreWellFormed(_ packet: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Bool
    {
        var parameter = start
        while parameter + 4 <= end {
            let length = Int(packet[parameter + 2]) << 8 | Int(packet[parameter + 3])
            guard length >= 4, parameter + length <= end else { return false }
            parameter += (length + 3) & ~3
        }
        return true
    }
}
