/// SRTP and SRTCP datagrams that arrive before this side's DTLS handshake has keyed SRTP. The
/// side that receives the other's last flight first (the DTLS server, on the client's
/// Finished) keys first and sends media at once; when its own last flight is lost, the peer
/// keys only after its retransmission timer, and the first frames, with the first keyframe,
/// would be lost to that round trip. They wait here instead and are unprotected once SRTP is
/// keyed: SRTP authenticates each, so nothing unauthenticated gets further than it would.
///
/// Bounded (``capacity`` datagrams; later ones are dropped and counted). The storage is
/// allocated on the first early datagram, once per transport, and freed when taken. Used only
/// on the transport thread.
struct EarlyDatagrams {
    /// Datagrams kept at most: two seconds of audio and 30 fps video at a call's start.
    static let capacity = 256
    /// The largest datagram kept.
    static let slotSize = 1500

    private var storage: UnsafeMutableRawBufferPointer?
    private var entries: UnsafeMutableBufferPointer<(length: Int, rtcp: Bool, arrival: Double)>?
    /// Datagrams kept now.
    private(set) var count = 0
    /// Datagrams that found the buffer full (or too big for a slot) and were dropped.
    private(set) var dropped = 0

    var isEmpty: Bool { count == 0 }

    /// Keeps a copy of `bytes` (SRTCP when `rtcp`) that arrived at `arrival`, or drops it when
    /// full.
    mutating func store(_ bytes: UnsafeRawBufferPointer, rtcp: Bool, arrival: Double) {
        guard count < Self.capacity, bytes.count <= Self.slotSize else {
            dropped += 1
            return
        }
        if storage == nil {
            storage = .allocate(byteCount: Self.capacity * Self.slotSize, alignment: 16)
            entries = .allocate(capacity: Self.capacity)
        }
        guard let storage, let entries else { return }
        UnsafeMutableRawBufferPointer(rebasing: storage[count * Self.slotSize..<count * Self.slotSize + bytes.count])
            .copyMemory(from: bytes)
        entries[count] = (bytes.count, rtcp, arrival)
        count += 1
    }

    /// Moves what is kept out into the value returned (this one is empty after, and keeps
    /// its drop count): what is handed on from there may come back here.
    mutating func take() -> EarlyDatagrams {
        var taken = EarlyDatagrams()
        swap(&taken.storage, &storage)
        swap(&taken.entries, &entries)
        swap(&taken.count, &count)
        return taken
    }

    /// Hands each kept datagram to `body` in arrival order, with its arrival time, then frees
    /// the storage.
    consuming func drain(_ body: (UnsafeRawBufferPointer, _ rtcp: Bool, _ arrival: Double) -> Void) {
        guard let storage, let entries else { return }
        for i in 0..<count {
            let start = i * Self.slotSize
            body(
                UnsafeRawBufferPointer(rebasing: storage[start..<start + entries[i].length]),
                entries[i].rtcp,
                entries[i].arrival
            )
        }
        storage.deallocate()
        entries.deallocate()
    }
}
