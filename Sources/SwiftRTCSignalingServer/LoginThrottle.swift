import Synchronization

/// Budgets for password logins (a users file), in front of the password checks: someone
/// guessing passwords gets few guesses, and honest users keep logging in meanwhile.
///
/// - **Per address** (an IPv4 address or an IPv6 /64): after ``freeFailures`` failed logins,
///   each further failure makes the address wait before its next try, 1 s doubling up to
///   ``maxBackOff``. A successful login clears it; so does ``forgetAfter`` without a failure.
/// - **Per user**: the password checks of one account are budgeted, at most
///   ``guessesPerMinute`` a minute. Addresses that failed or were refused before (suspects)
///   draw on most of it; addresses never seen failing on a share of their own, so that an
///   honest user from elsewhere gets in while one account is under attack.
///
/// A refused try gets a `429` with the wait and its connection is closed; it is not checked,
/// so it costs no CPU and tells nothing about the password. What stays the operator's: a
/// reverse proxy's limits, and fail2ban on the server's `refused` log lines for attackers
/// with thousands of addresses.
final class LoginThrottle: Sendable {
    /// Failed logins an address may have before it has to wait.
    static let freeFailures = 3
    /// The longest an address waits between tries.
    static let maxBackOff = Duration.seconds(60)
    /// How long an address's failures are remembered after its last one.
    static let forgetAfter = Duration.seconds(600)
    /// Password checks of one account in any minute, at most.
    static let guessesPerMinute = 60
    /// Addresses remembered at once; when full, those quiet for ``forgetAfter`` are forgotten,
    /// and an address that finds no room is not remembered (counted in ``addressesNotTracked``).
    static let maxAddresses = 10_000

    /// What to do with a login.
    enum Decision: Equatable {
        /// Check the password; `suspect` when the address failed or was refused before.
        case check(suspect: Bool)
        /// Refuse it without checking: the address or the account must wait this long.
        case wait(Duration)
    }

    private struct AddressRecord {
        var failures = 0
        var lastSeen: ContinuousClock.Instant
        var blockedUntil: ContinuousClock.Instant?
    }

    private struct UserBudget {
        /// Checks for addresses never seen failing: 10 a minute, 3 at once.
        var clean: MessageRateLimiter
        /// Checks for suspect addresses: 40 a minute, 5 at once (with `clean`, at most 58 in any minute).
        var suspect: MessageRateLimiter

        init(now: ContinuousClock.Instant) {
            clean = MessageRateLimiter(perSecond: 10.0 / 60, burst: 3, now: now)
            suspect = MessageRateLimiter(perSecond: 40.0 / 60, burst: 5, now: now)
        }
    }

    private struct State {
        var addresses: [String: AddressRecord] = [:]
        var users: [String: UserBudget] = [:]
        var addressesNotTracked = 0
    }

    private let state = Mutex(State())

    init() {}

    /// Whether a login for `user` from `address` may be checked now. Users that do not exist
    /// (`exists` false) share one budget, so that made-up names cannot grow the table.
    func admit(address: String, user: String, exists: Bool, now: ContinuousClock.Instant = .now) -> Decision {
        let account = exists ? user : ""
        return state.withLock { state in
            if let record = state.addresses[address], now - record.lastSeen >= Self.forgetAfter {
                state.addresses[address] = nil
            }
            if let blockedUntil = state.addresses[address]?.blockedUntil, blockedUntil > now {
                state.addresses[address]?.lastSeen = now
                return .wait(blockedUntil - now)
            }
            let suspect = state.addresses[address] != nil
            var budget = state.users[account] ?? UserBudget(now: now)
            let allowed = suspect ? budget.suspect.allow(now: now) : budget.clean.allow(now: now)
            state.users[account] = budget
            guard allowed else {
                // Refused once, a suspect from now on: it no longer draws on the clean share.
                Self.remember(address, in: &state, now: now)
                return .wait(.seconds(suspect ? 60.0 / 40 : 60.0 / 10))
            }
            return .check(suspect: suspect)
        }
    }

    /// The password check of a login from `address` failed.
    func failed(address: String, now: ContinuousClock.Instant = .now) {
        state.withLock { state in
            Self.remember(address, in: &state, now: now)
            guard var record = state.addresses[address] else { return }
            record.failures += 1
            let over = record.failures - Self.freeFailures
            if over > 0 {
                let backOff = Duration.seconds(1 << min(over - 1, 16))
                record.blockedUntil = now + min(backOff, Self.maxBackOff)
            }
            state.addresses[address] = record
        }
    }

    /// A login from `address` succeeded: it starts afresh.
    func succeeded(address: String) {
        _ = state.withLock { $0.addresses.removeValue(forKey: address) }
    }

    /// Addresses that could not be remembered because ``maxAddresses`` were.
    var addressesNotTracked: Int { state.withLock { $0.addressesNotTracked } }

    private static func remember(_ address: String, in state: inout State, now: ContinuousClock.Instant) {
        if state.addresses[address] != nil {
            state.addresses[address]?.lastSeen = now
            return
        }
        if state.addresses.count >= maxAddresses {
            state.addresses = state.addresses.filter { now - $0.value.lastSeen < forgetAfter }
        }
        guard state.addresses.count < maxAddresses else {
            state.addressesNotTracked += 1
            return
        }
        state.addresses[address] = AddressRecord(lastSeen: now)
    }
}
