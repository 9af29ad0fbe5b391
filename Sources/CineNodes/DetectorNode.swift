// DetectorNode: kind `detector` — faces by a learned model (BlazeFace through LiteRT) or by
// cascades, bodies and cats by cascades, every N frames, tracking in between, stable IDs,
// face↔body groups, facing, disparity, and salient objects at a tapped point (a thin adapter
// over CineVision).
import CineGraph
import CineInference
import CineMedia
import CineVision
import Foundation

/// Kind `detector`: finds and tracks the focus candidates of each frame.
public struct DetectorNode: Node {
    public static let kind = "detector"
    /// Live takes: a detector behind the camera sends its last detections for the older frames.
    public static let carriesForward = true
    /// Who is where (and who is speaking) gives way after the depth under load.
    public static let carryOrder = CarryOrder.last
    /// In a live take under load, past the previews: detection less often, tracking (and the
    /// mouths) in between (``LoadController``).
    public static var adaptations: [NodeAdaptation] { [NodeAdaptation("every", factors: [1, 2, 3])] }
    public static let summary = "Detects and tracks faces, bodies, cat faces and salient objects with stable IDs."
    public static let details = """
        Faces come from MediaPipe's BlazeFace model run by LiteRT (`model: blazeface`, the \
        default: faces at any roll, tilted and in half profile), each checked by MediaPipe's \
        face landmark model (`landmark-model`): a box whose face-presence confidence is under \
        `face-presence` is dropped, and the 468 points give the head's yaw, so a head turned \
        past 50° is `facing: away` (`landmark-model: none` skips the check and reads the yaw from \
        BlazeFace's six keypoints), or from OpenCV cascades (`model: haar` or `lbp`). The model file is `face-model` (in \
        .models/, put there by scripts/fetch-models.sh; a path takes your own model of the \
        family). Cascades (read natively, same results as OpenCV's detectMultiScale) run on \
        the luma of every `every`-th frame, downscaled to `detect-width`, and tracks objects in \
        between (constant-velocity motion, ByteTrack-style two-pass IoU association gated by \
        disparity); every `full-every`-th detection scans the whole frame, the others only \
        around the tracked objects. With `spread` (the default) a detection's pyramid scales are \
        shared out over its `every` frames, so the cost is even from frame to frame. Types and their cascades (docs/detection.md): humanFace = \
        haarcascade_frontalface_default (+ haarcascade_profileface: looking away), humanBody = \
        haarcascade_upperbody (+ fullbody), catFace = haarcascade_frontalcatface; `cascades` adds \
        any XML as type `custom`. With `model: blazeface`, `humanBody` comes from BlazePose's \
        person detector instead (`pose-model`): a person found by the head, the body box from \
        the hips' and shoulders' points, grouped with their face by the tracker. Each detection has a stable `id`, a `groupID` tying a \
        person's face and body, `facing` (towards / away), for faces the landmark model reads \
        `speaking`, `speakingScore` and `speakingFor` (the inner lips opening and closing over the \
        last moments; `mouth-every` reads them between detections too; with the `sound` input a \
        face speaks only while a voice is heard, docs/speaker.md) and, with \
        a disparity map connected, a \
        robust disparity (median over the central half of the box, sticking to the previous \
        value). Command `track point=0.5,0.5` starts a salient object at a normalised point (needs \
        disparity); `untrack id=N` drops it.
        """
    public static let commands: [CommandDescription] = [
        CommandDescription("track", [.point], "Track the object at normalised point (X, Y) as a salient object; replies with its id"),
        CommandDescription("untrack", [CommandArgument("id", .integer(0...Int(Int32.max)), "a salient object's id")], "Stop tracking salient object N"),
    ]

    @Input(formats: [.gray8, .i420, .nv12], "Frames (the luma is used)") public var image: Image
    @OptionalInput("Disparity of each frame, for per-object disparity and salient objects") public var disparity: DisparityMap?
    @OptionalInput("Sound of each frame's interval (a camera's microphone, the synthetic camera's sound): a face counts as speaking only while a voice is heard and its mouth follows it, from its first clear opening; unconnected, or before the first sound, the lips decide alone")
    public var sound: AudioBlock?
    @Output("Tracked objects of each frame") public var detections: Detections

    @Parameter(default: ["humanFace"], "Object types: humanFace, humanBody, catFace") public var types: [String]
    @Parameter(default: [], "Extra cascade XML files, reported as type custom") public var cascades: [String]
    @Parameter(default: .blazeface,
               "Face model: blazeface (learned, LiteRT), or the cascade family haar or lbp (bodies and cats are always Haar cascades)")
    public var model: DetectorModel
    @Parameter(default: "face_detection_short_range.tflite",
               "BlazeFace model file (a name in .models/ or a path): short range (128×128; with tiles, faces at any distance) or face_detection_full_range_sparse.tflite (192×192, faces up to ~5 m in one input)")
    public var faceModel: String
    @Parameter(default: 0.5, range: 0.05...0.99, "Smallest BlazeFace confidence kept") public var faceScore: Double
    @Parameter(default: "face_landmark.tflite",
               "Face landmark model checking each face and giving its head pose (a name in .models/ or a path; none = no check)")
    public var landmarkModel: String
    @Parameter(default: 0.5, range: 0...1, "Smallest face-presence confidence of the landmark model kept") public var facePresence: Double
    @Parameter(default: "pose_detection.tflite",
               "Person detector for humanBody with model blazeface (BlazePose's; a name in .models/ or a path)")
    public var poseModel: String
    @Parameter(default: .both,
               "Bodies with model blazeface: both (BlazePose's person detector for people near the lens, HOG for people standing or walking from body-height up, whichever way they face), blazepose or hog")
    public var bodyModel: BodyModel
    @Parameter(default: "hog_people_default.f32", "HOG people detector's coefficients (a name in .models/ or a path; OpenCV's default people detector, written by scripts/fetch-models.sh)")
    public var hogModel: String
    @Parameter(default: 48, range: 16...720, "Smallest person HOG looks for, head to feet, in pixels of a 720-line frame (scaled with the frame's height: 72 px at 1080p). HOG's cost goes with (frame height / body-height)²: about 200 ms a detection on two cores at 48, 50 ms at 96")
    public var bodyHeight: Int
    @Parameter(default: 0, range: -2...4, "HOG score a person needs to start a track (OpenCV's hitThreshold); windows up to 0.55 under it keep tracked people (ByteTrack's second pass)")
    public var bodyScore: Double
    @Parameter(default: 2, range: 0...8,
               "BlazeFace tiles to the frame's short side (overlapping squares, so faces in a wide shot are big enough; 0 = the whole frame at once)")
    public var faceTiles: Int
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
    @Parameter(default: 45, range: 1...1000, "Detection rounds an unseen object keeps its ID (45: 4.5 s at every 3; a head turned away for a few seconds keeps its face ID)") public var maxMisses: Int
    @Parameter(default: 0, range: 0...120,
               "Between detections, read the tracked faces' mouths every N frames with the landmark model alone (about 2 ms a face), so who is speaking is known sooner (0 = at detections only)")
    public var mouthEvery: Int
    @Parameter(default: 2, range: 1...64, "Cores the detector may use") public var threads: Int
    @Parameter(default: false,
               "Notice something held up to the lens: a region of the disparity map nearer than a face by 40 % of its disparity, within the person's reach, reported as a salientObject detection with shown: true (a new ID each showing, in the holder's group); the focus node racks to it and back when it is lowered. Without the disparity input (one lens), a hand the palm detector (`palm-model`) finds within a face's reach whose apparent size says it is 40 % nearer than the face; the detection carries that nearness for mono-depth (docs/showcase.md)")
    public var showcase: Bool
    @Parameter(default: true,
               "Keep a confirmed walker through the detection rounds the body detector misses them, by the look of their head and shoulders (BodyFollower; up to 15 rounds in a row)")
    public var followBodies: Bool
    @Parameter(default: true,
               "Judge a body detector's box by the height a person standing where its feet are has, learnt from the walkers confirmed so far once 40 boxes of 3 walkers lie on one line (a still camera looking at a floor): refused under 0.6 or over 1.35 of it, else its height moved half-way to it; HOG's windows of a refused height are dropped before they are grouped (StandingHeights)")
    public var standingHeights: Bool
    @Parameter(default: "palm_detection_lite.tflite",
               "Palm detector for showcase without a disparity map (MediaPipe Hands'; a name in .models/ or a path)")
    public var palmModel: String

    private var detector: CascadeMultiDetector?
    private var faces: BlazeFaceDetector?
    private var landmarker: FaceLandmarker?
    private var people: PoseDetector?
    /// Hands, for `showcase` without a disparity map (loaded with `showcase`: a graph may run
    /// without its map).
    private var palms: PalmDetector?
    /// What the palms showed when last looked at (one lens: reported until the next look).
    private var lastShown: ShowcaseFinder.Shown?
    private var walkers: HOGPersonDetector?
    /// HOG's scan in progress (spread over the frames up to the next detection) and the pose
    /// detector's bodies it must not repeat.
    private var pendingWalkers: (round: HOGPersonDetector.Round, poseBodies: [NormalizedRect])?
    /// What the learned models (faces, bodies) found at the start of a detection spread over
    /// frames, handed over with the cascades' when it completes.
    private var pendingLearned: [TrackerObservation] = []
    private var tracker = ObjectTracker()
    /// Walkers kept between the body detector's hits (with `follow-bodies`).
    private var follower = BodyFollower()
    /// How tall a person standing at each row is (with `standing-heights`).
    private var heights = StandingHeights()
    /// Who is speaking, from the faces' mouths (with the landmark model).
    private var speakers = SpeakingDetector()
    /// Whether a voice is heard (with the `sound` input).
    private var voice = VoiceActivityDetector()
    private var salient: [Int: Double] = [:]
    /// The instant (``NodeContext/frameIndex``, which counts the instants carried forward too) of
    /// the last detection: a detector whose frames were carried under load detects again on the
    /// first frame it computes after `every` instants, not after `every` computed frames.
    private var lastDetection: Int?
    private var round = 0
    /// The detection in progress when it is spread over frames.
    private var pending: CascadeMultiDetector.Round?
    /// Something held up to the lens (with `showcase`).
    private var showcaseFinder = ShowcaseFinder()
    /// The faces seen in the last second, by ID: a face hidden by what it holds up still holds it.
    private var recentFaces: [Int: (face: Detection, seconds: Double)] = [:]
    /// The showing in progress and the ID it is reported under.
    private var shownID: (showing: Int, id: Int)?
    /// The face ID of whoever holds up what is shown now.
    private var shownHolder: Int?
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
            _ = try makeFaceDetector()
        } catch let e as CascadeError {
            throw ParameterError(cascades.contains(e.file) ? "cascades" : "types", e.description)
        } catch let e as InferenceError {
            throw ParameterError("face-model", e.description)
        }
        do { _ = try makeLandmarker() } catch let e as InferenceError { throw ParameterError("landmark-model", e.description) }
        do { _ = try makePoseDetector() } catch let e as InferenceError { throw ParameterError("pose-model", e.description) }
        do { _ = try makeWalkers() } catch let e as InferenceError { throw ParameterError("hog-model", e.description) }
        do { _ = try makePalms() } catch let e as InferenceError { throw ParameterError("palm-model", e.description) }
    }

    private func makePalms() throws -> PalmDetector? {
        showcase ? try PalmDetector(file: palmModel, threads: threads) : nil
    }

    private func makeWalkers() throws -> HOGPersonDetector? {
        learnedBodies && bodyModel != .blazepose ? try HOGPersonDetector(file: hogModel) : nil
    }

    /// HOG's settings: a low threshold, so that weak windows can keep a tracked person (their
    /// confidence under the tracker's 0.5 that starts a track).
    private func hogParameters(height: Int) -> HOGPersonDetector.Parameters {
        var p = HOGPersonDetector.Parameters()
        p.smallest = max(8, bodyHeight * height / 720)
        p.threshold = bodyScore - 0.55
        p.threads = threads
        return p
    }

    private func makeLandmarker() throws -> FaceLandmarker? {
        learnedFaces && landmarkModel != "none" ? try FaceLandmarker(file: landmarkModel, threads: threads) : nil
    }

    /// Whether faces come from BlazeFace rather than cascades.
    private var learnedFaces: Bool { model == .blazeface && types.contains(DetectionType.humanFace.rawValue) }
    /// Whether bodies come from BlazePose's person detector rather than cascades.
    private var learnedBodies: Bool { model == .blazeface && types.contains(DetectionType.humanBody.rawValue) }

    private func makePoseDetector() throws -> PoseDetector? {
        learnedBodies && bodyModel != .hog ? try PoseDetector(file: poseModel, threads: threads) : nil
    }

    private func makeFaceDetector() throws -> BlazeFaceDetector? {
        learnedFaces ? try BlazeFaceDetector(file: faceModel, threads: threads) : nil
    }

    /// The cascades: every type but the faces BlazeFace finds; nil when none is left.
    private func makeDetector() throws -> CascadeMultiDetector? {
        let cascadeTypes = types.filter {
            !(learnedFaces && $0 == DetectionType.humanFace.rawValue) && !(learnedBodies && $0 == DetectionType.humanBody.rawValue)
        }
        guard !cascadeTypes.isEmpty || !cascades.isEmpty else { return nil }
        return try CascadeMultiDetector(
            types: cascadeTypes, extraCascades: cascades, catalog: model == .lbp ? .lbp : .standard, profiles: profiles,
            detectWidth: detectWidth,
            parameters: CascadeDetector.Parameters(scaleFactor: scaleFactor, minNeighbors: minNeighbors, minWidth: minSize,
                                                   minHeight: minSize, threads: threads))
    }

    public mutating func start(_ ctx: inout NodeContext) throws {
        detector = try makeDetector()
        faces = try makeFaceDetector()
        landmarker = try makeLandmarker()
        people = try makePoseDetector()
        walkers = try makeWalkers()
        palms = try makePalms()
        var c = ObjectTracker.Configuration()
        c.maxMisses = maxMisses
        // The tracker's rounds of standing still are a second at every 3rd frame; the same
        // second when the detector runs more or less often (`cinegraph detect` runs it on
        // every frame of a movie).
        c.stillRounds = max(1, c.stillRounds * 3 / every)
        tracker = ObjectTracker(configuration: c)
        follower = BodyFollower()
        heights = StandingHeights()
    }

    public mutating func process(_ ctx: inout NodeContext) throws {
        // A map carried from an earlier frame no longer shows where a person who moved stands:
        // objects keep the disparity they had rather than read the wall behind their new place.
        let map = ctx.isCarried($disparity) ? nil : disparity
        // The voice first: each mouth read below is matched against how loud it was.
        var heard: VoiceActivityDetector.Voice?
        if let sound {
            voice.feed(sound)
            voice.forget(before: ctx.timestamp.seconds - 5)
            heard = voice.latest(at: ctx.timestamp.seconds)  // a microphone's sound may lag its frame a little
        }
        var completed: [TrackerObservation]?
        if image.height > 0 { tracker.configuration.frameAspect = Double(image.width) / Double(image.height) }
        if lastDetection.map({ ctx.frameIndex - $0 >= every }) ?? true {
            lastDetection = ctx.frameIndex
            // The learned models see the whole frame in a few milliseconds: no spreading.
            let learned = faces != nil || people != nil || walkers != nil
            if learned { pendingLearned = [] }
            var poseBodies: [NormalizedRect] = []
            if let people {
                for p in try people.detect(image) {
                    var o = TrackerObservation(type: .humanBody, bounds: p.body, confidence: p.score, facing: .unknown)
                    o.appearance = PersonAppearance.measure(in: image, bounds: p.body)
                    pendingLearned.append(o)
                    poseBodies.append(p.body)
                }
            }
            if let walkers { pendingWalkers = (walkers.begin(image, parameters: hogParameters(height: image.height), parts: spread ? every : 1), poseBodies) }
            if let faces {
                let detected = try faces.detect(image, tiles: faceTiles)
                let checked: [(face: BlazeFaceDetection, facing: Facing, mouth: Double?)] =
                    try landmarker?.confirmed(detected, in: image, minScore: faceScore, minPresence: facePresence)
                    .map { ($0.face, $0.mesh.pose.facing, FaceMesh.mouthOpening($0.mesh)) }
                    ?? detected.filter { $0.score >= faceScore }.map { ($0, $0.facing, nil) }
                for (f, facing, mouth) in checked {
                    pendingLearned.append(TrackerObservation(type: .humanFace, bounds: f.bounds, confidence: f.score, facing: facing,
                                                             mouthOpening: mouth))
                }
            }
            if learned && detector == nil && pendingWalkers == nil { completed = pendingLearned }
            if let detector {
                let tracked = tracker.report().filter { $0.type != .salientObject }.map(\.bounds)
                let full = round % fullEvery == 0 || tracked.isEmpty
                pending = try detector.begin(image, around: full ? nil : tracked, parts: spread ? every : 1)
            }
            round += 1
        }
        if var w = pendingWalkers, let walkers {
            walkers.scan(image, into: &w.round)
            pendingWalkers = w.round.isComplete ? nil : w
            if w.round.isComplete {
                // Windows of a height no one standing there has are dropped before grouping.
                let heights = heights
                let keep: ((NormalizedRect) -> Bool)? = standingHeights ? { heights.allows($0) } : nil
                // Only BlazePose's boxes the line allows hide HOG's: a refused one is dropped later,
                // and would take HOG's box on the same person with it.
                let poseBodies = standingHeights ? w.poseBodies.filter { heights.allows($0) } : w.poseBodies
                for p in HOGPersonDetector.unseen(walkers.finish(w.round, keeping: keep), by: poseBodies) {
                    // The threshold (body-score) maps to the tracker's 0.5; 0.55 under it to 0.1.
                    let confidence = 1 / (1 + exp(-4 * (p.score - bodyScore)))
                    var o = TrackerObservation(type: .humanBody, bounds: p.bounds, confidence: confidence, facing: .unknown)
                    o.mustMove = true  // HOG also likes poles and door frames
                    o.appearance = PersonAppearance.measure(in: image, bounds: p.bounds)
                    pendingLearned.append(o)
                }
                if detector == nil { completed = pendingLearned }
            }
        }
        if var r = pending, let detector {
            try detector.scan(image, into: &r)
            pending = r.isComplete ? nil : r
            if r.isComplete && pendingWalkers == nil { completed = pendingLearned + r.observations }
        }
        let seconds = ctx.timestamp.seconds
        if let completed {
            _ = tracker.update(standingHeights ? heights.judged(completed) : completed, disparity: map)
            if followBodies && types.contains(DetectionType.humanBody.rawValue) { follower.round(image, tracker: &tracker) }
            if standingHeights { heights.round(tracker: &tracker) }
            for m in tracker.mouthOpenings() {
                speakers.observe(id: m.id, time: seconds, opening: m.opening, voiceLevel: heard?.level)
            }
            speakers.forget(before: seconds - 10)
        } else {
            _ = tracker.predict(disparity: map)
            if mouthEvery > 0, let landmarker, ctx.frameIndex % mouthEvery == 0 {
                // The landmark model alone on each tracked face: its mouth, for the speaking detector.
                for d in tracker.report() where d.type == .humanFace && d.facing != .away {
                    let m = try landmarker.mesh(in: d.bounds, of: image)
                    if m.presence >= facePresence {
                        speakers.observe(id: d.id, time: seconds, opening: FaceMesh.mouthOpening(m), voiceLevel: heard?.level)
                    }
                }
            }
        }
        if let map {
            let finder = SalientObjectFinder()
            for id in salient.keys.sorted() {
                guard let s = tracker.state(of: id) else { salient[id] = nil; continue }
                let r = finder.find(atNormalized: s.bounds.x + s.bounds.width / 2, s.bounds.y + s.bounds.height / 2,
                                    disparity: map, luma: image, seedDisparity: s.disparity ?? salient[id])
                tracker.updateSalientObject(id: id, bounds: r?.bounds, disparity: r?.disparity)
            }
        }
        last = (image, disparity)
        detections = tracker.report()
        let states = speakers.states(of: detections.filter { $0.type == .humanFace }.map(\.id), at: seconds, voice: heard?.active)
        for i in detections.indices where detections[i].type == .humanFace {
            guard let s = states[detections[i].id] else { continue }
            detections[i].speaking = s.speaking
            detections[i].speakingScore = s.score
            detections[i].speakingFor = s.speaking ? s.evidence : nil
        }
        if showcase { try reportShown(seconds, image: image, detecting: lastDetection == ctx.frameIndex) }
    }

    /// Appends the object held up to the lens, if any, to this frame's detections. Uses the map
    /// even when carried from an earlier frame (a shown object moves slowly); without a map, the
    /// hands found at the last detection (`detecting`: this frame's).
    private mutating func reportShown(_ seconds: Double, image: Image, detecting: Bool) throws {
        for d in detections where d.type == .humanFace { recentFaces[d.id] = (d, seconds) }
        // The holder's face stays while they show something (it may hide their face).
        // One lens keeps faces longer: a hand held up hides the face the palm is measured against.
        let keep: Double = disparity == nil ? 3 : 1
        recentFaces = recentFaces.filter { seconds - $0.value.seconds <= keep || $0.key == shownHolder }
        let faces = recentFaces.values.map(\.face).sorted { $0.id < $1.id }
        let shown: ShowcaseFinder.Shown?
        if disparity == nil, let palms {
            // Hands are looked for at each detection, and at every frame while one is held up
            // or about to be confirmed.
            if detecting || showcaseFinder.isWatching {
                let hands = try palms.detect(image, in: faces.map(showcaseFinder.reach))
                lastShown = showcaseFinder.update(palms: hands, faces: faces, width: image.width, height: image.height)
            }
            shown = lastShown
        } else {
            shown = showcaseFinder.update(map: disparity, faces: faces)
        }
        shownHolder = shown?.found.holder
        guard let s = shown else { return }
        if shownID?.showing != s.showing { shownID = (s.showing, tracker.reserveID()) }
        let id = shownID?.id ?? 0
        // In its holder's group: focus goes back to them when it is lowered.
        let group = recentFaces[s.found.holder]?.face.groupID ?? id
        var d = Detection(id: id, groupID: group, type: .salientObject, bounds: s.found.bounds, confidence: 1,
                          disparity: s.found.disparity)
        d.shown = true
        d.nearness = s.found.nearness
        detections.append(d)
    }

    public mutating func handle(_ command: NodeCommand, _ ctx: inout NodeContext) throws -> String {
        switch command.name {
        case "track":
            let (x, y) = command.point("point")!
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
            let id = command.integer("id")!
            salient[id] = nil
            tracker.remove(id: id)
            return "ok"
        default:
            throw NodeCommandError("detector has no command '\(command.name)'")  // refused before, by the declaration
        }
    }
}

/// Where a `detector` node's bodies come from, with the learned face model.
public enum BodyModel: String, ParameterEnum {
    /// BlazePose's person detector for people near the lens (found by their heads) and HOG for
    /// people standing or walking farther away, whichever way they face.
    case both
    /// BlazePose's person detector only.
    case blazepose
    /// The HOG people detector only.
    case hog
}

/// Where a `detector` node's faces come from: a learned model, or a cascade family.
public enum DetectorModel: String, ParameterEnum {
    /// MediaPipe's BlazeFace run by LiteRT (faces); cascades for the other types.
    case blazeface
    /// OpenCV's Haar cascades (haarcascade_frontalface_default, …).
    case haar
    /// OpenCV's LBP cascades where there is one (lbpcascade_frontalface_improved, …).
    case lbp
}
