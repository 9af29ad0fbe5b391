// MovieRecorder: writes Images (and optionally live audio) to a movie file through an encoder.
import CGStreamer
import CineMedia

/// Records video, and optionally audio, to a movie file. The container follows the path's
/// extension (see ``MovieFormat``).
///
/// The pipeline is `appsrc ! videoconvert ! video/x-raw,format=I420 ! encoder ! parser ! queue !
/// mux ! filesink`; I420 input passes through `videoconvert` untouched. MP4 and MOV are written
/// fragmented (one fragment per second), so a process killed mid-recording leaves a playable
/// file that lacks only the fragment in progress. Without audio, frames keep their timestamps,
/// shifted so the movie starts at 0, and the writer waits for the encoder (offline writing runs
/// as fast as the encoder). With audio, the video source is live and frames are stamped with
/// the pipeline clock when pushed, so that sound and picture line up.
///
/// Use one recorder from one thread at a time; call ``finish(timeout:)`` to finalise the file.
public final class MovieRecorder: @unchecked Sendable {
    /// How to encode a recording.
    public struct Options: Sendable {
        /// `auto`, a short encoder name (`x264`, `openh264`, `x265`, `vp8`, `vp9`, `av1`) or an
        /// element name; see ``MovieFormat/videoEncoder(preference:container:)``.
        public var encoder: String = "auto"
        /// Target bitrate in kbit/s; 0 keeps the encoder's default (x264: constant quality).
        public var bitrateKbps: Int = 0
        /// The x264/x265 speed preset (`ultrafast` … `placebo`).
        public var speedPreset: String = "veryfast"
        /// `nil` for no audio, `default` for the default input device, `test` for a sine tone,
        /// or a GStreamer source description (`pulsesrc device=...`).
        public var audio: String? = nil
        /// A movie or cinematic asset whose first audio track is copied (re-encoded for the
        /// container) into the recording, from its time 0 — re-rendering keeps the take's sound.
        /// Not live: the video keeps its own timestamps. Exclusive with ``audio``.
        public var audioFile: String? = nil
        /// Channels recorded from the device: 0 keeps what the encoder negotiates (stereo for most
        /// microphones), 1, 2, or 4 (an ambisonic or quad microphone, kept as four channels).
        public var audioChannels: Int = 0
        /// Bits per sample of the encoded video: 8, or 10 where the encoder offers it (x264, x265).
        public var bitDepth: Int = 8

        /// Default options: automatic encoder, default bitrate, `veryfast`, no audio.
        public init() {}
    }

    /// The file being written.
    public let path: String
    /// The pipeline, as `gst-launch-1.0` would take it.
    public let pipelineDescription: String
    /// The video encoder element in use.
    public let encoder: String
    /// The muxer element in use.
    public let muxer: String
    /// How many frames ``append(_:at:)`` has accepted.
    public private(set) var framesWritten = 0

    private let pipeline: Pipeline
    private let writer: AppSrcWriter
    private let isLive: Bool
    private var firstTimestamp: Timestamp?
    private var isFinished = false

    /// Starts a recording to `path` of `width` × `height` frames in `format` at `fps`.
    ///
    /// - Throws: ``GStreamerError`` for an unsupported extension, a missing encoder, or a file
    ///   that cannot be opened for writing (naming the `filesink`).
    public init(
        path: String, width: Int, height: Int, fps: Double, format: PixelFormat,
        options: Options = Options()
    ) throws {
        try GStreamer.initialize()
        let container = try MovieFormat.container(forPath: path)
        let encoder = try MovieFormat.videoEncoder(preference: options.encoder, container: container)
        let isLive = options.audio != nil
        guard options.bitDepth == 8 || options.bitDepth == 10 else {
            throw GStreamerError(element: encoder, message: "bit depth \(options.bitDepth) is not supported (8 or 10)")
        }
        if options.bitDepth == 10 && !["x264enc", "x265enc"].contains(encoder) {
            throw GStreamerError(element: encoder, message: "\(encoder) cannot encode 10-bit video; use x264 or x265")
        }
        var video = [
            "appsrc name=src format=time" + (isLive ? " is-live=true do-timestamp=true" : ""),
            "videoconvert", options.bitDepth == 10 ? "video/x-raw,format=I420_10LE" : "video/x-raw,format=I420",
            MovieFormat.encoderDescription(
                encoder, fps: fps, bitrateKbps: options.bitrateKbps,
                speedPreset: options.speedPreset),
        ]
        if let parser = MovieFormat.parser(forEncoder: encoder) { video.append(parser) }
        video += [
            "queue", MovieFormat.muxerDescription(container: container), MovieFormat.writeBehindQueue,
            "filesink location=\(Pipeline.quoted(path))",
        ]
        var description = video.joined(separator: " ! ")
        if options.audio != nil && options.audioFile != nil {
            throw GStreamerError(element: nil, message: "record audio from a device or copy it from a file, not both")
        }
        if let file = options.audioFile {
            let audioEncoder = try MovieFormat.audioEncoder(container: container)
            let demuxer = file.lowercased().hasSuffix(".mp4") || file.lowercased().hasSuffix(".mov") ? "qtdemux" : "matroskademux"
            description += "  filesrc location=\(Pipeline.quoted(file)) ! \(demuxer) name=audiofile audiofile.audio_0 ! "
                + ["queue", "decodebin", "audioconvert", "audioresample", audioEncoder, "queue", "mux."].joined(separator: " ! ")
        }
        if let audio = options.audio {
            guard [0, 1, 2, 4].contains(options.audioChannels) else {
                throw GStreamerError(element: nil, message: "audio channels must be 1, 2 or 4, got \(options.audioChannels)")
            }
            let audioEncoder = try MovieFormat.audioEncoder(container: container)
            // Four channels keep their order; the encoders label them quad (mask 0x33) whatever the device said.
            let channels = options.audioChannels == 0 ? [] : ["audio/x-raw,channels=\(options.audioChannels)"]
                + (options.audioChannels == 4
                    ? ["capssetter join=true replace=false caps=\"audio/x-raw,channel-mask=(bitmask)0x33\"", "audioconvert"] : [])
            description +=
                "  "
                + ([MovieFormat.audioSourceDescription(audio), "audioconvert", "audioresample"] + channels
                    + [audioEncoder, "queue", "mux."]).joined(separator: " ! ")
        }
        self.path = path
        self.encoder = encoder
        self.muxer = try MovieFormat.muxer(forPath: path)
        self.pipelineDescription = description
        self.isLive = isLive
        self.pipeline = try Pipeline(description)
        self.writer = try AppSrcWriter(pipeline: pipeline, format: format, width: width, height: height, fps: fps)
        do {
            try pipeline.play()
        } catch {
            // Nothing was recorded: no file to finalise, so deinit need not wait for one.
            isFinished = true
            pipeline.stop()
            throw error
        }
    }

    deinit {
        if !isFinished { try? finish(timeout: 5) }
    }

    /// Appends a frame. Without audio, `timestamp` minus the first frame's timestamp becomes
    /// its time in the movie; with audio, the frame is stamped with the clock when pushed.
    ///
    /// Waits while the encoder is behind (a queue of three frames).
    /// - Throws: the pipeline's error (for example a write failure, naming the `filesink`), or
    ///   an error after ``finish(timeout:)``.
    public func append(_ image: Image, at timestamp: Timestamp) throws {
        guard !isFinished else {
            throw GStreamerError(element: nil, message: "the recording to \"\(path)\" is already finished")
        }
        if isLive {
            try writer.push(image, presentationTime: nil)
        } else {
            let first = firstTimestamp ?? timestamp
            firstTimestamp = first
            try writer.push(image, at: timestamp - first)
        }
        framesWritten += 1
    }

    /// Finalises the file: sends end-of-stream, waits up to `seconds` for it to reach the file,
    /// then stops the pipeline — also when end-of-stream does not arrive in time, and also after
    /// an error (when it waits at most a second). Calling it again does nothing.
    ///
    /// - Throws: the pipeline's error, or a timeout error when end-of-stream did not arrive
    ///   (the file may then lack its last fragment).
    public func finish(timeout seconds: Double = 10) throws {
        guard !isFinished else { return }
        isFinished = true
        var failure: (any Error)?
        do { try pipeline.checkForErrors() } catch { failure = error }
        writer.endOfStream()
        if isLive { cg_send_eos_to_element_sources(pipeline.element, writer.element) }
        var reached = false
        if failure == nil {
            do { reached = try pipeline.waitForEndOfStream(timeout: seconds) } catch { failure = error }
        } else {
            reached = (try? pipeline.waitForEndOfStream(timeout: min(seconds, 1), ignoringErrors: true)) ?? false
        }
        pipeline.stop()
        if let failure { throw failure }
        if !reached {
            throw GStreamerError(
                element: "mux",
                message: "end-of-stream did not reach \"\(path)\" within \(seconds) s; the pipeline was stopped "
                    + "and the file may lack its last part")
        }
    }

    /// Stops the pipeline at once, without end-of-stream — what a killed process leaves behind.
    /// For tests of crash safety; a fragmented MP4 keeps its completed fragments.
    public func abandon() {
        isFinished = true
        pipeline.stop()
    }
}
