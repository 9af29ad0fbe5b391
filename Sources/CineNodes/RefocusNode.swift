// RefocusNode: decides focus again for a recorded take — the recording's automatic decisions plus
// the user's changes file — under the cinematic script's rules, with racks placed before each
// decision (in a recording, the whole future is known).
import CineGStreamer
import CineGraph
import CineMedia
import CineVision
import Foundation

/// Kind `refocus`: the focus of each frame of an asset, from its script and a changes file.
public struct RefocusNode: Node {
    public static let kind = "refocus"
    public static let summary = "Re-decides focus for a recorded asset: recorded decisions plus a changes file."
    public static let details = """
        Reads the asset's metadata track at start and rebuilds its cinematic script: every \
        frame's detections, and a base decision wherever the recorded focus changed subject. \
        The user decisions of `changes` (written by `cinegraph script`) are added, and the rules \
        of docs/focus.md say which decision holds when: a weak decision until the next automatic \
        one, a strong one until the next user decision or until its subject leaves. Racks end \
        at the decision time — the recording knows the future, so focus anticipates. Feed it the \
        `detections` of an `asset-source` reading the same asset; it emits the focus of each frame \
        and the detections with their focus mode. `cinegraph render --changes` builds this graph.
        """

    @Input("Detections of each frame (from asset-source)") public var detections: Detections
    @Output("Focus of each frame") public var focus: FocusState
    @Output(name: "detections", "Detections with focusMode set by the decision in force")
    public var focusedDetections: Detections
    @Parameter(default: "", "The asset (.mkv) whose script is rebuilt") public var asset: String
    @Parameter(default: "", "Changes file from `cinegraph script` (empty: the recorded decisions only)")
    public var changes: String
    @Parameter(default: 0, range: 0...16, "Aperture (f-number 1.4...16; 0 = the changes file's, else the recording's)")
    public var aperture: Double

    private var script: CinematicScript?
    /// The script's effective decisions, computed once: the script does not change during a render.
    private var effective: [EffectiveFocusDecision] = []

    public init() {}

    public func validate() throws {
        if asset.isEmpty { throw ParameterError("asset", "no asset given") }
        if aperture != 0 && !CinematicScript.fNumberRange.contains(aperture) {
            let r = CinematicScript.fNumberRange
            throw ParameterError("aperture", "f/\(aperture) is outside f/\(r.lowerBound)...f/\(r.upperBound) (0 = keep)")
        }
    }

    public func preflight() throws {
        if !FileManager.default.fileExists(atPath: asset) { throw ParameterError("asset", "no such asset: \(asset)") }
        if !changes.isEmpty {
            do { _ = try ScriptChanges.load(contentsOf: changes) } catch { throw ParameterError("changes", "\(error)") }
        }
    }

    public mutating func start(_ ctx: inout NodeContext) throws {
        let (_, records) = try AssetTrackReader.readMetadata(path: asset)
        var script = try CinematicScript(records: records)
        if !changes.isEmpty {
            let edits: ScriptChanges
            do { edits = try ScriptChanges.load(contentsOf: changes) } catch { throw ParameterError("changes", "\(error)") }
            do { try edits.apply(to: &script) } catch { throw ParameterError("changes", "\(changes): \(error)") }
        }
        if aperture != 0 { try script.setFNumber(aperture) }
        self.script = script
        effective = script.effectiveDecisions()
        let user = script.decisions.filter { $0.kind.isUser }.count
        ctx.logger.info("script of \(records.count) frames, \(script.decisions.count - user) recorded decisions, \(user) user decisions")
    }

    public mutating func process(_ ctx: inout NodeContext) throws {
        guard let script else { return }
        let t = ctx.timestamp
        let moment = script.moment(at: t, effective: effective)
        let primary = moment.primary
        let located = primary.flatMap { d -> Detection? in
            guard case .detection(let id) = d.target else { return nil }
            return detections.first { $0.id == id } ?? script.frame(at: t)?.detections.first { $0.id == id }
        }
        let recorded = script.frame(at: t, tolerance: Timestamp(seconds: 0.02))?.focusDisparity
        let disparity = moment.disparity ?? recorded ?? 0
        let racking = moment.secondary != nil
        focus = FocusState(focusDisparity: disparity, fNumber: script.fNumber, targetDetectionID: located?.id,
                           transitionProgress: racking ? 0.5 : 1)
        let mode: FocusMode
        switch primary?.kind {
        case .weakUser: mode = .weak
        case .strongUser: mode = .strong
        default: mode = .none
        }
        focusedDetections = detections.map { d in
            var d = d
            d.focusMode = d.id == located?.id ? mode : .none
            return d
        }
    }
}
