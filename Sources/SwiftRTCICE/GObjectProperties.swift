import CNice

/// A `GSource` owned by the agent, touched only under its lock and on its transport thread.
struct SourceHandle: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<GSource>
}

/// Sets GObject properties by name (g_object_set is variadic and does not import).
struct GObjectProperties {
    let object: UnsafeMutablePointer<GObject>

    init(_ pointer: OpaquePointer) {
        object = UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GObject.self)
    }

    private func withValue(_ name: String, _ body: (inout GValue) -> Void) {
        // G_OBJECT_GET_CLASS(object): the class pointer is the first field of every instance.
        let instanceClass = object.pointee.g_type_instance.g_class!
        let objectClass = UnsafeMutableRawPointer(instanceClass).assumingMemoryBound(to: GObjectClass.self)
        guard let spec = g_object_class_find_property(objectClass, name) else {
            preconditionFailure("libnice has no property '\(name)'")
        }
        var value = GValue()
        g_value_init(&value, spec.pointee.value_type)
        body(&value)
        g_object_set_property(object, name, &value)
        g_value_unset(&value)
    }

    func set(_ name: String, _ flag: Bool) { withValue(name) { g_value_set_boolean(&$0, flag ? 1 : 0) } }
    func set(_ name: String, _ number: UInt32) { withValue(name) { g_value_set_uint(&$0, number) } }
    func set(_ name: String, _ text: String) { withValue(name) { g_value_set_string(&$0, text) } }
}
