// DetectorNode: kind `detector` — cascade detection of faces, bodies and cats every N frames
// at a low resolution, tracking in between, stable IDs, face↔body groups, facing, disparity,
// and salient objects at a tapped point (a thin adapter over CineVision).
import CineGraph
import CineMedia
import CineVision

/// Kind `detector`: finds and tracks the focus candidates of each frame.
public struct DetectorNode: Node {
    public static let kind = "detector"
    public static let summary = "Detects and tracks faces, bodies, cat faces and salient objects with stable IDs."
    public static let details = """
        Runs OpenCV cascade files (read natively, same results as OpenCV's detectMultiScale) on \
        the luma of every `every`-th frame, downscaled to `detect-width`, and tracks objects in \
        between (constant-velocity motion, ByteTrack-style two-pass IoU association gated by \
        disparity); every `full-every`-th detection scans the whole frame, the others only \
        around the tracked objects. With `spread` (the default) a detection's pyramid scales are \
        shared out over its `every` frames, so the cost is even from frame to frame. Types and their cascades (docs/detection.md): humanFace = \
        haarcascade_frontalface_default (+ haarcascade_profileface: looking away), humanBody = \
        haarcascade_upperbody (+ fullbody), catFace = haarcascade_frontalcatface; `cascades` adds \
        any XML as type `custom`. Each detection has a stable `id`, a `groupID` tying a \
        person's face and body, `facing` (towards / away) and, with a disparity map connected, a \
        robust disparity (median over the central half of the box, sticking to the previous \
        value). Command `track x=0.5 y=0.5` starts a salient object at a normalised point (needs \
        disparity); `untrack id=N` drops it.
        """
    public static let commands: [CommandDescription] = [
        CommandDescription("track", arguments: "x=X y=Y", "Track the object at normalised point (X, Y) as a salient object; replies with its id"),
        CommandDescription("untrack", arguments: "id=N", "Stop tracking salient object N"),
    ]

    @Input("Frames (gray8, I420 or NV12; the luma is used)") public var image: Image
    @OptionalInput("Disparity of each frame, for per-object disparity and salient objects") public var disparity: DisparityMap?
    @Output("Tracked objects of each frame") public var detections: Detections

    @Parameter(default: ["humanFace"], "Object types: humanFace, humanBody, catFace") public var types: [String]
    @Parameter(default: [], "Extra cascade XML files, reported as type custom") public var cascades: [String]
    @Parameter(default: .haar, "Cascade family: haar (OpenCV's default files) or lbp (several times cheaper; bodies stay Haar)")
    public var model: CascadeModel
    @Parameter(default: 640, range: 0...8192, "Width the detector sees (0 = full resolution)") public var detectWidth: Int
    @Parameter(default: 3, range: 1...120, "Run the detector every N frames; track in between") public var every: Int
    @Parameter(default: 4, range: 1...1000,
               "Every N-th detection scans the whole frame; the others only around tracked objects (1 = always whole)")
    public var fullEvery: Int
    @Parameter(default: true,
               "Spread each detection over its `every` frames (each scans a share of the scales): no frame pays a whole scan")
    public var spread: Bool
    @Parameter(default: 1.1, range: 1.01...2, "Pyramid scale factor (OpenCV scaleFactor)") public var scaleFactor: Double
    @Parameter(default: 3, range: 0...50, "Neighbours a confident detection needs (OpenCV minNeighbors)") public var minNeighbors: Int
    @Parameter(default: 24, range: 0...4096, "Smallest object side, in detector pixels") public var minSize: Int
    @Parameter(default: true, "Also run the profile-face cascade around tracked faces (the looking-away signal)")
    public var profiles: Bool
    @Parameter(default: 20, range: 1...1000, "Detection rounds an unseen object keeps its ID") public var maxMisses: Int
    @Parameter(default: 2, range: 1...64, "Cores the detector may use") public var threads: Int

    private var detector: CascadeMultiDetector?
    private var tracker = ObjectTracker()
    private var salient: [Int: Double] = [:]
    private var frame = 0
    private var round = 0
    /// The detection in progress when it is spread over frames.
    private var pending: CascadeMultiDetector.Round?
    /// The latest frame and map, for commands between frames.
    private var last: (Image, DisparityMap?)?

    public init() {}

    public func validate() throws {
        for t in types {
            guard let type = DetectionType(rawValue: t), CascadeCatalog.standard.entries[type] != nil else {
                throw ParameterError("types", "unknown type '\(t)'; known: humanFace, humanBody, catFace")
            }
        }
    }

    public func preflight() throws {
        do {
            _ = try makeDetector()
        } catch let e as CascadeError {
            throw ParameterError(cascades.contains(e.file) ? "cascades" : "types", e.description)
        }
    }

    private func makeDetector() throws -> CascadeMultiDetector {
        try CascadeMultiDetector(
            types: types, extraCascades: cascades, catalog: model == .lbp ? .lbp : .standard, profiles: profiles,
            detectWidth: detectWidth,
            parameters: CascadeDetector.Parameters(scaleFactor: scaleFactor, minNeighbors: minNeighbors, minWidth: minSize,
                                                   minHeight: minSize, threads: threads))
    }

    public mutating func start(_ ctx: inout NodeContext) throws {
        detector = try makeDetector()
        var c = ObjectTracker.Configuration()
        c.maxMisses = maxMisses
        tracker = ObjectTracker(configuration: c)
    }

    public mutating func process(_ ctx: inout NodeContext) throws {
        guard let detector else { return }
        let map = disparity
        if frame % every == 0 {
            let tracked = tracker.report().filter { $0.type != .salientObject }.map(\.bounds)
            let full = round % fullEvery == 0 || tracked.isEmpty
            round += 1
            pending = try detector.begin(image, around: full ? nil : tracked, parts: spread ? every : 1)
        }
        if var r = pending {
            try detector.scan(image, into: &r)
            pending = r.isComplete ? nil : r
            if r.isComplete {
                _ = tracker.update(r.observations, disparity: map)
            } else {
                _ = tracker.predict(disparity: map)
            }
        } else {
            _ = tracker.predict(disparity: map)
        }
        frame += 1
        if let map {
            let finder = SalientObjectFinder()
            for id in salient.keys.sorted() {
                guard let s = tracker.state(of: id) else { salient[id] = nil; continue }
                let r = finder.find(atNormalized: s.bounds.x + s.bounds.width / 2, s.bounds.y + s.bounds.height / 2,
                                    disparity: map, luma: image, seedDisparity: s.disparity ?? salient[id])
                tracker.updateSalientObject(id: id, bounds: r?.bounds, disparity: r?.disparity)
            }
        }
        last = (image, map)
        detections = tracker.report()
    }

    public mutating func handle(_ command: NodeCommand, _ ctx: inout NodeContext) throws -> String {
        switch command.name {
        case "track":
            guard let x = command.arguments["x"].flatMap(Double.init), let y = command.arguments["y"].flatMap(Double.init),
                  (0...1).contains(x), (0...1).contains(y) else {
                throw NodeCommandError("track needs x=… y=… in 0…1")
            }
            guard let (frameImage, frameMap) = last, let map = frameMap else {
                throw NodeCommandError("track needs a frame with the disparity input connected")
            }
            guard let r = SalientObjectFinder().find(atNormalized: x, y, disparity: map, luma: frameImage) else {
                return "none"
            }
            let id = tracker.addSalientObject(bounds: r.bounds, disparity: r.disparity)
            salient[id] = r.disparity
            return "\(id)"
        case "untrack":
            guard let id = command.arguments["id"].flatMap(Int.init) else { throw NodeCommandError("untrack needs id=N") }
            salient[id] = nil
            tracker.remove(id: id)
            return "ok"
        default:
            throw NodeCommandError("node kind 'detector' has no command '\(command.name)'")
        }
    }
}

/// The cascade family a `detector` node loads for its types.
public enum CascadeModel: String, ParameterEnum {
    /// OpenCV's Haar cascades (haarcascade_frontalface_default, …).
    case haar
    /// OpenCV's LBP cascades where there is one (lbpcascade_frontalface_improved, …).
    case lbp
}
