// GStreamerError: an error reported by GStreamer, with the element that raised it.
import CGStreamer

/// An error from GStreamer: a pipeline that did not parse, an element that failed, a stalled
/// pipeline. Carries the element that failed so the message says where to look.
public struct GStreamerError: Error, Sendable, CustomStringConvertible {
    /// The element that failed: the source of the bus message, or a factory name that is missing.
    public var element: String?
    /// What went wrong, in GStreamer's words (the `GError` message).
    public var message: String
    /// GStreamer's debug string: source location and details, when there is one.
    public var debug: String?

    /// Creates an error.
    public init(element: String?, message: String, debug: String? = nil) {
        self.element = element
        self.message = message
        self.debug = debug
    }

    /// Creates an error from an `ERROR` (or `WARNING`) bus message.
    init(message bus: UnsafeMutablePointer<GstMessage>) {
        var error: UnsafeMutablePointer<GError>?
        var debug: UnsafeMutablePointer<gchar>?
        if cg_message_type(bus) == GST_MESSAGE_WARNING {
            gst_message_parse_warning(bus, &error, &debug)
        } else {
            gst_message_parse_error(bus, &error, &debug)
        }
        self.element = GLibString.borrow(cg_message_source_name(bus))
        self.message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
        self.debug = GLibString.take(debug)
        if let error { g_error_free(error) }
    }

    /// The reason part of ``debug``: GStreamer prefixes it with `file(line): function (): /path:`
    /// on a first line, which says little on a terminal.
    var reason: String? {
        guard let debug, !debug.isEmpty else { return nil }
        if let newline = debug.firstIndex(of: "\n") {
            let rest = debug[debug.index(after: newline)...].trimmingCharacters(inSet: " \n")
            if !rest.isEmpty { return rest }
        }
        return debug
    }

    /// For example: `GStreamer element 'filesink0': Could not open file "/nope/x.mp4" for
    /// writing. (reason: system error: No such file or directory)`.
    public var description: String {
        var text = element.map { "GStreamer element '\($0)': " } ?? "GStreamer: "
        text += message
        if let reason, reason != message { text += " (reason: \(reason))" }
        return text
    }
}

extension Substring {
    /// The substring without leading and trailing characters from `set`.
    fileprivate func trimmingCharacters(inSet set: String) -> String {
        var slice = self[...]
        while let first = slice.first, set.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, set.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}
