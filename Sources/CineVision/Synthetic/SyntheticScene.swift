// SyntheticScene: a deterministic synthetic stereo camera — a moving 3-D scene of flat layers
// seen by a rectified stereo pair, rendered straight to I420 with exact disparity ground truth.
import CineMedia
import Dispatch
import Foundation

/// A moving scene seen by a rectified stereo camera, with exact ground truth; the same
/// configuration (seed included) always renders the same bytes.
///
/// **Camera.** Two pinhole cameras `baseline` metres apart, level, at eye height (1.45 m),
/// focal length `f = (width/2) / tan(fov/2)` pixels. A surface at depth Z has disparity
/// `d = f·B/Z`; a point at left-view x appears at `x − d` in the right view.
///
/// **Scene.** Fronto-parallel layers, drawn back to front, each at one depth:
/// - a brick wall at 10 m (irregular bricks, stains, grain: textured at every scale) with two
///   framed paintings;
/// - a sideboard with a row of books (≈ 4–4.6 m) and two concrete columns (3.4–5 m);
/// - `subjectCount` people (a textured torso, a neck, and a head showing a shaded face — eyes,
///   brows, nose, mouth — or the back of the head) at 1.3–3 m, who enter from a side, stroll
///   across and leave. Consecutive subjects overlap in time and pass each other at different
///   depths; subject 1 turns away for a while; with three or more, the last walks towards the
///   camera. See ``subjects(at:)``.
///
/// **Time.** Frame `i` shows time `i / fps`. The scene lasts `duration` seconds and then loops
/// (time is taken modulo `duration`; everybody has left before the end, so the loop is seamless).
/// The optional light drop dims luma and desaturates chroma smoothly. Sensor noise, if any, is
/// read from a precomputed table and differs per frame and per view.
///
/// **Exactness.** Every layer has one disparity, and its texture is sampled at fractional
/// positions with linear interpolation in the same fixed-point arithmetic in both views, so the
/// right view is each layer of the left view shifted by exactly `d` (byte-exact where `d` is an
/// integer, away from layer edges and occlusions). The ground truth is the disparity of the
/// front-most layer at every left-view pixel.
///
/// **Cost.** The camera and the set never move, so the set is painted once (on the first frame,
/// ``SceneBackground``) and every frame starts from a copy of it; only the people are painted
/// over it (the same bytes as painting the set each frame: `cachingTheSet: false` does that, and
/// a test compares the two). Per row, each layer's covered span is computed from its shape and
/// only that span is painted; rows are split into bands over all cores. This code allocates
/// nothing on the heap per frame after the first (the frame's layer list and scratch rows live on
/// the stack; libdispatch's `concurrentPerform` itself makes two small allocations). Two
/// 1920 × 1080 views cost 4.7 ms of CPU (2.5 ms on two cores) with people in view, 7.1 ms with
/// the ground truth; 19.1 ms when the set is painted every frame (`CineBench core`).
public struct SyntheticScene: Sendable {
    /// The configuration the scene was made from.
    public let configuration: Configuration
    let camera: StereoCameraModel
    let set: SceneSet
    let scripts: [SubjectScript]
    /// Who speaks when (talk scenes only).
    let talk: TalkScript?
    /// What a microphone in the scene hears (``sound(first:count:sampleRate:)``).
    let voice: SyntheticVoice
    /// When the cup is raised to be shown (showcase scenes only).
    public let showcase: ShowcaseScript?
    let noiseTable: SensorNoiseTable
    let library: SceneTextureLibrary
    /// The set painted once (made on the first frame); `nil` paints the set every frame.
    let backgroundCache: SceneBackgroundCache?

    /// Builds the scene. The configuration must be valid (see ``Configuration/validate()``).
    /// `cachingTheSet: false` paints the static set every frame instead of copying it (the same
    /// bytes, slower: for checking the cache).
    public init(_ configuration: Configuration, cachingTheSet: Bool = true) {
        do {
            try configuration.validate()
        } catch {
            preconditionFailure(error.description)
        }
        self.configuration = configuration
        library = SceneTextureLibrary.shared
        camera = StereoCameraModel(
            width: configuration.width, height: configuration.height,
            baseline: configuration.baseline,
            fieldOfViewDegrees: configuration.fieldOfViewDegrees)
        set = SceneSet(camera: camera, seed: configuration.seed, library: library, wide: configuration.wide)
        if configuration.wide {
            scripts = SubjectScript.walkers(
                count: configuration.subjectCount, duration: configuration.duration, seed: configuration.seed,
                characterCount: library.characters.count, clothingCount: library.clothing.count, camera: camera)
            talk = nil
        } else if configuration.talk {
            scripts = SubjectScript.standing(
                count: configuration.subjectCount, duration: configuration.duration, seed: configuration.seed,
                characterCount: library.characters.count, clothingCount: library.clothing.count, camera: camera)
            talk = TalkScript(speakers: configuration.subjectCount, duration: configuration.duration, seed: configuration.seed,
                              chewing: configuration.chewing)
        } else {
            scripts = SubjectScript.schedule(
                count: configuration.subjectCount, duration: configuration.duration,
                seed: configuration.seed, characterCount: library.characters.count,
                clothingCount: library.clothing.count)
            talk = nil
        }
        voice = SyntheticVoice(script: talk ?? TalkScript(speakers: 0, duration: 0, seed: 0),
                               speakers: configuration.subjectCount, seed: configuration.seed)
        showcase = configuration.showcase ? ShowcaseScript(duration: configuration.duration, seed: configuration.seed) : nil
        noiseTable = SensorNoiseTable(
            standardDeviation: configuration.noise * 255, width: configuration.width,
            seed: configuration.seed)
        backgroundCache = cachingTheSet ? SceneBackgroundCache() : nil
    }

    // MARK: Camera

    /// Focal length in pixels of the full-resolution views: `(width/2) / tan(fov/2)`.
    public var focalLengthPixels: Double { camera.focalLength }

    /// Disparity in full-resolution pixels of a surface `metres` away: `f·B/Z`.
    public func disparity(atDepth metres: Double) -> Double { camera.disparity(atDepth: metres) }

    /// Depth in metres of a surface with disparity `pixels`: `f·B/d`.
    public func depth(atDisparity pixels: Double) -> Double { camera.focalLength * camera.baseline / pixels }

    /// Depth of the backdrop wall, metres: the farthest surface, hence the smallest disparity.
    public var backdropDepth: Double { self.set.backdropDepth }

    // MARK: Time

    /// The number of frames in one pass of the scene: frames `0 ..< frameCount` have times below `duration`.
    public var frameCount: Int { Int((configuration.duration * configuration.fps - 1e-9).rounded(.up)) }

    /// The time of frame `index` in seconds (`index / fps`).
    public func time(ofFrame index: Int) -> Double { Double(index) / configuration.fps }

    /// `seconds` folded into one pass of the scene.
    private func sceneTime(_ seconds: Double) -> Double {
        let d = configuration.duration
        return seconds - d * (seconds / d).rounded(.down)
    }

    /// The light level at a time: 1 normally, down to the light drop's level during it, with
    /// smooth fades at both ends.
    public func lightLevel(at seconds: Double) -> Double {
        guard let drop = configuration.lightDrop, drop.duration > 0 else { return 1 }
        let t = sceneTime(seconds)
        let ramp = min(0.5, drop.duration / 4)
        let end = drop.start + drop.duration
        let fall = SceneTexturePatterns.smoothstep(drop.start, drop.start + ramp, t)
        let rise = SceneTexturePatterns.smoothstep(end - ramp, end, t)
        return 1 - (1 - drop.level) * fall * (1 - rise)
    }

    // MARK: Ground truth

    /// `script`'s pose at scene time `t`, its mouth open as far as the talk script says.
    private func pose(of script: SubjectScript, at t: Double) -> SubjectPose? {
        guard var pose = script.pose(at: t, camera: camera) else { return nil }
        if let talk { pose.mouthOpening = talk.mouthOpening(of: script.id, at: t) }
        return pose
    }

    /// The turns of a talk scene (``Configuration/talk``): who speaks from when to when, in
    /// scene seconds; empty for other scenes.
    public var speakingTurns: [(speaker: Int, start: Double, end: Double)] {
        talk?.turns.map { ($0.speaker, $0.start, $0.end) } ?? []
    }

    /// The subjects visible at a time, by id: face and body bounds in the left view
    /// (normalised, clipped to the frame), disparity, depth and whether they face the camera.
    ///
    /// A subject is listed from the first instant any part of it is inside the frame until it
    /// has left. Boxes are not reduced by occlusion; ``SyntheticSubject/faceVisibleFraction``
    /// says how much of the face the frame's edge and nearer subjects leave in view.
    public func subjects(at seconds: Double) -> [SyntheticSubject] {
        let t = sceneTime(seconds)
        let w = configuration.width, h = configuration.height
        let figures = scripts.compactMap { script -> (id: Int, pose: SubjectPose, figure: SubjectFigure)? in
            guard let pose = pose(of: script, at: t) else { return nil }
            let figure = SubjectFigure(pose: pose, camera: camera)
            guard figure.isVisible(width: w, height: h) else { return nil }
            return (script.id, pose, figure)
        }
        return figures.map { entry in
            let figure = entry.figure
            let whole = figure.whole
            let nearer = figures.filter { $0.figure.disparity > figure.disparity }.map(\.figure)
            return SyntheticSubject(
                id: entry.id, face: figure.face.normalized(width: w, height: h),
                body: whole.normalized(width: w, height: h), disparity: figure.disparity,
                depth: entry.pose.depth, facingCamera: entry.pose.facingCamera,
                faceVisibleFraction: Self.visibleFraction(of: figure.face, width: w, height: h, behind: nearer),
                speaking: talk?.isSpeaking(entry.id, at: t) ?? false, mouthOpening: entry.pose.mouthOpening)
        }
    }

    /// The props at a time (none unless the configuration has props), by id: their boxes in
    /// the left view (normalised, clipped to the frame), disparity, depth and how much of each
    /// the camera sees (``SyntheticProp/visibleFraction``: the frame's edge, the set's columns,
    /// people and the other prop nearer than it hide it).
    public func props(at seconds: Double) -> [SyntheticProp] {
        let t = sceneTime(seconds)
        let w = configuration.width, h = configuration.height
        var placed: [ScenePropPlacement] = []
        forEachProp(at: t) { placed.append($0) }
        let figures = scripts.compactMap { $0.pose(at: t, camera: camera) }.map { SubjectFigure(pose: $0, camera: camera) }
        return placed.map { p in
            let n = 16
            var inside = 0, seen = 0
            for j in 0..<n {
                let y = p.bounds.top + (Double(j) + 0.5) / Double(n) * p.bounds.height
                for i in 0..<n {
                    let x = p.bounds.left + (Double(i) + 0.5) / Double(n) * p.bounds.width
                    guard p.covers(x: x, y: y) else { continue }
                    inside += 1
                    guard x >= 0, x < Double(w), y >= 0, y < Double(h) else { continue }
                    let hidden = set.layers.contains { l in
                        l.depth < p.depth && (l.interval(atY: y).map { x >= $0.lo && x < $0.hi } ?? false)
                    } || figures.contains { $0.disparity > p.disparity && $0.covers(x: x, y: y) }
                        || placed.contains { $0.depth < p.depth && $0.covers(x: x, y: y) }
                    if !hidden { seen += 1 }
                }
            }
            return SyntheticProp(
                id: p.id, kind: p.kind, bounds: p.bounds.normalized(width: w, height: h), disparity: p.disparity,
                depth: p.depth, visibleFraction: inside == 0 ? 0 : Double(seen) / Double(inside))
        }
    }

    /// The share of `face` inside the frame and outside every figure of `nearer`, sampled on a
    /// 12 × 12 grid of the rectangle's cells.
    static func visibleFraction(of face: PixelRect, width: Int, height: Int, behind nearer: [SubjectFigure]) -> Double {
        guard face.width > 0, face.height > 0 else { return 0 }
        let n = 12
        var seen = 0
        for j in 0..<n {
            let y = face.top + (Double(j) + 0.5) / Double(n) * face.height
            for i in 0..<n {
                let x = face.left + (Double(i) + 0.5) / Double(n) * face.width
                guard x >= 0, x < Double(width), y >= 0, y < Double(height) else { continue }
                if !nearer.contains(where: { $0.covers(x: x, y: y) }) { seen += 1 }
            }
        }
        return Double(seen) / Double(n * n)
    }

    // MARK: Rendering

    /// Renders frame `index` (time `index / fps`) into caller-provided images, typically from an
    /// ``ImagePool``, overwriting every pixel.
    ///
    /// - Parameters:
    ///   - left: the reference view; `.i420`, `width` × `height`.
    ///   - right: the other view; `.i420`, `width` × `height`.
    ///   - groundTruth: if given, `.float32`, `width` × `height`: receives the exact disparity of
    ///     the front-most surface at every left-view pixel. Skipped (and free) when `nil`.
    public func render(frame index: Int, left: Image, right: Image, groundTruth: Image?) {
        let w = configuration.width, h = configuration.height
        // fatalError, not precondition: an optimised build drops a precondition's message, and
        // the caller needs it to see which view is wrong.
        func check(_ image: Image, _ name: String, _ format: PixelFormat) {
            guard image.format == format && image.width == w && image.height == h else {
                fatalError(
                    "SyntheticScene.render: \(name) must be a \(format) image of \(w)x\(h), "
                        + "got \(image.format) \(image.width)x\(image.height)")
            }
        }
        check(left, "left", .i420)
        check(right, "right", .i420)
        if let groundTruth { check(groundTruth, "groundTruth", .float32) }
        precondition(index >= 0, "SyntheticScene.render: frame index must not be negative, got \(index)")
        precondition(
            left.buffer !== right.buffer || left.byteOffset != right.byteOffset,
            "SyntheticScene.render: left and right must be different images")

        let seconds = time(ofFrame: index)
        let t = sceneTime(seconds)
        let light = Int((lightLevel(at: seconds) * 256).rounded())
        let background = backgroundCache.map { cache in
            cache.get { set.layers.withUnsafeBufferPointer { SceneBackground(layers: $0, width: w, height: h) } }
        }
        let capacity = set.layers.count + (4 + WalkerLimbs.count) * scripts.count + 2 + SceneHand.pieces.count
        withUnsafeTemporaryAllocation(of: SceneLayer.self, capacity: capacity) { buffer in
            let count = collectLayers(at: t, into: buffer)
            defer { _ = buffer.baseAddress!.deinitialize(count: count) }
            // With the set painted once, only the people are painted over a copy of it.
            let layers = UnsafeBufferPointer(rebasing: buffer[(background == nil ? 0 : set.layers.count)..<count])
            noiseTable.values.withUnsafeBufferPointer { noise in
                let rasterizer = SceneRasterizer(
                    layers: layers, width: w, height: h, light: light,
                    noise: noiseTable.isSilent ? nil : noise.baseAddress, noiseTable: noiseTable, frame: index)
                let chromaRows = (h + 1) / 2
                let bands = min(chromaRows, 8)
                let truth = groundTruth?.plane(0)
                // Jobs: bands × 2 views, spread over all cores; each band is independent.
                DispatchQueue.concurrentPerform(iterations: bands * 2) { job in
                    let view = job & 1, band = job >> 1
                    let image = view == 0 ? left : right
                    let rows = (band * chromaRows / bands)..<((band + 1) * chromaRows / bands)
                    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: SceneRasterizer.scratchCount) { scratch in
                        rasterizer.render(
                            view: view, chromaRows: rows, luma: image.plane(0), cb: image.plane(1),
                            cr: image.plane(2), groundTruth: view == 0 ? truth : nil,
                            background: background, scratch: scratch.baseAddress!)
                    }
                }
            }
        }
    }

    /// The props at scene time `t`, far first (none unless the configuration has props).
    private func forEachProp(at t: Double, _ body: (ScenePropPlacement) -> Void) {
        guard configuration.props || configuration.showcase else { return }
        SceneProps.forEach(at: t, duration: configuration.duration, camera: camera, set: set, carrier: scripts.first,
                           raise: showcase?.raise(at: t) ?? 0, hand: configuration.showcase) { p in
            body(p)
        }
    }

    /// Writes the layers of scene time `t` into `buffer`, far to near: the set, then each visible
    /// subject's body, neck and head and each prop, farthest first. Returns how many it wrote.
    private func collectLayers(at t: Double, into buffer: UnsafeMutableBufferPointer<SceneLayer>) -> Int {
        var count = 0
        for layer in set.layers {
            buffer.initializeElement(at: count, to: layer)
            count += 1
        }
        // At most two props, far first.
        var props: (ScenePropPlacement?, ScenePropPlacement?) = (nil, nil)
        forEachProp(at: t) { p in
            if props.0 == nil { props.0 = p } else { props.1 = p }
        }
        if let a = props.0, let b = props.1, b.depth > a.depth { props = (b, a) }
        func emitProps(fartherThan depth: Double) {
            for p in [props.0, props.1] {
                guard let p, p.depth > depth else { continue }
                buffer.initializeElement(at: count, to: p.layer(library: library))
                count += 1
                p.hand?.forEachLayer(camera: camera, library: library) { layer in
                    buffer.initializeElement(at: count, to: layer)
                    count += 1
                }
            }
            if let a = props.0, a.depth > depth { props.0 = nil }
            if let b = props.1, b.depth > depth { props.1 = nil }
        }
        withUnsafeTemporaryAllocation(of: SubjectPose.self, capacity: max(1, scripts.count)) { poses in
            var n = 0
            for script in scripts {
                guard let pose = pose(of: script, at: t) else { continue }
                // Insertion sort: far first, then by id.
                var i = n
                while i > 0
                    && (poses[i - 1].depth < pose.depth
                        || (poses[i - 1].depth == pose.depth && poses[i - 1].id > pose.id))
                {
                    (poses.baseAddress! + i).initialize(to: poses[i - 1])  // trivial type: a plain copy
                    i -= 1
                }
                poses.initializeElement(at: i, to: pose)
                n += 1
            }
            for i in 0..<n {
                let figure = SubjectFigure(pose: poses[i], camera: camera)
                guard figure.isVisible(width: camera.width, height: camera.height) else { continue }
                emitProps(fartherThan: poses[i].depth)
                let layers = figure.layers(library: library)
                // A walker's far arm and leg behind the body, the near ones in front.
                let limbs = figure.limbs.map { ($0, figure.limbTextures(library: library)) }
                if let (l, t) = limbs {
                    for k in WalkerLimbs.behind { buffer.initializeElement(at: count, to: l.layer(k, textures: t)); count += 1 }
                }
                buffer.initializeElement(at: count, to: layers.body)
                buffer.initializeElement(at: count + 1, to: layers.neck)
                buffer.initializeElement(at: count + 2, to: layers.head)
                count += 3
                if let (l, t) = limbs {
                    for k in WalkerLimbs.inFront { buffer.initializeElement(at: count, to: l.layer(k, textures: t)); count += 1 }
                }
                if let mouth = figure.mouth(library: library) {
                    buffer.initializeElement(at: count, to: mouth)
                    count += 1
                }
            }
            _ = poses.baseAddress!.deinitialize(count: n)
        }
        emitProps(fartherThan: -.infinity)
        return count
    }
}
