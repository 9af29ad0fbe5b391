// FocusNode: the `focus` node — the automatic focus engine and the user's focus commands
// between the detections and the bokeh renderer (docs/focus.md).
import CineGraph
import CineMedia
import CineVision

/// Kind `focus`: chooses what to focus on in each frame and racks focus to it.
public struct FocusNode: Node {
    public static let kind = "focus"
    public static let summary = "Automatic and user focus decisions, with rack focus and lookahead."
    public static let details = """
        Scores the subjects of each frame (a face towards the camera, size, nearness, centrality, \
        persistence, newness after a short `dwell`) and makes base decisions with hysteresis and a \
        minimum hold (`min-hold`); applies user decisions by the cinematic rules (a weak decision \
        holds until the next base decision, a strong one until the next user decision or until \
        its subject leaves); racks focus on an S-curve lasting 0.4–0.8 s by disparity distance \
        (`rack-speed`). With `lookahead` > 0 the outputs are delayed by that much — the packet at \
        instant T describes the frame at T − lookahead, so delay the video by the same amount — and \
        racks start early so focus lands at the decision time; frames still waiting at the end of \
        the stream are not output. `detections` (output) are the frame's detections with \
        focusMode weak (in focus, automatic or weak user) or strong. See docs/focus.md.
        """
    public static let commands: [CommandDescription] = [
        CommandDescription(
            "focus", arguments: "id=N [strong=true]", "Tracking focus on detection N of the newest frame"),
        CommandDescription(
            "fixed", arguments: "point=X,Y [strong=true]",
            "Fixed focus on the plane at normalised point (X, Y) (needs the disparity input)"),
        CommandDescription("auto", "Remove every user decision: automatic focus resumes"),
        CommandDescription("aperture", arguments: "value=F", "Set the simulated aperture (f-number, 1...22)"),
    ]

    @Input("Detections of each frame") public var detections: Detections
    @OptionalInput("Disparity of each frame (fixed focus at a point; where focus rests before any subject)")
    public var disparity: DisparityMap?
    @Output("Focus of each frame (after the lookahead)") public var focus: FocusState
    /// The frame's detections with their focus modes; its label maps to the config name
    /// `detections`, like the input (Swift cannot have two properties named `detections`).
    private let _Detections = Output<Detections>("Detections of each frame with focusMode set (after the lookahead)")

    @Parameter(default: .seconds(0), "Decisions known this far ahead: outputs are delayed by it (0 = live)")
    public var lookahead: Duration
    @Parameter(default: 4.5, range: 1...22, "Simulated aperture (f-number), passed on in the focus state")
    public var aperture: Double
    @Parameter(default: 60, range: 1...100_000, "Rack speed in disparity pixels per second (racks last 0.4–0.8 s)")
    public var rackSpeed: Double
    @Parameter(default: .seconds(1), "Shortest time an automatic decision holds") public var minHold: Duration
    @Parameter(default: .milliseconds(500), "How long a newcomer must be seen before it gets focus")
    public var dwell: Duration

    private var engine = FocusEngine()
    private var lastMap: DisparityMap?

    public init() {}

    public func validate() throws {
        if lookahead.seconds < 0 || lookahead.seconds > 10 { throw ParameterError("lookahead", "must be 0...10 s") }
        if minHold.seconds < 0 { throw ParameterError("min-hold", "must not be negative") }
        if dwell.seconds < 0 { throw ParameterError("dwell", "must not be negative") }
    }

    public mutating func start(_ ctx: inout NodeContext) throws {
        var c = FocusEngineConfiguration()
        c.lookahead = lookahead.seconds
        c.rack.speed = rackSpeed
        c.minimumHold = minHold.seconds
        c.dwell = dwell.seconds
        c.recordsFrames = false  // a live graph runs for hours: keep decisions only
        engine = FocusEngine(configuration: c, fNumber: aperture)
    }

    public mutating func process(_ ctx: inout NodeContext) throws {
        if engine.script.fNumber != aperture { try engine.setFNumber(aperture) }
        lastMap = disparity
        let centre = disparity.flatMap { Self.robustDisparity($0, x: 0.5, y: 0.5) }
        let out = engine.ingest(time: ctx.timestamp, detections: detections, sceneDisparity: centre)
        if let o = out.last {
            focus = o.focus
            _Detections.wrappedValue = o.detections
        }
    }

    public mutating func handle(_ command: NodeCommand, _ ctx: inout NodeContext) throws -> String {
        let strong = command.arguments["strong"] == "true"
        switch command.name {
        case "focus":
            guard let id = command.arguments["id"].flatMap({ Int($0) }) else {
                throw NodeCommandError("focus: give id=N (a detection id of the current frame)")
            }
            do { try engine.focus(onDetection: id, strong: strong) } catch { throw NodeCommandError("focus: \(error)") }
            return "\(strong ? "strong" : "weak") focus on detection \(id)"
        case "fixed":
            let parts = (command.arguments["point"] ?? "").split(separator: ",").compactMap { Double($0) }
            guard parts.count == 2, (0...1).contains(parts[0]), (0...1).contains(parts[1]) else {
                throw NodeCommandError("fixed: give point=X,Y with X and Y in 0...1")
            }
            guard let map = lastMap else {
                throw NodeCommandError("fixed: no disparity yet (connect the disparity input)")
            }
            guard let d = Self.robustDisparity(map, x: parts[0], y: parts[1]) else {
                throw NodeCommandError("fixed: no valid disparity at \(parts[0]),\(parts[1])")
            }
            engine.focus(atDisparity: d, strong: strong)
            return "\(strong ? "strong" : "weak") fixed focus at disparity \(d)"
        case "auto":
            engine.resumeAutomatic()
            return "automatic focus"
        case "aperture":
            guard let f = command.arguments["value"].flatMap({ Double($0) }) else {
                throw NodeCommandError("aperture: give value=F (an f-number)")
            }
            do { try engine.setFNumber(f) } catch { throw NodeCommandError("aperture: \(error)") }
            aperture = f
            return "aperture f/\(f)"
        default:
            throw NodeCommandError("focus has no command '\(command.name)'; try focus, fixed, auto or aperture")
        }
    }

    /// The median of the valid disparities on a 5×5 grid 2 % of the frame wide around (x, y).
    static func robustDisparity(_ map: DisparityMap, x: Double, y: Double) -> Double? {
        var samples: [Float] = []
        samples.reserveCapacity(25)
        for j in -2...2 {
            for i in -2...2 {
                let sx = min(1, max(0, x + Double(i) * 0.005)), sy = min(1, max(0, y + Double(j) * 0.005))
                if let v = map.disparity(atNormalized: sx, sy), v > 0 { samples.append(v) }
            }
        }
        guard !samples.isEmpty else { return nil }
        samples.sort()
        return Double(samples[samples.count / 2])
    }
}
