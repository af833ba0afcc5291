/// Objects visited on the data plane without retaining each one: the array owns them (one
/// reference each), and ``forEach(_:)`` hands each to its body by a guaranteed reference.
///
/// A retain and a release per object and visit are cheap, except for objects that something
/// references weakly: Swift then takes the slow path through the object's side table. The
/// feedback ticker visits every transport and receiver of the process 50 to 100 times a
/// second, and that slow path was half of its time.
struct UnretainedArray<Element: AnyObject> {
    private(set) var objects: [Element]
    private var references: [Unmanaged<Element>]

    init(_ objects: [Element] = []) {
        self.objects = objects
        references = objects.map { Unmanaged.passUnretained($0) }
    }

    var isEmpty: Bool { objects.isEmpty }

    mutating func append(_ object: Element) {
        objects.append(object)
        references.append(Unmanaged.passUnretained(object))
    }

    /// Calls `body` with each object, which stays alive as long as this array does.
    func forEach(_ body: (Element) throws -> Void) rethrows {
        try withExtendedLifetime(objects) {
            for reference in references { try reference._withUnsafeGuaranteedRef(body) }
        }
    }
}

extension UnretainedArray: @unchecked Sendable where Element: Sendable {}
