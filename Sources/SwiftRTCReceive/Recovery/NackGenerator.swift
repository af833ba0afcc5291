import SwiftRTCCore
import SwiftRTCRTP

/// Decides which missing packets to ask for again with generic NACKs (RFC 4585): it notes
/// holes in the received sequence numbers, asks for each at most every round-trip time, gives
/// up after ``maximumRetries`` requests, when the packet is ``maximumAge`` sequence numbers
/// old or was found missing more than ``maximumTime`` seconds ago, and keeps at most
/// ``maximumMissing`` entries.
///
/// The work per received packet never grows with what the peer did before: the holes are
/// kept in sequence order in a ring allocated once (a new hole goes at the end, the oldest
/// leaves at the front, a late packet is found by binary search), and a jump that leaves
/// more holes than the list holds restarts the generator (the holes known so far are given
/// up and the jump counted in ``jumpsRestarted``) instead of writing every hole, as
/// libwebrtc's NACK module clears its list and asks for a keyframe.
public struct NackGenerator: Sendable {
    struct Missing: Sendable {
        /// The extended sequence number.
        var sequence: Int64
        /// False once the packet came or was given up on (the entry stays, so that the ring
        /// stays sorted, until it reaches the front).
        var isMissing = true
        var retries = 0
        /// When it was last asked for (-infinity: never).
        var lastRequest = -Double.infinity
        /// When the hole was noticed.
        var detected: Double
    }

    /// The limit given at creation.
    public let maximumRetries: Int
    /// The limit given at creation.
    public let maximumAge: Int64
    /// The limit given at creation.
    public let maximumMissing: Int
    /// The limit given at creation, in seconds.
    public let maximumTime: Double
    var unwrapper = SequenceUnwrapper()
    var highest: Int64?
    /// The holes in ascending sequence order: `ring[(head + i) % ring.count]` for i in
    /// 0..<used, missing or not (``Missing/isMissing``).
    var ring: [Missing]
    var head = 0
    var used = 0
    /// Entries still missing.
    var live = 0
    /// Packets given up on (too many requests, too old, or over the list size).
    public private(set) var abandoned = 0
    /// Missing packets that came after all (recovered by RTX or late).
    public private(set) var recovered = 0
    /// Sequence jumps that left more holes than ``maximumMissing`` and started the list over.
    public private(set) var jumpsRestarted = 0
    /// Entries looked at, in all (the work bound, for tests).
    var visited = 0

    /// Creates the value from its fields; the defaults are ``RemoteInputLimits``'s.
    public init(
        maximumRetries: Int = 10,
        maximumAge: Int = RemoteInputLimits.maxNackAge,
        maximumMissing: Int = RemoteInputLimits.maxNackMissingPackets,
        maximumTime: Double = .infinity
    ) {
        self.maximumRetries = maximumRetries
        self.maximumTime = maximumTime
        self.maximumAge = Int64(max(1, maximumAge))
        self.maximumMissing = max(1, maximumMissing)
        ring = Array(repeating: Missing(sequence: 0, isMissing: false, detected: 0), count: self.maximumMissing)
    }

    /// Sequence numbers currently missing.
    public var missingCount: Int { live }

    /// Notes the arrival of `sequenceNumber` (original or recovered by RTX) at `now` seconds.
    public mutating func received(_ sequenceNumber: UInt16, at now: Double = 0) {
        let sequence = unwrapper.unwrap(sequenceNumber)
        guard let last = highest else {
            highest = sequence
            return
        }
        if sequence > last {
            highest = sequence
            let holes = sequence - last - 1
            if holes > Int64(maximumMissing) {
                restart()
                return
            }
            // Holes too old to ask for leave at the front.
            let oldest = sequence - maximumAge
            while used > 0, ring[head].sequence < oldest { removeFront() }
            var hole = max(last + 1, oldest)
            abandoned += Int(hole - last - 1)
            while hole < sequence {
                append(Missing(sequence: hole, detected: now))
                hole += 1
            }
        } else if sequence < last, let i = find(sequence), ring[i].isMissing {
            ring[i].isMissing = false
            live -= 1
            recovered += 1
            trimFront()
        }
    }

    /// Gives up every hole known and starts over from the newest packet.
    mutating func restart() {
        abandoned += live
        jumpsRestarted += 1
        head = 0
        used = 0
        live = 0
        visited += 1
    }

    /// Adds a hole at the end (newer than every entry), dropping the oldest when full.
    mutating func append(_ entry: Missing) {
        if used == ring.count { removeFront() }
        ring[(head + used) % ring.count] = entry
        used += 1
        live += 1
        visited += 1
    }

    /// Removes the front entry (given up on if still missing), then entries no longer missing.
    mutating func removeFront() {
        if ring[head].isMissing {
            live -= 1
            abandoned += 1
        }
        head = (head + 1) % ring.count
        used -= 1
        visited += 1
        trimFront()
    }

    /// Removes the entries at the front that are no longer missing.
    mutating func trimFront() {
        while used > 0, !ring[head].isMissing {
            head = (head + 1) % ring.count
            used -= 1
            visited += 1
        }
    }

    /// The ring index of the entry for `sequence`, by binary search.
    mutating func find(_ sequence: Int64) -> Int? {
        var low = 0, high = used
        while low < high {
            visited += 1
            let middle = (low + high) / 2
            let value = ring[(head + middle) % ring.count].sequence
            if value == sequence { return (head + middle) % ring.count }
            if value < sequence { low = middle + 1 } else { high = middle }
        }
        return nil
    }

    /// The sequence numbers to NACK now (sorted): those never asked for, and those asked for
    /// at least `retryInterval` seconds ago (the RTT, typically).
    public mutating func sequenceNumbersToRequest(now: Double, retryInterval: Double) -> [UInt16] {
        var result: [UInt16] = []
        for offset in 0..<used {
            let i = (head + offset) % ring.count
            guard ring[i].isMissing else { continue }
            let tooOld = now - ring[i].detected > maximumTime
            if !tooOld, now - ring[i].lastRequest < retryInterval { continue }
            // The last request had its round trip to be answered: now give up.
            if tooOld || ring[i].retries >= maximumRetries {
                ring[i].isMissing = false
                live -= 1
                abandoned += 1
                continue
            }
            ring[i].retries += 1
            ring[i].lastRequest = now
            result.append(UInt16(truncatingIfNeeded: ring[i].sequence))
        }
        trimFront()
        return result
    }
}
