// GLibString: turns C strings owned by GLib into Swift strings, freeing them when asked.
import CGStreamer

/// Conversions from GLib-allocated C strings.
enum GLibString {
    /// Copies `pointer` into a `String` and releases it with `g_free` (for transfer-full strings).
    static func take(_ pointer: UnsafeMutablePointer<gchar>?) -> String? {
        guard let pointer else { return nil }
        defer { g_free(pointer) }
        return String(cString: pointer)
    }

    /// Copies `pointer` into a `String` without releasing it (for transfer-none strings).
    static func borrow(_ pointer: UnsafePointer<gchar>?) -> String? {
        pointer.map { String(cString: $0) }
    }
}
