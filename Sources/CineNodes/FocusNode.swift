// FocusNode: the `focus` node — the automatic focus engine, the user's focus commands (the
// viewfinder's tap and long press among them) and scene monitoring, between the detections
// and the bokeh renderer (docs/focus.md).
import CineGraph
import CineMedia
import CineVision

/// Kind `focus`: chooses what to focus on in each frame and racks focus to it.
public struct FocusNode: Node {
    public static let kind = "focus"
    public static let summary = "Automatic and user focus decisions, with rack focus, lookahead and scene monitoring."
    public static let details = """
        Scores the subjects of each frame (a face towards the camera, size, nearness, centrality, \
        persistence, newness after a short `dwell`) and makes base decisions with hysteresis and a \
        minimum hold (`min-hold`); applies user decisions by the cinematic rules (a weak decision \
        holds until the next base decision, a strong one until the next user decision or until \
        its subject leaves); racks focus on a curve (brisk start, feathered landing) lasting 0.33–0.7 s by disparity distance \
        (`rack-speed`). With `lookahead` > 0 the outputs are delayed by that much — the packet at \
        instant T describes the frame at T − lookahead, so delay the video by the same amount — and \
        racks start early so focus lands at the decision time; at the end of the stream the frames \
        still waiting are flushed, each stamped `lookahead` after its frame (where `delay` releases \
        that frame), so no frame is lost. `detections` (output) are the frame's detections with \
        focusMode weak (in focus, automatic or weak user) or strong, plus the salient object \
        being tracked at a point. Commands `tap` and `press` are the viewfinder's gestures \
        (tap a rectangle: weak, tap the weak one: strong, tap elsewhere: track the object there; \
        long press: strong fixed focus). Scene monitoring: `notEnoughLight` from the video's \
        luminance and noise and the disparity confidence, with hysteresis, in every focus \
        state's sceneStatuses and posted as event `scene` when it changes. With `follow: speaker` \
        the director follows whoever is talking (the detector's `speaking` faces) instead of the \
        most prominent subject; with a lookahead its racks land just before the new speaker's \
        first word (docs/speaker.md). Something shown to the camera (a detection with `shown`, \
        the detector's `showcase`) gets focus at once whatever the rule, and focus goes back to \
        whoever held it when it is lowered (docs/showcase.md). See docs/focus.md.
        """
    public static let commands: [CommandDescription] = [
        CommandDescription(
            "focus", [CommandArgument("id", .integer(0...Int(Int32.max)), "a detection id of the newest frame"), .strong],
            "Tracking focus on detection N of the newest frame"),
        CommandDescription(
            "fixed", [.point, .strong], "Fixed focus on the plane at normalised point (X, Y) (needs the disparity input)"),
        CommandDescription(
            "track", [.point, .strong],
            "Tracking focus on the object at (X, Y): a new salientObject detection followed by its look (needs the video input; disparity gives it a depth)"),
        CommandDescription(
            "track-box", [CommandArgument("box", .box, "normalised box: top-left corner, width, height"), .strong],
            "Tracking focus on the object in the box (a drag in the viewfinder): a new salientObject detection followed by its look (needs the video input)"),
        CommandDescription(
            "tap", [.point],
            "Viewfinder tap: a rectangle not in focus → weak, the weak one → strong, elsewhere → track the object there"
        ),
        CommandDescription("press", [.point], "Viewfinder long press (≥ 0.3 s): strong fixed focus at (X, Y)"),
        CommandDescription("auto", "Remove every user decision and salient object: automatic focus resumes"),
        CommandDescription(
            "aperture",
            [CommandArgument("value", .number(LensModel.minimumFNumber...LensModel.maximumFNumber), positional: true, "f-number")],
            "Set the simulated aperture (f-number, \(LensModel.minimumFNumber)...\(LensModel.maximumFNumber))"),
    ]

    @Input("Detections of each frame") public var detections: Detections
    @OptionalInput("Disparity of each frame (fixed focus at a point; where focus rests before any subject)")
    public var disparity: DisparityMap?
    @OptionalInput(formats: [.gray8, .i420, .nv12], "Frames (the luma is used): tracking at a point, scene monitoring")
    public var video: Image?
    @Output("Focus of each frame (after the lookahead), with the scene statuses") public var focus: FocusState
    /// The frame's detections with their focus modes; its label maps to the config name
    /// `detections`, like the input (Swift cannot have two properties named `detections`).
    @Output(name: "detections", "Detections of each frame with focusMode set (after the lookahead)")
    public var focusedDetections: Detections

    @Parameter(default: .seconds(0), range: .zero ... .seconds(10), "Decisions known this far ahead: outputs are delayed by it (0 = live)")
    public var lookahead: Duration
    @Parameter(
        default: LensModel.defaultFNumber, range: LensModel.minimumFNumber...LensModel.maximumFNumber,
        "Simulated aperture (f-number), passed on in the focus state")
    public var aperture: Double
    @Parameter(default: 80, range: 1...100_000, "Rack speed in disparity pixels per second (racks last 0.33–0.7 s)")
    public var rackSpeed: Double
    @Parameter(default: .seconds(1), range: .zero ... .seconds(600), "Shortest time an automatic decision holds") public var minHold: Duration
    @Parameter(default: .milliseconds(500), range: .zero ... .seconds(60), "How long a newcomer must be seen before it gets focus")
    public var dwell: Duration
    @Parameter(default: .zero, range: .zero ... .seconds(60),
               "The shorter dwell while nobody holds focus (the frame was empty or its subject left); 0 = at first sight")
    public var acquireDwell: Duration
    @Parameter(default: .milliseconds(500), range: .zero ... .seconds(60),
               "How long focus stays put once its subject has left an empty frame, before it racks to the scene")
    public var emptyHold: Duration
    @Parameter(default: 0, range: 0...0.5,
               "The share of the picture a stabilizer after this node crops away (its mode's crop: cinematic 0.12): subjects less than half inside what the take keeps are not chosen")
    public var crop: Double
    @Parameter(default: .prominent,
               "Who gets focus: prominent (facing, large, near, central, new) or speaker (whoever is talking — faces the detector marks speaking — after speaker-dwell; silence keeps the last speaker)")
    public var follow: FocusFollow
    @Parameter(default: .milliseconds(300), range: .zero ... .seconds(10),
               "With follow: speaker, how long someone's mouth must be seen moving in their turn before focus racks to them (a cough or a one-word reply does not)")
    public var speakerDwell: Duration

    private var engine = FocusEngine()
    private var salient = SalientObjectTracker()
    private var monitor = SceneMonitor()
    /// Statuses by input time, until the output (lookahead behind) reaches them.
    private var sceneHistory: [(time: Timestamp, statuses: SceneStatus)] = []
    private var postedStatuses: SceneStatus = []
    private var lastMap: DisparityMap?
    private var lastVideo: Image?

    public init() {}

    public mutating func start(_ ctx: inout NodeContext) throws {
        var c = FocusEngineConfiguration()
        c.lookahead = lookahead.seconds
        c.rack.speed = rackSpeed
        c.minimumHold = minHold.seconds
        c.dwell = dwell.seconds
        c.acquireDwell = acquireDwell.seconds
        c.emptyHold = emptyHold.seconds
        c.crop = crop
        c.follow = follow
        c.speakerDwell = speakerDwell.seconds
        c.recordsFrames = false  // a live graph runs for hours: keep decisions only
        engine = FocusEngine(configuration: c, fNumber: aperture)
    }

    public mutating func process(_ ctx: inout NodeContext) throws {
        if engine.script.fNumber != aperture { try engine.setFNumber(aperture) }
        lastMap = disparity
        lastVideo = video
        var frame = detections
        if !salient.isEmpty {
            frame += salient.update(disparity: disparity, luma: video)
        }
        let statuses = monitor.update(
            time: ctx.timestamp, SceneMeasurement.measure(luma: video, disparity: disparity))
        if statuses != postedStatuses {
            ctx.post("scene", ["statuses": statuses.description])
            postedStatuses = statuses
        }
        sceneHistory.append((ctx.timestamp, statuses))
        let centre = disparity?.robustDisparity(at: NormalizedPoint(x: 0.5, y: 0.5))
        let out = engine.ingest(time: ctx.timestamp, detections: frame, sceneDisparity: centre)
        if let o = out.last {
            var state = o.focus
            while sceneHistory.count > 1 && sceneHistory[1].time <= o.time { sceneHistory.removeFirst() }
            state.sceneStatuses = sceneHistory.first?.statuses ?? []
            focus = state
            focusedDetections = o.detections
        }
    }

    /// The end of the stream: the frames still inside the lookahead get their focus too, each
    /// stamped `lookahead` after its frame — the instant the `delay` node releases that frame —
    /// so the last `lookahead` seconds of a take are not lost.
    public mutating func finish(_ ctx: inout NodeContext) throws {
        let shift = Timestamp(seconds: lookahead.seconds)
        for o in engine.flush() {
            var state = o.focus
            while sceneHistory.count > 1 && sceneHistory[1].time <= o.time { sceneHistory.removeFirst() }
            state.sceneStatuses = sceneHistory.first?.statuses ?? []
            focus = state
            focusedDetections = o.detections
            ctx.emit(at: o.time + shift)
        }
    }

    public mutating func handle(_ command: NodeCommand, _ ctx: inout NodeContext) throws -> String {
        let strong = command.flag("strong")
        switch command.name {
        case "focus":
            return try focus(onDetection: command.integer("id")!, strong: strong)
        case "fixed":
            return try fixed(at: point(command), strong: strong, command: "fixed")
        case "track":
            return try track(at: point(command), strong: strong, fallback: false)
        case "track-box":
            let b = command.box("box")!
            let box = NormalizedRect(x: b.x, y: b.y, width: b.width, height: b.height)
            guard let image = lastVideo else {
                throw NodeCommandError("track-box: needs the video input to follow the object in the box; connect video")
            }
            salient.removeAll()
            guard let found = salient.start(box: box, image: image, disparity: lastMap) else {
                throw NodeCommandError("track-box: nothing to follow in the box \(command.arguments["box"] ?? "") (too small or plain)")
            }
            engine.track(found, strong: strong)
            return "\(strong ? "strong" : "weak") tracking focus on salient object \(found.id) in the box"
        case "tap", "press":
            let at = point(command)
            let action: FocusAction
            do {
                action = try FocusInteraction().action(
                    for: command.name == "tap" ? .tap : .longPress, at: at, on: engine.currentDetections)
            } catch {
                throw NodeCommandError("\(command.name): \(error)")
            }
            switch action {
            case .trackDetection(let id, let strong): return try focus(onDetection: id, strong: strong)
            case .keep(let id): return "detection \(id) already has strong focus"
            case .trackPoint(let p): return try track(at: p, strong: false, fallback: true)
            case .fixedPoint(let p, let strong): return try fixed(at: p, strong: strong, command: command.name)
            }
        case "auto":
            engine.resumeAutomatic()
            salient.removeAll()
            return "automatic focus"
        case "aperture":
            let f = command.number("value")!
            do { try engine.setFNumber(f) } catch { throw NodeCommandError("aperture: \(error)") }
            aperture = f
            return "aperture f/\(f)"
        default:
            throw NodeCommandError("focus has no command '\(command.name)'")  // refused before, by the declaration
        }
    }

    // MARK: - Commands

    /// The `point=X,Y` argument (declared: inside the frame).
    private func point(_ command: NodeCommand) -> NormalizedPoint {
        let p = command.point("point")!
        return NormalizedPoint(x: p.x, y: p.y)
    }

    private mutating func focus(onDetection id: Int, strong: Bool) throws -> String {
        do { try engine.focus(onDetection: id, strong: strong) } catch { throw NodeCommandError("focus: \(error)") }
        return "\(strong ? "strong" : "weak") focus on detection \(id)"
    }

    /// The robust disparity at `p`, or a clear error.
    private func disparity(at p: NormalizedPoint, command: String) throws -> Double {
        guard let map = lastMap else {
            throw NodeCommandError("\(command): no disparity yet (connect the disparity input)")
        }
        guard let d = map.robustDisparity(at: p) else {
            throw NodeCommandError("\(command): no valid disparity at \(p)")
        }
        return d
    }

    private mutating func fixed(at p: NormalizedPoint, strong: Bool, command: String) throws -> String {
        let d = try disparity(at: p, command: command)
        engine.focus(atDisparity: d, strong: strong)
        return "\(strong ? "strong" : "weak") fixed focus at disparity \(Self.rounded(d))"
    }

    /// Tracking focus at `p`: a new salient object (replacing the previous one). With
    /// `fallback` (a tap), no video or no object there gives weak fixed focus at the point.
    private mutating func track(at p: NormalizedPoint, strong: Bool, fallback: Bool) throws -> String {
        let command = fallback ? "tap" : "track"
        guard let image = lastVideo else {
            guard fallback else {
                throw NodeCommandError("track: needs the video input to find the object at \(p); connect video")
            }
            return "no video input: " + (try fixed(at: p, strong: false, command: command))
        }
        salient.removeAll()
        guard let found = salient.start(at: p, disparity: lastMap, luma: image) else {
            guard fallback else {
                throw NodeCommandError("track: no object at \(p) (the background, or too small or plain to follow); try fixed")
            }
            return "no object at \(p): " + (try fixed(at: p, strong: false, command: command))
        }
        engine.track(found, strong: strong)
        return "\(strong ? "strong" : "weak") tracking focus on salient object \(found.id) at \(p)"
    }

    private static func rounded(_ d: Double) -> Double { (d * 10).rounded() / 10 }
}

extension FocusFollow: ParameterEnum {}
