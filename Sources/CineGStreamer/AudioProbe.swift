// AudioProbe: decodes a file's audio to measure how long it really is and how many channels it has.
import CGStreamer

/// What a file's first audio stream holds, measured by decoding it.
public struct AudioInfo: Sendable, Hashable {
    /// Channels of the decoded stream.
    public var channels: Int
    /// Sample rate in Hz.
    public var sampleRate: Int
    /// Samples per channel decoded.
    public var samples: Int
    /// Duration in seconds: samples / sample rate.
    public var durationSeconds: Double { sampleRate > 0 ? Double(samples) / Double(sampleRate) : 0 }
}

/// Decodes the audio of a movie or asset (`decodebin` → `appsink`): duration from the samples
/// themselves, not from the container's header.
public enum AudioProbe {
    /// Decodes the first audio stream of `path`; `nil` when the file has none.
    /// - Throws: ``GStreamerError`` when the file is missing, cannot be decoded, or stalls for `timeout` s.
    public static func inspect(path: String, timeout: Double = 20) throws -> AudioInfo? {
        var info: AudioInfo?
        try decode(path: path, caps: "audio/x-raw,format=S16LE,layout=interleaved", timeout: timeout) { sample, buffer in
            if info == nil, let caps = gst_sample_get_caps(sample), let s = gst_caps_get_structure(caps, 0) {
                var channels: gint = 0, rate: gint = 0
                _ = gst_structure_get_int(s, "channels", &channels)
                _ = gst_structure_get_int(s, "rate", &rate)
                info = AudioInfo(channels: Int(channels), sampleRate: Int(rate), samples: 0)
            }
            if let i = info, i.channels > 0 { info!.samples += Int(gst_buffer_get_size(buffer)) / (2 * i.channels) }
        }
        return info
    }

    /// Decodes the first audio stream of `path` to `caps` (after `audioconvert ! audioresample`)
    /// and hands each decoded sample and its buffer to `each`; returns whether any came. A file
    /// without audio returns after a few seconds of nothing (decodebin reports no error for it).
    @discardableResult
    static func decode(path: String, caps: String, timeout: Double,
                       _ each: (OpaquePointer, UnsafeMutablePointer<GstBuffer>) throws -> Void) throws -> Bool {
        try GStreamer.initialize()
        let pipeline = try Pipeline(
            "filesrc location=\(Pipeline.quoted(path)) ! decodebin name=dec dec. ! queue ! audioconvert ! audioresample ! "
                + "\(caps) ! appsink name=sink sync=false enable-last-sample=false")
        guard let sink = pipeline.child(named: "sink") else {
            throw GStreamerError(element: nil, message: "the audio decoder lacks its sink")
        }
        defer {
            pipeline.stop()
            gst_object_unref(sink)
        }
        try pipeline.play()
        var any = false
        var idle = 0.0
        while true {
            try pipeline.checkForErrors()
            guard let sample = gst_app_sink_try_pull_sample(cg_app_sink(sink), 100_000_000) else {
                if gst_app_sink_is_eos(cg_app_sink(sink)) != 0 { break }
                idle += 0.1
                // A file without audio never links the sink: decodebin reports no error, only silence.
                if !any && idle >= min(timeout, 3) { break }
                if idle >= timeout {
                    throw GStreamerError(element: "dec", message: "decoding the audio of \"\(path)\" stalled")
                }
                continue
            }
            idle = 0
            defer { gst_sample_unref(sample) }
            guard let buffer = gst_sample_get_buffer(sample) else { continue }
            any = true
            try each(sample, buffer)
        }
        return any
    }
}
