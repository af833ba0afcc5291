import CNice

/// The libnice and GLib builds that SwiftRTC's ICE runs on.
public enum IceLibrary {
    /// libnice's version, e.g. `libnice 0.1.21`, and the GLib it runs on.
    public static var version: String {
        "libnice \(NICE_VERSION_MAJOR).\(NICE_VERSION_MINOR).\(NICE_VERSION_MICRO) "
            + "(GLib \(glib_major_version).\(glib_minor_version).\(glib_micro_version))"
    }
}
