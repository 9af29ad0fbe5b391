// Stabilizer: the streaming stabilizer — estimates each frame's motion, smooths the camera path
// over the lookahead, and holds frames (with whatever travels with them) until their correction
// is final. No graph, no GStreamer: the `stabilizer` node and `cinegraph stabilize` wrap it.

import CineMedia

/// Stabilizes a stream of frames with lookahead.
///
/// ```swift
/// var stabilizer = try Stabilizer<Timestamp>(width: 1920, height: 1080, format: .i420)
/// for (frame, time) in clip {
///     for ready in try stabilizer.push(frame, time) { write(try warp.apply(ready.correction, to: ready.frame)) }
/// }
/// for ready in stabilizer.finish() { … }   // the last `lookahead` frames
/// ```
///
/// Each ``push(_:_:)`` runs the ``MotionEstimator`` on the new frame (a downscaled grey image),
/// feeds the ``CameraPathSmoother``, and returns the frames whose correction became final —
/// none during the first ``lookahead`` frames, then one per call, in order. ``finish()`` returns
/// the rest, so as many frames come out as went in. `Payload` is what travels with a frame
/// (its timestamp, disparity map, detections); the stabilizer only holds it.
///
/// Memory: ``lookahead`` + 1 frames (and payloads) are held at once; the initializer refuses a
/// lookahead whose frames would not fit ``Configuration-swift.struct/memoryLimitBytes``.
public struct Stabilizer<Payload: Sendable>: Sendable {
    /// The stabilizer's settings.
    public struct Configuration: Sendable, Equatable {
        /// Smoothing strength, crop and default lookahead.
        public var mode: StabilizationMode = .cinematicExtended
        /// Frames of lookahead (and latency) instead of the mode's; σ becomes a third of it.
        public var lookaheadFrames: Int?
        /// Whether corrections may rotate frames (`false` is stereo-safe; see
        /// ``CameraPathSmoother/allowsRotation``).
        public var allowsRotation = true
        /// Largest number of bytes the held frames (and payloads) may take.
        public var memoryLimitBytes = 1 << 30
        /// Motion estimation settings.
        public var estimator = MotionEstimator.Configuration()

        /// Settings for `mode` with its own lookahead.
        public init(mode: StabilizationMode = .cinematicExtended) {
            self.mode = mode
        }

        /// The lookahead in frames: ``lookaheadFrames`` or the mode's.
        public var effectiveLookahead: Int { lookaheadFrames ?? mode.lookaheadFrames }
    }

    /// A frame whose correction is final.
    public struct Ready: Sendable {
        /// Position of the frame in the stream (0 = first pushed).
        public var index: Int
        /// The captured frame, as pushed.
        public var frame: Image
        /// What was pushed with it.
        public var payload: Payload
        /// What to do to it (and to everything aligned with it).
        public var correction: StabilizationCorrection
    }

    /// The settings in use.
    public let configuration: Configuration
    /// Frame width in pixels.
    public let width: Int
    /// Frame height in pixels.
    public let height: Int
    /// Frames of lookahead: a frame comes out this many pushes after it went in.
    public let lookahead: Int

    private var estimator: MotionEstimator
    private var smoother: CameraPathSmoother
    private var held: [(frame: Image, payload: Payload)] = []
    private var firstHeldIndex = 0

    /// The most frames of `bytesPerFrame` each that a lookahead can hold within `memoryLimitBytes`
    /// (the lookahead holds its frames plus the one being pushed).
    public static func maximumLookahead(bytesPerFrame: Int, memoryLimitBytes: Int) -> Int {
        min(CameraPathSmoother.maximumLookahead, memoryLimitBytes / max(1, bytesPerFrame) - 1)
    }

    /// A stabilizer for `width` × `height` frames of `format` (gray8, i420 or nv12), whose
    /// payloads take about `payloadBytes` each.
    ///
    /// - Throws: ``StabilizationError/emptyFrame(width:height:)`` for a zero size,
    ///   ``StabilizationError/lookaheadTooLong(frames:limit:)`` when the held frames would exceed
    ///   the memory limit or ``CameraPathSmoother/maximumLookahead``, and the estimator's and
    ///   smoother's setting errors.
    public init(
        configuration: Configuration = Configuration(), width: Int, height: Int, format: PixelFormat,
        payloadBytes: Int = 0
    ) throws {
        guard width > 0, height > 0 else { throw StabilizationError.emptyFrame(width: width, height: height) }
        guard format == .gray8 || format == .i420 || format == .nv12 else {
            throw StabilizationError.unsupportedFormat(format.rawValue, supported: "gray8, i420 or nv12")
        }
        let lookahead = configuration.effectiveLookahead
        let bytes = format.layout(width: width, height: height).byteCount + max(0, payloadBytes)
        let limit = Stabilizer.maximumLookahead(bytesPerFrame: bytes, memoryLimitBytes: configuration.memoryLimitBytes)
        guard lookahead <= limit else {
            throw StabilizationError.lookaheadTooLong(frames: lookahead, limit: max(0, limit))
        }
        self.configuration = configuration
        self.width = width
        self.height = height
        self.lookahead = lookahead
        estimator = try MotionEstimator(configuration: configuration.estimator)
        let mode = configuration.mode
        smoother = try CameraPathSmoother(
            lookahead: lookahead, sigma: max(Double(lookahead) / 3, 1),
            cropFraction: mode.maxCropFraction, frameWidth: width, frameHeight: height,
            allowsRotation: configuration.allowsRotation)
    }

    /// The output zoom, `1 / (1 − crop)`.
    public var zoom: Double { smoother.zoom }

    /// How many frames are held, waiting for their lookahead.
    public var heldCount: Int { held.count }

    /// Feeds the next frame and what travels with it; returns the frames that became final.
    ///
    /// - Throws: ``StabilizationError`` for an empty frame or one whose size or pixel format
    ///   differs from the stream's.
    public mutating func push(_ frame: Image, _ payload: Payload) throws -> [Ready] {
        guard frame.width > 0, frame.height > 0 else {
            throw StabilizationError.emptyFrame(width: frame.width, height: frame.height)
        }
        guard frame.width == width, frame.height == height else {
            throw StabilizationError.sizeMismatch(
                expectedWidth: width, expectedHeight: height, width: frame.width, height: frame.height)
        }
        // Mode off: no estimation, the corrections are identity anyway.
        let motion = configuration.mode == .off ? .identity : (try estimator.push(frame) ?? .identity)
        held.append((frame, payload))
        return release(smoother.push(motion))
    }

    /// Returns every frame still held, with its final correction (at the end of the stream).
    public mutating func finish() -> [Ready] {
        release(smoother.finish())
    }

    /// How many of the tracked points agreed with the last frame's motion (0: no motion found).
    public var lastInlierCount: Int { estimator.lastInlierCount }

    private mutating func release(_ corrections: [StabilizationCorrection]) -> [Ready] {
        var out: [Ready] = []
        out.reserveCapacity(corrections.count)
        for c in corrections {
            precondition(c.frameIndex == firstHeldIndex, "corrections come in frame order")
            let item = held.removeFirst()
            out.append(Ready(index: firstHeldIndex, frame: item.frame, payload: item.payload, correction: c))
            firstHeldIndex += 1
        }
        return out
    }
}
