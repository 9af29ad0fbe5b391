// Pipeline: a parsed gst-launch pipeline whose bus becomes thrown errors and an end-of-stream wait.
import CGStreamer
import Synchronization

/// A GStreamer pipeline parsed from a `gst-launch-1.0` style description.
///
/// The pipeline's bus is read on demand (there is no main loop): ``checkForErrors()`` and
/// ``waitForEndOfStream(timeout:)`` pop its messages. An error is sticky — a GStreamer pipeline
/// does not recover from one — so once reported, every later check throws it again.
/// Methods may be called from any thread.
public final class Pipeline: @unchecked Sendable {
    /// The description the pipeline was parsed from.
    public let description: String

    /// The top-level element (a `GstPipeline`, or a lone element for a one-element description).
    let element: UnsafeMutablePointer<GstElement>
    private let bus: UnsafeMutablePointer<GstBus>
    private let state = Mutex(BusState())

    /// What the bus has told us so far.
    private struct BusState {
        var error: GStreamerError?
        var reachedEndOfStream = false
        var warnings: [GStreamerError] = []
    }

    /// `text` as a double-quoted value for a pipeline description (`location=…`): backslashes
    /// and double quotes escaped, so any path survives gst-launch parsing. The one quoting
    /// helper: every description built from a user's path goes through it.
    public static func quoted(_ text: String) -> String {
        var out = "\""
        for c in text {
            if c == "\\" || c == "\"" { out.append("\\") }
            out.append(c)
        }
        return out + "\""
    }

    /// Parses `description` (for example `"videotestsrc ! appsink name=sink"`).
    ///
    /// - Throws: ``GStreamerError`` when the description does not parse; for a missing element
    ///   its ``GStreamerError/element`` is the factory name (`no element "x264encc"`).
    public init(_ description: String) throws {
        try GStreamer.initialize()
        self.description = description
        let context = gst_parse_context_new()
        defer { gst_parse_context_free(context) }
        var error: UnsafeMutablePointer<GError>?
        let parsed = gst_parse_launch_full(description, context, GST_PARSE_FLAG_FATAL_ERRORS, &error)
        if parsed == nil || error != nil {
            let message = error.map { String(cString: $0.pointee.message) } ?? "could not parse the pipeline"
            if let error { g_error_free(error) }
            if let parsed { gst_object_unref(parsed) }
            var missing: String?
            if let names = gst_parse_context_get_missing_elements(context) {
                missing = names.pointee.map { String(cString: $0) }
                g_strfreev(names)
            }
            throw GStreamerError(element: missing, message: message, debug: "while parsing: \(description)")
        }
        self.element = parsed!
        _ = gst_object_ref_sink(element)
        self.bus = gst_element_get_bus(element)
    }

    deinit {
        gst_element_set_state(element, GST_STATE_NULL)
        gst_object_unref(bus)
        gst_object_unref(element)
    }

    /// How many references the top-level element has (1 while only this object owns it).
    var elementReferenceCount: UInt32 { UInt32(element.pointee.object.object.ref_count) }

    /// The pipeline's own name, for messages (`pipeline0`).
    var name: String { GLibString.borrow(cg_element_name(element)) ?? "pipeline" }

    /// Warnings the bus has reported so far (at most the first 32).
    public var warnings: [GStreamerError] { state.withLock { $0.warnings } }

    /// Sets the pipeline to `PLAYING`. Data flows from here on (a non-live pipeline finishes the
    /// change once it has prerolled).
    ///
    /// - Throws: the error the failing element posted when the state change fails (for example
    ///   a `filesink` that cannot open its file), or an earlier error on the bus.
    public func play() throws {
        let result = gst_element_set_state(element, GST_STATE_PLAYING)
        if result == GST_STATE_CHANGE_FAILURE {
            // The failing element posts its error before the state change returns; allow a
            // moment in case it came from another thread.
            _ = pollBus(until: ContinuousClock.now + .seconds(1), stopWhen: { $0.error != nil })
            stop()
            let fallback = GStreamerError(
                element: name, message: "the pipeline could not be set to PLAYING",
                debug: description)
            throw state.withLock { s in
                if s.error == nil { s.error = fallback }
                return s.error!
            }
        }
        try checkForErrors()
    }

    /// Sets the pipeline to `NULL`, releasing devices and files. Safe to call more than once.
    /// Does not finalise files: send end-of-stream and wait for it first.
    public func stop() {
        gst_element_set_state(element, GST_STATE_NULL)
    }

    /// Sends end-of-stream into the pipeline (to every source). Appsrc pipelines should end
    /// with ``AppSrcWriter/endOfStream()`` instead, which keeps the buffers still queued.
    public func sendEndOfStream() {
        gst_element_send_event(element, gst_event_new_eos())
    }

    /// Waits until the pipeline posts end-of-stream (all sinks are done) or an error.
    ///
    /// - Returns: `true` on end-of-stream (also when it was seen earlier), `false` on timeout.
    /// - Throws: the pipeline's error, if it reported one.
    public func waitForEndOfStream(timeout seconds: Double) throws -> Bool {
        try waitForEndOfStream(timeout: seconds, ignoringErrors: false)
    }

    /// ``waitForEndOfStream(timeout:)``, optionally waiting past errors (used to finalise a file
    /// after a failure elsewhere in the pipeline).
    func waitForEndOfStream(timeout seconds: Double, ignoringErrors: Bool) throws -> Bool {
        let deadline = ContinuousClock.now + .nanoseconds(Int64(max(0, seconds) * 1e9))
        let finished = pollBus(until: deadline) { s in s.reachedEndOfStream || (!ignoringErrors && s.error != nil) }
        if finished.reachedEndOfStream { return true }
        if !ignoringErrors, let error = finished.error { throw error }
        return false
    }

    /// Pops the pending bus messages without blocking.
    ///
    /// - Throws: the first error the pipeline reported (now or earlier).
    public func checkForErrors() throws {
        while let message = gst_bus_pop_filtered(bus, CG_MESSAGE_ANY_PROBLEM) { record(message) }
        if let error = state.withLock({ $0.error }) { throw error }
    }

    /// Waits up to `seconds` for the next sample of `sink`, looking at the bus every 50 ms, so
    /// an error posted while the wait has begun (a demuxer refusing a file) ends it at once
    /// instead of after the whole timeout. `nil` at end-of-stream or when the time runs out
    /// (tell them apart with `gst_app_sink_is_eos`). The caller unrefs the sample.
    ///
    /// - Throws: the first error the pipeline reported.
    func pullSample(from sink: UnsafeMutablePointer<GstElement>, timeout seconds: Double) throws -> OpaquePointer? {
        let appSink = cg_app_sink(sink)
        let deadline = ContinuousClock.now + .nanoseconds(Int64(max(0, seconds) * 1e9))
        while true {
            try checkForErrors()
            let left = deadline - ContinuousClock.now
            let slice = min(left, .milliseconds(50))
            let nanoseconds = max(0, slice.components.seconds * 1_000_000_000 + slice.components.attoseconds / 1_000_000_000)
            if let sample = gst_app_sink_try_pull_sample(appSink, GstClockTime(nanoseconds)) { return sample }
            if gst_app_sink_is_eos(appSink) != 0 || ContinuousClock.now >= deadline {
                try checkForErrors()
                return nil
            }
        }
    }

    /// Seeks to `nanoseconds` from the start, flushing what is queued: to the keyframe at or
    /// before that time when `keyUnit` (the fast seek; the caller decodes forward from there),
    /// else to the exact time. Frames read afterwards come from the new position.
    ///
    /// - Throws: ``GStreamerError`` when the pipeline refuses the seek (a stream without an index).
    public func seek(toNanoseconds nanoseconds: Int64, keyUnit: Bool) throws {
        // A pipeline still prerolling refuses seeks: let its state change finish first (up to 10 s).
        _ = gst_element_get_state(element, nil, nil, 10_000_000_000)
        let flags = keyUnit
            ? GST_SEEK_FLAG_FLUSH.rawValue | GST_SEEK_FLAG_KEY_UNIT.rawValue | GST_SEEK_FLAG_SNAP_BEFORE.rawValue
            : GST_SEEK_FLAG_FLUSH.rawValue | GST_SEEK_FLAG_ACCURATE.rawValue
        guard gst_element_seek_simple(element, GST_FORMAT_TIME, GstSeekFlags(rawValue: flags), gint64(max(0, nanoseconds))) != 0 else {
            try checkForErrors()
            throw GStreamerError(element: name, message: "the stream cannot seek to \(Double(nanoseconds) / 1e9) s", debug: description)
        }
    }

    /// The stream's duration, when the pipeline can tell (usually once it has prerolled).
    /// The caps of the first sample that reaches the appsink called `name` (for checking what a
    /// stream holds: profile, format), or `nil` if none arrives within `timeout` seconds.
    public func caps(ofElement name: String, timeout: Double = 10) -> String? {
        guard let sink = child(named: name), cg_is_app_sink(sink) != 0 else { return nil }
        defer { gst_object_unref(sink) }
        guard let sample = gst_app_sink_try_pull_sample(cg_app_sink(sink), GstClockTime(timeout * 1e9)) else { return nil }
        defer { gst_sample_unref(sample) }
        guard let caps = gst_sample_get_caps(sample) else { return nil }
        return GLibString.take(gst_caps_to_string(caps))
    }

    public func durationSeconds() -> Double? {
        var nanoseconds: gint64 = 0
        guard gst_element_query_duration(element, GST_FORMAT_TIME, &nanoseconds) != 0, nanoseconds >= 0 else {
            return nil
        }
        return Double(nanoseconds) / 1e9
    }

    /// Waits up to `duration` for a bus message (returning early when one arrives) — a sleep
    /// that an error cuts short.
    ///
    /// - Throws: the pipeline's error, if it reported one.
    func idle(upTo duration: Duration) throws {
        let nanoseconds = duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
        if let message = gst_bus_timed_pop_filtered(bus, GstClockTime(max(0, nanoseconds)), CG_MESSAGE_ANY_PROBLEM) {
            record(message)
        }
        try checkForErrors()
    }

    /// The element called `name` in the pipeline (searched recursively), with a reference the
    /// caller must release with `gst_object_unref`.
    func child(named name: String) -> UnsafeMutablePointer<GstElement>? {
        if cg_is_bin(element) != 0 { return gst_bin_get_by_name(cg_bin(element), name) }
        guard GLibString.borrow(cg_element_name(element)) == name else { return nil }
        _ = gst_object_ref(element)
        return element
    }

    /// Pops bus messages (in short slices, so that several threads may wait at once) until
    /// `stopWhen` holds or `deadline` passes; returns the state at that point.
    private func pollBus(
        until deadline: ContinuousClock.Instant,
        stopWhen done: (BusState) -> Bool
    ) -> BusState {
        while true {
            while let message = gst_bus_pop_filtered(bus, CG_MESSAGE_ANY_PROBLEM) { record(message) }
            let current = state.withLock { $0 }
            let remaining = ContinuousClock.now.duration(to: deadline)
            if done(current) || remaining <= .zero { return current }
            let slice = min(remaining, .milliseconds(50))
            let nanoseconds = slice.components.seconds * 1_000_000_000 + slice.components.attoseconds / 1_000_000_000
            if let message = gst_bus_timed_pop_filtered(bus, GstClockTime(max(0, nanoseconds)), CG_MESSAGE_ANY_PROBLEM)
            {
                record(message)
            }
        }
    }

    /// Folds one bus message into the state and releases it.
    private func record(_ message: UnsafeMutablePointer<GstMessage>) {
        defer { gst_message_unref(message) }
        switch cg_message_type(message) {
        case GST_MESSAGE_ERROR:
            let error = GStreamerError(message: message)
            state.withLock { s in if s.error == nil { s.error = error } }
        case GST_MESSAGE_WARNING:
            let warning = GStreamerError(message: message)
            state.withLock { s in if s.warnings.count < 32 { s.warnings.append(warning) } }
        case GST_MESSAGE_EOS:
            state.withLock { $0.reachedEndOfStream = true }
        default:
            break
        }
    }
}
