// GStreamer: one-time library initialisation and questions about the installed plugins.
import CGStreamer

/// The GStreamer library as a whole: initialisation, installed elements and version.
public enum GStreamer {
    /// The outcome of the one call to `gst_init_check`; a `static let` runs it once, thread-safely.
    private static let initialization: Result<Void, GStreamerError> = {
        var error: UnsafeMutablePointer<GError>?
        if gst_init_check(nil, nil, &error) != 0 { return .success(()) }
        let message = error.map { String(cString: $0.pointee.message) } ?? "gst_init_check failed"
        if let error { g_error_free(error) }
        return .failure(GStreamerError(element: nil, message: "GStreamer could not be initialised: \(message)"))
    }()

    /// Initialises GStreamer. Safe to call from any thread, any number of times; only the first
    /// call does work. Every type in this module calls it for you.
    public static func initialize() throws {
        try initialization.get()
    }

    /// Whether an element factory called `factory` (for example `"x264enc"`) is installed.
    public static func hasElement(_ factory: String) -> Bool {
        guard (try? initialize()) != nil, let found = gst_element_factory_find(factory) else { return false }
        gst_object_unref(UnsafeMutableRawPointer(found))
        return true
    }

    /// The version of the GStreamer library in use, for example `"GStreamer 1.22.0"`.
    public static var version: String {
        try? initialize()
        return GLibString.take(gst_version_string()) ?? "GStreamer (unknown version)"
    }
}
