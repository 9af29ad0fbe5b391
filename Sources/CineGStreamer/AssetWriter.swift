// AssetWriter: records a cinematic asset — original video, lossless disparity track and
// per-frame JSON metadata in one Matroska file that stays readable if the process dies.
import CGStreamer
import CineMedia
import Foundation

/// Writes a cinematic asset (docs/asset.md): one Matroska file with
/// 1. the original reference view, H.264 (x264; `lossless` uses quantizer 0),
/// 2. the disparity map at its own resolution, FFV1 `GRAY16_LE` (every frame a keyframe), samples = round(d × 64), 0 = invalid,
/// 3. a `text/x-raw,format=utf8` track: an ``AssetHeader`` record, then one ``AssetFrameRecord`` per frame,
/// 4. optionally the audio, FLAC (lossless), starting at the first frame.
/// Every frame must be appended with its disparity (when the asset has a disparity track) and
/// its record: the muxer interleaves the tracks and waits for all of them.
/// Matroska is written as it goes, so a killed process leaves a file that plays up to the last
/// cluster written; ``finish(timeout:)`` writes the index and duration.
public final class AssetWriter: @unchecked Sendable {
    /// Settings for the video track.
    public struct Options: Sendable {
        /// `high` (x264 constant quality 18) or `lossless` (quantizer 0; large files).
        public var quality: String = "high"
        /// x264 speed preset.
        public var speedPreset: String = "veryfast"
        /// Audio to record beside the video: `nil` for none, `default` for the system's default
        /// input, `test` for a sine tone, or a GStreamer source description (`pulsesrc device=…`).
        public var audio: String?
        /// Audio channels: 1, 2, or 4 (an ambisonic or quad microphone, kept as four channels).
        public var audioChannels = 2
        /// Audio sample rate in Hz.
        public var audioSampleRate = 48_000
        /// Sound the graph sends with the frames (``append(audio:)``), in this format: `nil` for
        /// none. Recorded as it comes (its channels and rate); exclusive with ``audio``.
        public var audioInput: AudioInputFormat?
        public init() {}
    }

    /// The format of the sound a graph sends an asset: channels (1, 2 or 4) and sample rate.
    public struct AudioInputFormat: Sendable, Hashable {
        /// Channels per instant: 1, 2 or 4.
        public var channels: Int
        /// Instants per second.
        public var sampleRate: Int
        /// The format of `block`.
        public init(of block: AudioBlock) {
            channels = block.channels
            sampleRate = block.sampleRate
        }
        /// `channels` at `sampleRate`.
        public init(channels: Int, sampleRate: Int) {
            self.channels = channels
            self.sampleRate = sampleRate
        }
    }

    /// The file being written.
    public let path: String
    /// The pipeline, as a GStreamer description.
    public let pipelineDescription: String
    /// Frames appended so far.
    public private(set) var framesWritten = 0
    private let pipeline: Pipeline
    private let video: AppSrcWriter
    private let disparity: AppSrcWriter?
    /// The kept pair (``AssetHeader/pairWidth``), when the asset keeps one.
    private let pair: AppSrcWriter?
    private let metadata: AppSrcDataWriter
    /// The graph's sound (``Options/audioInput``).
    private let sound: AppSrcDataWriter?
    private let soundFormat: AudioInputFormat?
    /// Samples of the graph's sound recorded so far (from the first frame; gaps filled with silence).
    private var soundWritten: Int64 = 0
    private let header: AssetHeader
    private var origin: Timestamp?
    private var finished = false
    /// Where the audio starts (the running time of the first frame) and ends (the end of the last
    /// frame, relative to the start): read by a probe on the streaming thread.
    private let audioSpan: UnsafeMutablePointer<gint64>
    private var lastFrameEnd: Int64 = 0
    private let hasAudio: Bool
    private let encoder = JSONEncoder()

    /// The GStreamer elements an asset needs: H.264, FFV1 for the disparity, Matroska; FLAC with audio.
    public static func requiredElements(audio: Bool) -> [String] {
        ["x264enc", "avenc_ffv1", "matroskamux"] + (audio ? ["flacenc", "capssetter"] : [])
    }

    /// Opens `path` for an asset described by `header` (a disparity track when the header has a disparity size).
    public init(path: String, header: AssetHeader, options: Options = Options()) throws {
        guard header.fps > 0 else { throw GStreamerError(element: nil, message: "asset fps must be positive") }
        let ext = URL(fileURLWithPath: path).pathExtension.lowercased()
        guard ext == "mkv" else {
            throw GStreamerError(element: nil, message: "a cinematic asset is Matroska: '\(path)' should end in .mkv")
        }
        for element in Self.requiredElements(audio: options.audio != nil) where !GStreamer.hasElement(element) {
            throw GStreamerError(element: element, message: "GStreamer element \(element) is not installed")
        }
        let x264 = options.quality == "lossless"
            ? "x264enc speed-preset=\(options.speedPreset) tune=zerolatency pass=quant quantizer=0"
            : "x264enc speed-preset=\(options.speedPreset) tune=zerolatency pass=qual quantizer=18"
        // A keyframe every half second: the editor reaches any frame by decoding at most 15 (at 30 fps).
        let keyInterval = max(1, Int((header.fps / 2).rounded()))
        var d = "matroskamux name=mux writing-app=cinegraph ! \(MovieFormat.writeBehindQueue) ! filesink location=\(Pipeline.quoted(path)) "
        d += "appsrc name=video ! queue max-size-buffers=8 max-size-bytes=0 max-size-time=0 ! videoconvert ! "
        d += "video/x-raw,format=I420 ! \(x264) key-int-max=\(keyInterval) ! h264parse ! queue ! mux.video_%u "
        if header.disparityWidth != nil {
            d += "appsrc name=disparity ! queue max-size-buffers=8 max-size-bytes=0 max-size-time=0 ! avenc_ffv1 gop-size=1 ! queue ! mux.video_%u "
        }
        if header.pairWidth != nil {
            // The third video track (after the disparity): the pair's luma at a quarter of the size, side by side.
            guard header.disparityWidth != nil else {
                throw GStreamerError(element: "pair", message: "an asset keeps the stereo pair only beside a disparity track")
            }
            d += "appsrc name=pair ! queue max-size-buffers=8 max-size-bytes=0 max-size-time=0 ! "
            // A fixed quantizer of 12 (0 for a lossless asset): the matcher needs the fine texture that
            // the video's q18 smooths away (matched on q18, a carried map comes back barely better).
            let q = options.quality == "lossless" ? 0 : 12
            d += "x264enc speed-preset=\(options.speedPreset) tune=zerolatency pass=quant quantizer=\(q) key-int-max=\(keyInterval) ! "
            d += "h264parse ! queue ! mux.video_%u "
        }
        // Request pads named explicitly: linking happens at parse time, before the appsrcs have caps.
        d += "appsrc name=metadata caps=text/x-raw,format=utf8 format=time ! queue ! mux.subtitle_%u"
        if options.audio != nil && options.audioInput != nil {
            throw GStreamerError(element: nil, message: "record a microphone or the graph's sound, not both")
        }
        if let input = options.audioInput {
            guard [1, 2, 4].contains(input.channels), input.sampleRate >= 8000 else {
                throw GStreamerError(element: "flacenc", message: "the graph's sound has \(input.channels) channels at \(input.sampleRate) Hz; 1, 2 or 4 channels at 8 kHz or more can be recorded")
            }
            let mask = input.channels == 4 ? ",channel-mask=(bitmask)0x33" : ""
            d += " appsrc name=sound ! audioconvert ! audio/x-raw,format=S24LE\(mask) ! "
            d += "queue max-size-time=0 max-size-buffers=0 max-size-bytes=0 ! flacenc ! queue ! mux.audio_%u"
        }
        if let audio = options.audio {
            guard [1, 2, 4].contains(options.audioChannels) else {
                throw GStreamerError(element: "flacenc", message: "audio channels must be 1, 2 or 4, got \(options.audioChannels)")
            }
            // Four channels keep their order; FLAC labels them quad (mask 0x33) whatever the device said.
            let mask = options.audioChannels == 4 ? ",channel-mask=(bitmask)0x33" : ""
            d += " \(Self.audioSource(audio)) ! audioconvert ! audioresample ! "
            d += "audio/x-raw,channels=\(options.audioChannels),rate=\(options.audioSampleRate) ! "
            d += "capssetter join=true replace=false caps=\"audio/x-raw\(mask)\" ! identity name=audiostart ! "
            d += "queue max-size-time=2000000000 max-size-buffers=0 max-size-bytes=0 ! flacenc ! queue ! mux.audio_%u"
        }
        pipelineDescription = d
        self.path = path
        var header = header
        if header.disparityWidth != nil { header.disparityKeyframeInterval = 1 }
        if options.audio != nil {
            header.audioChannels = options.audioChannels
            header.audioSampleRate = options.audioSampleRate
        }
        if let input = options.audioInput {
            header.audioChannels = input.channels
            header.audioSampleRate = input.sampleRate
        }
        self.header = header
        hasAudio = options.audio != nil
        audioSpan = .allocate(capacity: 3)
        audioSpan.initialize(repeating: .max, count: 2)
        (audioSpan + 2).initialize(to: 0)
        pipeline = try Pipeline(d)
        if hasAudio {
            guard let start = pipeline.child(named: "audiostart") else {
                throw GStreamerError(element: "audiostart", message: "the asset pipeline has no audio start element")
            }
            _ = cg_install_time_shift(start, audioSpan)
            gst_object_unref(start)
        }
        video = try AppSrcWriter(pipeline: pipeline, name: "video", format: .i420, width: header.referenceWidth,
                                 height: header.referenceHeight, fps: header.fps)
        if let w = header.disparityWidth, let h = header.disparityHeight {
            disparity = try AppSrcWriter(pipeline: pipeline, name: "disparity", format: .gray16, width: w, height: h,
                                         fps: header.fps)
        } else {
            disparity = nil
        }
        if let w = header.pairWidth, let h = header.pairHeight {
            pair = try AppSrcWriter(pipeline: pipeline, name: "pair", format: .i420, width: w, height: h, fps: header.fps)
        } else {
            pair = nil
        }
        metadata = try AppSrcDataWriter(pipeline: pipeline, name: "metadata", caps: "text/x-raw,format=utf8")
        soundFormat = options.audioInput
        if let input = options.audioInput {
            let mask = input.channels > 2 ? ",channel-mask=(bitmask)0x33" : ""
            sound = try AppSrcDataWriter(
                pipeline: pipeline, name: "sound",
                caps: "audio/x-raw,format=F32LE,layout=interleaved,rate=\(input.sampleRate),channels=\(input.channels)\(mask)")
        } else {
            sound = nil
        }
        encoder.outputFormatting = [.sortedKeys]
        try pipeline.play()
    }

    deinit {
        if !finished { pipeline.stop() }
        audioSpan.deallocate()
    }

    /// The GStreamer source for an `audio` option.
    static func audioSource(_ audio: String) -> String {
        switch audio {
        case "default": return "autoaudiosrc"
        case "test": return "audiotestsrc is-live=true wave=sine freq=440"
        default: return audio
        }
    }

    /// Whether the asset has a disparity track.
    public var hasDisparity: Bool { disparity != nil }

    /// Appends one frame: the reference view (I420, the header's size), its disparity map (required
    /// when the asset has a disparity track), the kept pair (``KeptPair/recorded(left:right:pool:)``,
    /// required when the asset keeps one) and its metadata record (its `time` is set here).
    public func append(video image: Image, disparity map: DisparityMap?, pair kept: Image? = nil,
                       record: AssetFrameRecord, at timestamp: Timestamp, pool: ImagePool? = nil) throws {
        guard !finished else { throw GStreamerError(element: nil, message: "the asset \(path) is already finished") }
        guard image.width == header.referenceWidth, image.height == header.referenceHeight else {
            throw GStreamerError(element: "video", message: "frame is \(image.width)x\(image.height), the asset is \(header.referenceWidth)x\(header.referenceHeight)")
        }
        let start = origin ?? timestamp
        if origin == nil && hasAudio {
            // The audio starts with the first frame: earlier samples are dropped, later ones re-stamped.
            let now = max(0, cg_element_running_time(pipeline.element))
            cg_atomic_store_int64(audioSpan, now)
        }
        origin = start
        let t = Timestamp(nanoseconds: max(0, (timestamp - start).nanoseconds))
        let duration = UInt64(1e9 / header.fps)
        var frameRecord = record
        frameRecord.time = t.nanoseconds
        var documents: [Data] = []
        if framesWritten == 0 { documents.append(try encoder.encode(header)) }
        documents.append(try encoder.encode(frameRecord))
        // One buffer per frame (header + first record share the first one, newline-separated).
        let bytes = [UInt8](documents.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n").utf8)
        try video.push(image, at: t)
        if let disparity {
            guard let map else { throw GStreamerError(element: "disparity", message: "frame \(framesWritten) has no disparity map") }
            guard map.values.width == header.disparityWidth, map.values.height == header.disparityHeight else {
                throw GStreamerError(element: "disparity", message: "disparity is \(map.values.width)x\(map.values.height), the asset's track is \(header.disparityWidth ?? 0)x\(header.disparityHeight ?? 0)")
            }
            try disparity.push(map.quantized(scale: header.disparityScale, pool: pool), at: t)
        }
        if let pair {
            guard let kept else { throw GStreamerError(element: "pair", message: "frame \(framesWritten) has no kept pair") }
            guard kept.width == header.pairWidth, kept.height == header.pairHeight, kept.format == .i420 else {
                throw GStreamerError(element: "pair", message: "the kept pair is \(kept.width)x\(kept.height) \(kept.format), the asset's track is \(header.pairWidth ?? 0)x\(header.pairHeight ?? 0) I420")
            }
            try pair.push(kept, at: t)
        }
        try metadata.push(bytes, presentationTime: UInt64(t.nanoseconds), duration: duration)
        lastFrameEnd = t.nanoseconds + Int64(duration)
        framesWritten += 1
    }

    /// Appends the graph's sound (with ``Options/audioInput``): `block` recorded at its own time
    /// on the frames' clock (append it with, or after, the frame it came with). Samples before the
    /// first frame are dropped; where the sound skipped (blocks missing, a frame without one),
    /// silence is recorded so the track stays continuous and the muxer never waits on it.
    public func append(audio block: AudioBlock?, at timestamp: Timestamp) throws {
        guard sound != nil, let format = soundFormat, let origin, !finished else { return }
        let rate = Int64(format.sampleRate), channels = format.channels
        let frameEnd = (timestamp - origin).nanoseconds + Int64(1e9 / header.fps)
        var silence = 0
        var kept: ArraySlice<Float> = []
        if let block {
            guard block.channels == channels, block.sampleRate == format.sampleRate else {
                throw GStreamerError(element: "sound", message: "the sound at \(block.start) is \(block.channels) channels at \(block.sampleRate) Hz; the take's audio track is \(channels) at \(format.sampleRate) Hz")
            }
            let start = (block.start - origin).nanoseconds
            guard start <= frameEnd + 1_000_000_000 else {
                throw GStreamerError(element: "sound", message: "the sound at \(block.start) is \(String(format: "%.1f", Double(start - frameEnd) / 1e9)) s ahead of its frame at \(timestamp): it is not stamped on the frames' clock")
            }
            let soundEnd = soundWritten * 1_000_000_000 / rate
            var first = 0
            if start < soundEnd {  // overlaps what is recorded (or precedes the first frame): drop the overlap
                first = min(block.frameCount, Int((soundEnd - start) * rate / 1_000_000_000))
            } else {  // a gap: silence up to the block
                silence = Int((start - soundEnd) * rate / 1_000_000_000)
            }
            kept = block.samples[(first * channels)...]
        } else {
            silence = max(0, Int((frameEnd - soundWritten * 1_000_000_000 / rate) * rate / 1_000_000_000))
        }
        if silence > 0 {
            try [Float](repeating: 0, count: silence * channels).withUnsafeBytes { try pushSound($0, instants: silence) }
        }
        if !kept.isEmpty { try kept.withUnsafeBytes { try pushSound($0, instants: kept.count / channels) } }
    }

    /// Pushes `instants` of the graph's sound (`bytes`, interleaved float) after what is recorded.
    private func pushSound(_ bytes: UnsafeRawBufferPointer, instants: Int) throws {
        guard let sound, let format = soundFormat else { return }
        let rate = Int64(format.sampleRate)
        let start = soundWritten * 1_000_000_000 / rate
        let end = (soundWritten + Int64(instants)) * 1_000_000_000 / rate
        try sound.push(bytes, presentationTime: UInt64(start), duration: UInt64(end - start))
        soundWritten += Int64(instants)
    }

    /// Ends every track, waits for the file to be finalised (index, duration), and closes it.
    /// Safe to call twice; after an error it still closes the file.
    public func finish(timeout seconds: Double = 15) throws {
        guard !finished else { return }
        finished = true
        video.endOfStream()
        disparity?.endOfStream()
        pair?.endOfStream()
        metadata.endOfStream()
        sound?.endOfStream()
        if hasAudio {
            // The sound ends with the last frame: wait (briefly) for the microphone to get there.
            cg_atomic_store_int64(audioSpan + 1, gint64(lastFrameEnd))
            let deadline = ContinuousClock.now + .seconds(1)
            while cg_atomic_load_int64(audioSpan + 2) < gint64(lastFrameEnd) && ContinuousClock.now < deadline
                && framesWritten > 0
            {
                Thread.sleep(forTimeInterval: 0.01)
            }
            cg_send_eos_to_live_sources(pipeline.element)
        }
        defer { pipeline.stop() }
        if try !pipeline.waitForEndOfStream(timeout: seconds) {
            throw GStreamerError(element: "mux", message: "the asset \(path) was not finalised within \(Int(seconds)) s")
        }
    }
}
