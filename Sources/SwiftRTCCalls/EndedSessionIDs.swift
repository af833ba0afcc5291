/// The ids of the sessions that ended, most recent ``limit``: messages for them are dropped
/// (a late candidate, a repeated hang-up). A long-running bot takes calls for days: the oldest
/// ids are forgotten first, so memory stays flat; a message for a session that old is as
/// unknown as any other, and is dropped the same way.
struct EndedSessionIDs {
    /// The most ids remembered.
    static let limit = 4_096

    private var ids: Set<String> = []
    private var order: [String] = []
    private var next = 0

    func contains(_ id: String) -> Bool { ids.contains(id) }

    mutating func insert(_ id: String) {
        guard ids.insert(id).inserted else { return }
        if order.count < Self.limit {
            order.append(id)
        } else {
            ids.remove(order[next])
            order[next] = id
            next = (next + 1) % Self.limit
        }
    }

    var count: Int { ids.count }
}
