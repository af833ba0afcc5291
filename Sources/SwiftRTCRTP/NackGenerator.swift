/// Decides which missing packets to ask for again with generic NACKs (RFC 4585): it notes
/// holes in the received sequence numbers, asks for each at most every round-trip time, gives
/// up after ``maximumRetries`` requests, when the packet is ``maximumAge`` sequence numbers
/// old or was found missing more than ``maximumTime`` seconds ago, and keeps at most
/// ``maximumMissing`` entries.
public struct NackGenerator: Sendable {
    struct Missing: Sendable {
        var retries = 0
        var lastRequest: Double?
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
    var missing: [Int64: Missing] = [:]
    /// Packets given up on (too many requests, too old, or over the list size).
    public private(set) var abandoned = 0
    /// Missing packets that came after all (recovered by RTX or late).
    public private(set) var recovered = 0

    /// Creates the value from its fields.
    public init(maximumRetries: Int = 10, maximumAge: Int = 1000, maximumMissing: Int = 500, maximumTime: Double = .infinity) {
        self.maximumRetries = maximumRetries
        self.maximumTime = maximumTime
        self.maximumAge = Int64(maximumAge)
        self.maximumMissing = maximumMissing
        missing.reserveCapacity(maximumMissing)
    }

    /// Sequence numbers currently missing.
    public var missingCount: Int { missing.count }

    /// Notes the arrival of `sequenceNumber` (original or recovered by RTX) at `now` seconds.
    public mutating func received(_ sequenceNumber: UInt16, at now: Double = 0) {
        let sequence = unwrapper.unwrap(sequenceNumber)
        guard let last = highest else {
            highest = sequence
            return
        }
        if sequence > last {
            var hole = max(last + 1, sequence - maximumAge)
            abandoned += Int(hole - last - 1)
            while hole < sequence {
                if missing.count >= maximumMissing { dropOldest() }
                missing[hole] = Missing(detected: now)
                hole += 1
            }
            highest = sequence
            for (key, _) in missing where key < sequence - maximumAge {
                missing[key] = nil
                abandoned += 1
            }
        } else if missing.removeValue(forKey: sequence) != nil {
            recovered += 1
        }
    }

    mutating func dropOldest() {
        if let oldest = missing.keys.min() {
            missing[oldest] = nil
            abandoned += 1
        }
    }

    /// The sequence numbers to NACK now (sorted): those never asked for, and those asked for
    /// at least `retryInterval` seconds ago (the RTT, typically).
    public mutating func sequenceNumbersToRequest(now: Double, retryInterval: Double) -> [UInt16] {
        var result: [Int64] = []
        for (sequence, var entry) in missing {
            let tooOld = now - entry.detected > maximumTime
            if !tooOld, let last = entry.lastRequest, now - last < retryInterval { continue }
            // The last request had its round trip to be answered: now give up.
            if tooOld || entry.retries >= maximumRetries {
                missing[sequence] = nil
                abandoned += 1
                continue
            }
            entry.retries += 1
            entry.lastRequest = now
            missing[sequence] = entry
            result.append(sequence)
        }
        return result.sorted().map { UInt16(truncatingIfNeeded: $0) }
    }
}
