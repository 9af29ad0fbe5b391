// SyntheticCameraNode: the built-in stereo camera — a rendered 3-D scene with exact
// ground-truth disparity, for demos, tests and machines without a camera.
import CineGraph
import CineMedia
import CineVision
import Foundation

/// Kind `synthetic`: a deterministic stereo camera rendering a moving scene.
public struct SyntheticCameraNode: Node {
    public static let kind = "synthetic"
    public static let summary = "A synthetic stereo camera: a moving 3-D scene with subjects and exact disparity."
    public static let details = """
        Renders textured fronto-parallel layers at known depths (a far wall, mid-ground \
        objects) and person-like subjects with face-like patterns that enter, cross and leave. \
        Deterministic by `seed`: the same seed gives the same frames, byte for byte. \
        With `live: true` frames are paced at `fps` in real time and edges downstream behave as \
        live edges (drop-oldest); with `live: false` frames are rendered as fast as the graph \
        consumes them and nothing is dropped. Views are I420, like a real camera's.

        `disparity` is the exact ground truth: disparity in pixels of the full-resolution left \
        view, d = f·B/Z with f = (width/2)/tan(fov/2).
        """

    @Output("Both views of each instant") public var stereo: StereoFrame
    @Output(formats: [.i420], "The left (reference) view") public var left: Image
    @Output(formats: [.i420], "The right view") public var right: Image
    @Output("Exact ground-truth disparity of the left view (float32, full resolution)") public var disparity: DisparityMap
    @Output("Ground-truth detections: each subject's face (while it faces the camera; confidence = the share in view) and body") public var detections: Detections
    @Output("What a microphone in the scene hears over each frame's interval, 48 kHz mono: a talk scene's voices (in step with the mouths) over the room's hiss")
    public var sound: AudioBlock

    @Parameter(default: FrameSize(width: 1920, height: 1080), "Size of each view") public var size: FrameSize
    @Parameter(default: 30, range: 1...240, "Frames per second") public var fps: Double
    @Parameter(default: 1, range: 0...Int.max, "Scene seed: same seed, same frames") public var seed: Int
    @Parameter(default: 0.065, range: 0.001...1, "Stereo baseline in metres") public var baseline: Double
    @Parameter(default: 60, range: 10...150, "Horizontal field of view in degrees") public var fov: Double
    @Parameter(default: .seconds(0), range: .zero ... .seconds(86_400), "Stop after this long (0 = until stopped; the scene repeats)") public var duration: Duration
    @Parameter(default: true, "Pace frames in real time like a camera") public var live: Bool
    @Parameter(default: 0.01, range: 0...0.2, "Sensor noise (fraction of full scale)") public var noise: Double
    @Parameter(default: 3, range: 0...8, "Number of subjects that walk through") public var subjects: Int
    @Parameter(default: false, "Props to track: a ball rolled along the sideboard and a cup the first subject carries") public var props: Bool
    @Parameter(default: false,
               "A showcase: the first subject holds a cup in their hand and raises it toward the lens at seeded times to show it (implies props; the truth detections include the cup, type salientObject, ID 101)")
    public var showcase: Bool
    @Parameter(default: false,
               "A talk scene: the subjects stand side by side facing the camera and take turns speaking by a seeded script (mouths move with the syllables; the truth detections say who is speaking)")
    public var talk: Bool
    @Parameter(default: false,
               "A wide shot: whole figures walk across a courtyard 12–38 m away (50–150 px tall at 720p), legs and arms swinging, in front of a wall at 60 m (the truth detections' bodies are head to feet)")
    public var wide: Bool
    @Parameter(default: .seconds(0), range: .zero ... .seconds(86_400), "When the light drops (0 = never)") public var lightDropAt: Duration
    @Parameter(default: .seconds(3), range: .zero ... .seconds(3600), "How long the light stays low") public var lightDropFor: Duration
    @Parameter(default: 0.1, range: 0...1, "Light level during the drop (1 = normal)") public var lightDropLevel: Double

    private var scene: SyntheticScene?
    private var index = 0

    public init() {}

    public var isLive: Bool { live }

    public func validate() throws {
        if size.width % 2 != 0 || size.height % 2 != 0 {
            throw ParameterError("size", "\(size) has an odd side; I420 views need even sizes")
        }
        if size.width < 64 || size.height < 64 { throw ParameterError("size", "\(size) is smaller than 64x64") }
    }

    public mutating func start(_ ctx: inout NodeContext) throws {
        var c = SyntheticScene.Configuration(width: size.width, height: size.height, fps: fps, seed: UInt64(seed))
        c.baseline = baseline
        c.fieldOfViewDegrees = fov
        c.noise = noise
        c.subjectCount = subjects
        c.props = props
        c.talk = talk
        c.showcase = showcase
        c.wide = wide
        if lightDropAt.seconds > 0 {
            c.lightDrop = SyntheticScene.LightDrop(start: lightDropAt.seconds, duration: lightDropFor.seconds,
                                                   level: lightDropLevel)
        }
        scene = SyntheticScene(c)
    }

    /// Subject `k` has face ID `2k + 1` and body ID `2k + 2`, grouped under `k + 1`; a face is
    /// reported only while it faces the camera (a detector sees no face from behind), with the
    /// share of it in view as its confidence (the frame's edge and nearer subjects hide the rest).
    static func detections(_ subjects: [SyntheticSubject], talk: Bool = false) -> Detections {
        var out: Detections = []
        for s in subjects {
            if s.facingCamera && s.faceVisibleFraction > 0 {
                var face = Detection(id: 2 * s.id + 1, groupID: s.id + 1, type: .humanFace, bounds: s.face,
                                     confidence: s.faceVisibleFraction, disparity: s.disparity)
                if talk {
                    face.speaking = s.speaking
                    face.speakingScore = s.speaking ? 1 : 0
                }
                out.append(face)
            }
            out.append(Detection(id: 2 * s.id + 2, groupID: s.id + 1, type: .humanBody, bounds: s.body,
                                 disparity: s.disparity))
        }
        return out
    }

    public mutating func process(_ ctx: inout NodeContext) throws {
        guard let scene else { return }
        let t = Timestamp(frame: index, fps: fps)
        if duration.seconds > 0 && t.seconds >= duration.seconds - 1e-9 {
            ctx.endOfStream()
            return
        }
        if live { ctx.pace(until: t) }
        let l = ctx.pool.makeImage(width: size.width, height: size.height, format: .i420)
        let r = ctx.pool.makeImage(width: size.width, height: size.height, format: .i420)
        let truth = ctx.isConnected($disparity)
            ? ctx.pool.makeImage(width: size.width, height: size.height, format: .float32) : nil
        scene.render(frame: index, left: l, right: r, groundTruth: truth)
        ctx.timestamp = t
        StereoOutputs.assign(l, r, left: _left, right: _right, stereo: _stereo, ctx)
        if let truth {
            disparity = DisparityMap(values: truth, referenceWidth: size.width, referenceHeight: size.height)
        }
        if ctx.isConnected($sound) {
            let rate = 48_000
            let first = Int((t.seconds * Double(rate)).rounded())
            let next = Int((Timestamp(frame: index + 1, fps: fps).seconds * Double(rate)).rounded())
            sound = AudioBlock(samples: scene.sound(first: first, count: next - first, sampleRate: rate), sampleRate: rate,
                               start: Timestamp(seconds: Double(first) / Double(rate)))
        }
        if ctx.isConnected($detections) {
            detections = Self.detections(scene.subjects(at: t.seconds), talk: talk)
            if showcase {
                for p in scene.props(at: t.seconds) where p.kind == .cup && p.visibleFraction > 0 {
                    detections.append(Detection(id: p.id, groupID: p.id, type: .salientObject, bounds: p.bounds,
                                                confidence: p.visibleFraction, disparity: p.disparity))
                }
            }
        }
        index += 1
    }
}
