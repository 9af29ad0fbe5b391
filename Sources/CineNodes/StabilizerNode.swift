// StabilizerNode: the `stabilizer` node kind — a thin adapter from CineVision's streaming
// Stabilizer to the graph: holds each instant's frame, disparity and detections for the
// lookahead, then sends them moved by the same correction, stamped with their own instant.
import CineGraph
import CineMedia
import CineVision

/// Kind `stabilizer`: removes camera shake, moving every frame-aligned stream of an instant together.
public struct StabilizerNode: Node {
    public static let kind = "stabilizer"
    public static let summary =
        "Removes camera shake with lookahead; moves the frame, its disparity and its detections together."
    public static let details = """
        Motion between frames is estimated on a 320-pixel-wide grey image (Shi-Tomasi corners, \
        pyramidal Lucas-Kanade, RANSAC similarity); the camera path is smoothed over the \
        lookahead with a Gaussian-weighted local line, which keeps steady pans; the output is \
        zoomed by `1 / (1 − crop)` and each correction is clamped so that no pixel from outside \
        the captured frame is ever shown.

        | mode | lookahead | σ | crop |
        |---|---|---|---|
        | off | 0 | — | 0 % |
        | standard | 15 frames | 5 | 8 % |
        | cinematic | 30 frames | 10 | 12 % |
        | cinematic-extended | 45 frames | 15 | 18 % |
        | cinematic-extended-enhanced | 60 frames | 20 | 24 % |

        The node holds `lookahead` frames and sends each later with its own timestamp, so \
        downstream nodes see the instants they describe; at the end of the stream it flushes \
        what it holds (as many frames come out as went in). The first `lookahead` instants send \
        nothing. A disparity map is warped at its own resolution with the same correction \
        (edge-safe: across a depth edge the nearest sample, never a blend; values scaled with \
        the zoom); detection bounds are mapped, clipped to the frame, and dropped when they \
        leave it.

        `stereo-safe` keeps corrections to shifts and zoom (no rotation), so the horizontal \
        epipolar lines a disparity map relies on stay horizontal; `auto` turns it on when the \
        first instant brings a disparity map or the `stabilized-disparity` output is connected. \
        Held frames are bounded by `memory-limit`: a lookahead that would not fit for the \
        frame size is an error naming `lookahead`.
        """

    @Input(formats: [.i420, .gray8], "Frames to stabilize") public var video: Image
    @OptionalInput("Disparity of each frame, moved with it") public var disparity: DisparityMap?
    @OptionalInput("Detections of each frame, moved with it") public var detections: Detections?
    @OptionalInput("Focus of each frame, held with it (its disparity scaled with the frame's zoom, as the map's and the detections' are)")
    public var focus: FocusState?
    @OptionalInput(formats: [.i420], "A kept stereo pair (from `keep-pair`), moved with its frame: the stabilized take keeps it for matching depth again")
    public var pair: Image?
    @Output(formatOf: "video", "Stabilized frames: same size, zoomed by 1 / (1 − crop)") public var stabilizedVideo: Image
    @Output("The disparity moved with its frame (own resolution, values in output pixels)")
    public var stabilizedDisparity: DisparityMap
    @Output("The detections moved with their frame (bounds clipped; those cropped away dropped)")
    public var stabilizedDetections: Detections
    @Output("The focus of each frame, leaving with its frame (so a sink after the lookahead can join it), its disparity in the moved frame's pixels")
    public var stabilizedFocus: FocusState
    @Output(name: "stabilized-pair", formats: [.i420], "The kept pair moved with its frame (each view through the frame's correction)")
    public var stabilizedPair: Image

    @Parameter(default: .cinematicExtended, "Smoothing, crop and lookahead (see the table)")
    public var mode: StabilizerMode
    @Parameter(default: .zero, range: .zero ... .seconds(20), "Lookahead and latency; 0 = the mode's (in frames: 15, 30, 45, 60)")
    public var lookahead: Duration
    @Parameter(default: .auto, "No rotation, so disparity geometry holds: auto (on with disparity), on, off")
    public var stereoSafe: StereoSafety
    @Parameter(default: 1024, range: 16...1_048_576, "Memory for held frames and disparity, in MB")
    public var memoryLimit: Int

    /// What travels with a held frame.
    struct Held: Sendable {
        var time: Timestamp
        var disparity: DisparityMap?
        var detections: Detections?
        var focus: FocusState?
        /// The kept stereo pair (``KeptPair``).
        var pair: Image?
        /// What was carried forward upstream for this instant (``NodeContext/carried``).
        var carried: [String] = []
    }

    private var stabilizer: Stabilizer<Held>?
    /// The first frame, held while the frame rate (needed to turn `lookahead` into frames) is unknown.
    private var first: (frame: Image, held: Held)?
    private var warp: StabilizationWarp?
    private var wantsStereoSafety = false

    public init() {}

    public mutating func process(_ ctx: inout NodeContext) throws {
        guard video.width > 0, video.height > 0 else {
            throw StabilizationError.emptyFrame(width: video.width, height: video.height)
        }
        let item = Held(time: ctx.timestamp, disparity: disparity, detections: detections, focus: focus, pair: pair,
                        carried: ctx.carried)
        if stabilizer == nil {
            if first == nil { wantsStereoSafety = disparity != nil || ctx.isConnected($stabilizedDisparity) }
            var frames: Int?
            if lookahead.seconds > 0 {
                guard let f = first else {
                    first = (video, item)
                    return
                }
                let interval = (ctx.timestamp - f.held.time).seconds
                frames = Int((lookahead.seconds / (interval > 0 ? interval : 1.0 / 30)).rounded())
            }
            try makeStabilizer(
                for: first?.frame ?? video, disparity: first?.held.disparity ?? disparity, frames: frames,
                pool: ctx.pool)
            if let f = first {
                first = nil
                try send(try stabilizer!.push(f.frame, f.held), &ctx)
            }
        }
        try send(try stabilizer!.push(video, item), &ctx)
    }

    public mutating func finish(_ ctx: inout NodeContext) throws {
        if stabilizer == nil, let f = first {
            first = nil
            try makeStabilizer(
                for: f.frame, disparity: f.held.disparity, frames: Int((lookahead.seconds * 30).rounded()),
                pool: ctx.pool)
            try send(try stabilizer!.push(f.frame, f.held), &ctx)
        }
        guard stabilizer != nil else { return }
        try send(stabilizer!.finish(), &ctx)
    }

    /// The stabilizer for frames like `frame`; a lookahead that the memory limit cannot hold is
    /// an error naming `lookahead`.
    private mutating func makeStabilizer(for frame: Image, disparity: DisparityMap?, frames: Int?, pool: ImagePool)
        throws
    {
        var c = Stabilizer<Held>.Configuration(mode: mode.mode)
        c.lookaheadFrames = frames
        c.memoryLimitBytes = memoryLimit * 1_048_576
        switch stereoSafe {
        case .on: c.allowsRotation = false
        case .off: c.allowsRotation = true
        case .auto: c.allowsRotation = !wantsStereoSafety
        }
        let payload =
            disparity.map { d in
                d.values.format.layout(width: d.values.width, height: d.values.height).byteCount
                    + (d.confidence.map { $0.format.layout(width: $0.width, height: $0.height).byteCount } ?? 0)
            } ?? 0
            + (pair.map { $0.format.layout(width: $0.width, height: $0.height).byteCount } ?? 0)
        do {
            stabilizer = try Stabilizer(
                configuration: c, width: frame.width, height: frame.height, format: frame.format,
                payloadBytes: payload)
        } catch StabilizationError.lookaheadTooLong(let n, let limit) {
            let perFrame = Double(frame.format.layout(width: frame.width, height: frame.height).byteCount + payload)
            let need = (Double(n + 1) * perFrame / 1_048_576).rounded(.up)
            if limit < n && n <= CameraPathSmoother.maximumLookahead {
                throw ParameterError(
                    "lookahead",
                    "\(n) frames of \(frame.width)x\(frame.height) need \(Int(need)) MB, more than memory-limit "
                        + "\(memoryLimit) MB (at most \(limit) frames fit)",
                    hint: "shorten lookahead, choose a lighter mode, or raise memory-limit")
            }
            throw ParameterError(
                "lookahead", "\(n) frames exceed the longest lookahead, \(CameraPathSmoother.maximumLookahead) frames",
                hint: "shorten lookahead")
        }
        warp = StabilizationWarp(pool: pool)
    }

    /// Moves each ready frame and what came with it, and sends it stamped with its own instant.
    private mutating func send(_ ready: [Stabilizer<Held>.Ready], _ ctx: inout NodeContext) throws {
        guard let warp else { return }
        for r in ready {
            let c = r.correction
            let unchanged = c.stabilizing == .identity && c.zoom == 1
            if ctx.isConnected($stabilizedVideo) {
                stabilizedVideo = unchanged ? r.frame : try warp.apply(c, to: r.frame)
            }
            if let d = r.payload.disparity, ctx.isConnected($stabilizedDisparity) {
                stabilizedDisparity = unchanged ? d : try warp.apply(c, to: d)
            }
            if let list = r.payload.detections {
                stabilizedDetections = c.outputDetections(list, width: r.frame.width, height: r.frame.height)
            }
            if var f = r.payload.focus {
                // In the moved frame's pixels, like the map and the detections it agrees with.
                f.focusDisparity *= c.outputFromSource.scale
                stabilizedFocus = f
            }
            if let p = r.payload.pair, ctx.isConnected($stabilizedPair) {
                stabilizedPair = unchanged ? p : try warp.apply(c, toPair: p, frameWidth: r.frame.width, frameHeight: r.frame.height)
            }
            ctx.carried = r.payload.carried
            ctx.emit(at: r.payload.time)
        }
    }
}

extension StabilizerNode {
    /// A `focus` node feeding `focus` decides before the crop: its `crop` must be this mode's,
    /// or 0 (it then chooses from the whole frame, margin included).
    public func validate(upstream: [String: UpstreamNode]) throws {
        guard let focus = upstream["focus"], focus.kind == FocusNode.kind,
              let text = focus.parameters["crop"], let crop = Double(text), crop != 0 else { return }
        let mine = mode.mode.maxCropFraction
        guard abs(crop - mine) > 1e-9 else { return }
        throw ParameterError(
            "crop", "is \(text), but '\(focus.name)' feeds stabilizer mode \(mode.rawValue), which crops \(mine) away",
            hint: "set crop: \(mine), or 0 to choose subjects from the whole frame", node: focus.name)
    }
}

/// The `stabilizer` node's modes, spelled as in configs.
public enum StabilizerMode: String, ParameterEnum {
    case off
    case standard
    case cinematic
    case cinematicExtended = "cinematic-extended"
    case cinematicExtendedEnhanced = "cinematic-extended-enhanced"

    /// The CineVision mode.
    public var mode: StabilizationMode {
        switch self {
        case .off: return .off
        case .standard: return .standard
        case .cinematic: return .cinematic
        case .cinematicExtended: return .cinematicExtended
        case .cinematicExtendedEnhanced: return .cinematicExtendedEnhanced
        }
    }
}

/// Whether the `stabilizer` node keeps corrections free of rotation.
public enum StereoSafety: String, ParameterEnum {
    /// On when the first instant brings a disparity map or the disparity output is used.
    case auto
    /// Never rotate (shifts and zoom only).
    case on
    /// Rotate as the shake requires (mono video).
    case off
}
