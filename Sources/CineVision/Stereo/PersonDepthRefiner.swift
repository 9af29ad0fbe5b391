// PersonDepthRefiner: a stereo matcher's disparity map made trustworthy where people are — each
// person (a region of the person matte) becomes one smooth surface fitted robustly to the
// confident matches inside it, its outline is the matte's, the background the matcher fattened
// into the person's depth is given back to the background, and what stands still stops shimmering.
import CineMedia

/// Refines a disparity map with a person matte, at the map's resolution.
///
/// Stereo matching fails inside people in striped or flat clothes (nothing to match, or the
/// wrong stripe matched) and fattens them at their outlines. People are not flat, but they are not
/// striped in depth either: inside each connected region the matte calls person, the map becomes a
/// plane `d = a + b·x + c·y` fitted to the region's confident samples by iteratively reweighted
/// least squares (Huber, then Tukey's biweight: wrong matches do not pull it). Around each region, samples the
/// matte calls background that carry the person's depth are the matcher's fattening: they take
/// the background's disparity from beyond them on their row. Where the matcher confidently sees
/// the wall inside the matte's outline, the wall stays (``Settings/backgroundReach``), and with
/// the right view each sample on the outline becomes the blend of the two depths in the share
/// of its pixels the views give the person (``Settings/outlineByTheViews``). At the frame's left
/// edge, what matches nothing the right view shows and nothing right of it hides takes the
/// disparity of its width (``Settings/outOfView``, ``OutOfViewFill``). Finally, a sample whose disparity
/// moved by less than ``Settings/stillThreshold`` since the last frame is blended towards its
/// last value (``Settings/temporal``), so a still background does not breathe while anything
/// that moves follows at once.
///
/// ```swift
/// var refiner = PersonDepthRefiner()
/// let trusted = refiner.refine(map, matte: personMatte)   // every frame, in order
/// ```
/// The returned map is a new image each call (the asset and the renderer may keep it). Use one
/// refiner per stream, from one thread.
public struct PersonDepthRefiner: Sendable {
    /// The knobs of the refiner.
    public struct Settings: Sendable, Hashable {
        /// Matte value (0…1) from which a sample belongs to a person.
        public var personLevel: Float = 0.5
        /// Matte value from which a sample is inside a person, far enough from the outline to
        /// take part in the fit.
        public var interiorLevel: Float = 0.8
        /// Smallest confidence (0…255) of a sample that takes part in the fit.
        public var minimumConfidence: UInt8 = 32
        /// The Huber threshold of the fit, in full-resolution pixels of disparity.
        public var huber: Float = 1.0
        /// How strongly the fit keeps a person square to the camera: added to the slope terms
        /// of the normal equations per unit weight (samples²; 0 = a free plane).
        public var slopeRidge: Float = 400
        /// Reweighting rounds of the fit.
        public var iterations = 6
        /// A person region smaller than this share of the map is left as it is (a hand at the
        /// frame's edge, a speck of the matte).
        public var minimumRegionShare: Float = 0.002
        /// Samples on each side whose votes decide which of two surfaces a pixel of a region
        /// holding two people takes.
        public var voteRadius = 6
        /// Samples the near one of two people under one matte region may be walked back from
        /// where the votes put their meeting (see `refine`).
        public var boundaryReach = 16
        /// Samples the matcher's background may reach into a person region from beyond its
        /// outline (see `refine`): the person matte is coarse and fills the corner between a neck
        /// and a shoulder, or widens a head, where the matcher sees the wall (8: against none,
        /// `CineBench depth`'s seeds 1–3 rendered 35.3 / 35.1 / 34.5 dB near the depth edges,
        /// with it 36.3 / 35.7 / 35.6).
        public var backgroundReach = 8
        /// How far (full-resolution pixels of disparity) each sample of such a run may lie from
        /// the background sample it starts from.
        public var backgroundTolerance: Float = 3
        /// Whether the samples on each side of a person's outline are blended by the views (see
        /// `refine`): a 320×180 sample straddling an outline holds both depths, and the right view
        /// says in which share — each of its pixels matches better at the person's disparity or at
        /// the background's. Off, they keep the side the matte and the matcher put them on (seeds
        /// 1–3 of `CineBench depth`: 36.3 / 35.7 / 35.6 dB near the depth edges; on, 36.8 / 36.3 / 36.6).
        /// Left of a person the background is hidden from the right camera and matches nothing at
        /// its own depth: outlines there are drawn by ``leftOutlineReach``.
        public var outlineByTheViews = true
        /// Whether the depth steps away from people (a cabinet's edge, a pillar, a frame on the
        /// wall) are blended by the views too (``StepsByTheViews``), the samples beside people's
        /// outlines included. `CineBench depth`, seeds 1–3, near the depth edges: 38.51 / 38.42 /
        /// 38.89 dB with 0.98 / 1.24 / 1.18 % of edge pixels off, against 38.36 / 38.13 / 38.52 dB
        /// and 0.98 / 1.33 / 1.33 % without; the real Middlebury pair 32.4 dB against 32.0. Off by
        /// default: it costs 0.9 ms more a frame at 320×180 (two cores), over the refinement's
        /// 4-ms budget on a slower machine. The `depth-refine` node's `steps` turns it on.
        public var stepsByTheViews = false
        /// Samples the views' test of a person's right, top and bottom outline goes on inwards
        /// while it gives the sample to the background (at most ``outlineInwardShare`` of its
        /// pixels the person's): the matte fills the corner between a neck and a shoulder two or
        /// three samples deep, where the wall shows (0 = the outline samples alone; seeds 1–3 of
        /// `CineBench depth`: 37.3 / 36.7 / 37.2 dB near the depth edges at 0, 37.4 / 36.8 /
        /// 37.3 at 2).
        public var outlineInwardLayers = 2
        /// The share of a sample's pixels the person may hold for the test to go on past it.
        public var outlineInwardShare: Float = 0.25
        /// Samples outside a person's region but under its soft matte (at least ``softTopLevel``),
        /// within its box and up to this many rows above it, start the views' test of the outline
        /// above them where the map holds the person's depth (within ``softTopTolerance``): the
        /// matte leaves the top of a head soft (below ``personLevel``, at times under a tenth for
        /// the top two samples of hair) where the matcher found it, and the wall above was then
        /// never tested. Seeds 1–3 of `CineBench depth`: 37.83 / 38.06 / 37.77 dB near the depth
        /// edges without (``softTopLevel`` above 1), 37.84 / 38.11 / 37.81 within the box alone,
        /// 37.84 / 38.11 / 37.84 with 8 rows above.
        public var softTopReach = 8
        /// The matte's lowest level for a sample outside the region to start the test (above 1: none).
        public var softTopLevel: Float = 0.1
        /// How far from the person's surface the map may lie there (the matcher's own value, not the fit).
        public var softTopTolerance: Float = 3
        /// Samples each way of a person's left outline searched for their edge (0 = off): the
        /// column that best parts pixels that do not match at the person's disparity from pixels
        /// that do, helped by the picture's step (see `refine`). Seeds 1–3 of `CineBench depth`:
        /// 36.9 / 36.3 / 36.5 dB near the depth edges off, 37.2 / 36.7 / 37.1 on. This reach is
        /// the one of a left outline inside a matte region (``leftOutlineOuterReach`` is the
        /// outer outline's); 0 turns both off.
        public var leftOutlineReach = 3
        /// The same for a person's outer left outline (against the background, not another
        /// person), where the matte and the matcher's fattening together often reach three or
        /// four samples over the wall beside a torso. Seeds 1–3 of `CineBench depth`: 0.95 / 1.31 /
        /// 1.31 % of edge pixels off at 3, 0.96 / 1.25 / 1.28 % at 4, 0.96 / 1.25 / 1.32 at 5.
        /// (Inside a region a wider search pulls the edge into a flat person behind, who
        /// matches anywhere at the near one's disparity.)
        public var leftOutlineOuterReach = 4
        /// A pixel whose 3×3 window differs from the right view's at the person's disparity by
        /// less than this (mean absolute luma difference) counts as matching there.
        public var leftOutlineMatch: Float = 8
        /// Weight of the picture's step (mean luma difference of three columns each side) in
        /// placing a left outline.
        public var leftOutlinePicture: Float = 3
        /// Whether a left outline inside a matte region — a person in front of another, or of wall
        /// the matte spans — is drawn the same way, what lies farther to its left taking the
        /// background's part, and held where the picture stands still. Seeds 1–3 of `CineBench
        /// depth`, off: 37.4 / 36.8 / 37.3 dB near the depth edges, 1.4 / 1.5 / 1.7 % off; on:
        /// 37.7 / 36.8 / 37.7 dB, 1.3 / 1.5 / 1.6 %; seed 3's still background breathes 0.099
        /// levels against 0.096 (0.100 without the hold).
        public var innerLeftOutlines = true
        /// Left of a person near the frame's left edge (the stereo border), how far from the
        /// person's disparity, as a share of it, a sample outside the matte may be and still be
        /// the matcher's fill rather than a match (see `refine`). The border has no match at
        /// all: the fill's value wanders row by row (48 to 53 px beside a 54-px man on seed 3),
        /// and at 2 × ``fatteningTolerance`` (3 px) every third row kept it.
        public var borderShare: Float = 0.2
        /// Whether the left view's first columns that match nothing the right view shows, and
        /// that nothing right of them hides, take the disparity of their width (``OutOfViewFill``):
        /// a head cut by the frame's left edge, narrower than its own disparity.
        public var outOfView = true
        /// Whether every sample of that strip outside people takes the background found above
        /// and below it, not only those that carry the person's depth: the strip is hidden from
        /// the right camera, and whatever the matcher put there is a fill, not a match.
        public var borderWhole = true
        /// Samples around a person searched for the matcher's fattening.
        public var reach = 4
        /// A background sample within this many pixels of disparity of the person's surface
        /// (and nearer than the background beyond it) is fattening.
        public var fatteningTolerance: Float = 1.5
        /// A sample of such a run whose own pixels match the right view at its own disparity with
        /// a correlation of at least this (9×9 patch), and by ``fatteningMargin`` more than at the
        /// background's, is kept: it is something there, not fattening (above 1: every sample of
        /// the run is given back). Seeds 1–3 of `CineBench depth`, given back: 38.41 / 38.13 /
        /// 38.52 dB near the depth edges, 0.96 / 1.33 / 1.33 % off; kept at 0.8: 38.43 / 38.21 /
        /// 38.56 dB, 0.95 / 1.31 / 1.31 % (0.6 and 0.7 the same to ±0.01).
        public var fatteningMatch: Float = 0.8
        /// How much better a kept sample must match at its own disparity than at the background's.
        public var fatteningMargin: Float = 0.2
        /// How far (a share of the head's disparity) a torso may lie behind the head above it
        /// before it counts as a repeat matched one period off (see `refine`).
        public var headAnchor: Float = 0.08
        /// How much of the last frame's value a still sample keeps (0 = no temporal filtering).
        public var temporal: Float = 0.7
        /// A sample that moved by less than this (full-resolution pixels) is still.
        public var stillThreshold: Float = 0.75
        /// Where the view's mean over a sample changed by at most this many levels since the
        /// last frame, the picture stands still there.
        public var stillPicture: Float = 2
        /// How much of the last frame's value a sample keeps where the picture stands still.
        public var heldStill: Float = 0.9
        /// Where the picture stands still and the matte loses a person it had (see ``matteDrop``), a
        /// person's sample whose depth jumps by more than this (full-resolution pixels) since the
        /// last frame is held like the background: nothing there moved, so the fit went astray (a
        /// person cut by the frame's edge whom the matte loses for a few frames). Everywhere else
        /// a person's surface is fitted anew each frame. Off by default (`.infinity`): at 3 px it
        /// took seed 3's breathing from 0.11 to 0.10, but the CI build's `RepairKeptPairTests`
        /// (walking people, maps matched again from a kept pair) went over its limit on some runs.
        public var heldJump: Float = .infinity
        /// … and only where the matte is less sure of the person than last frame by more than
        /// this (0…1): it lost them, while the picture says nothing moved.
        public var matteDrop: Float = 0.1
        /// A person's surface within this many pixels of disparity of one from the last frame
        /// (at the region's middle) is the same person, standing still or nearly.
        public var surfaceStill: Float = 1
        /// How much of the last frame's surface such a surface keeps (0.7: against 0.5, seed 3's
        /// still background breathed 0.102 levels instead of 0.105, seed 1's 0.064 instead of 0.070,
        /// and no render from the map lost a tenth of a dB in `CineBench depth`).
        public var surfaceTemporal: Float = 0.7
        /// Cores the test against the views may use.
        public var threads = 2
        /// The default settings.
        public init() {}
    }

    /// A person region's fitted surface, in map samples.
    public struct Surface: Sendable, Equatable {
        /// Disparity at sample (0, 0).
        public var a: Float
        /// Change per sample to the right.
        public var b: Float
        /// Change per sample down.
        public var c: Float
        /// The disparity at sample `(x, y)`.
        @inline(__always) public func disparity(_ x: Int, _ y: Int) -> Float { a + b * Float(x) + c * Float(y) }
    }

    /// The settings of the next call.
    public var settings: Settings
    /// The surfaces fitted in the last call, one per person region (largest first).
    public private(set) var surfaces: [Surface] = []
    private var previous: [Float] = []
    private var previousFitted: [Bool] = []
    private var previousPerson: [Float] = []
    private var previousLuma: [UInt8] = []
    private var previousSize = (0, 0)
    private var person: [Float] = [], labels: [Int32] = [], stack: [Int32] = []
    /// Last frames' step blends, reused where the picture stands still.
    private var steps = StepsByTheViews.Memory()

    /// Creates a refiner.
    public init(settings: Settings = Settings()) { self.settings = settings }

    /// Forgets the last frame (a cut, a seek): the next call filters nothing over time.
    public mutating func reset() {
        previous = []; previousLuma = []; previousFitted = []; previousPerson = []; surfaces = []; steps = StepsByTheViews.Memory()
    }

    /// `map` refined with `matte` (`gray8`, 255 = person, any size: sampled at each map
    /// sample's centre in normalised coordinates). Without a person in the matte, only the
    /// temporal filter acts. Non-finite samples stay invalid outside people and become the
    /// surface inside them; the result never holds NaN.
    ///
    /// `image` and `right` are the rectified views the map was matched on (I420, NV12 or gray8
    /// luma, any size the map's reference scales to). With both, a torso sample the views cannot
    /// tell from its head's disparity takes the head's; with `image`, the background is held
    /// where the picture stands still. Either may be `nil`.
    ///
    /// Cost at a 320×180 map: one pass to sample the matte, one labelling pass, two 49-pixel
    /// correlations for each torso sample that disagrees with its head (on ``Settings/threads``
    /// cores), six passes over each person's samples for the fit (3×3 normal equations, ~20 flops
    /// a sample), one pass for the outline, one area mean of the view and one for the temporal
    /// blend — about 6–8 ms (`CineBench depth`).
    public mutating func refine(_ map: DisparityMap, matte: Image, image: Image? = nil, right: Image? = nil) -> DisparityMap {
        precondition(map.values.format == .float32, "a disparity map is float32")
        let w = map.values.width, h = map.values.height, n = w * h
        let out = Image(width: w, height: h, format: .float32)
        var d = [Float](repeating: .infinity, count: n)
        d.withUnsafeMutableBufferPointer { d in
            for y in 0..<h {
                let row = map.values.plane(0).row(y, as: Float.self)
                for x in 0..<w { d[y * w + x] = row[x].isNaN ? .infinity : row[x] }
            }
        }
        samplePerson(matte, width: w, height: h)
        // Each view's luma, when given in a format that has it; both views' when both are.
        func lumaPlane(_ image: Image?) -> Plane? { image.flatMap { [.i420, .nv12, .gray8].contains($0.format) ? $0.plane(0) : nil } }
        let view = lumaPlane(image)
        let views = view.flatMap { left in lumaPlane(right).map { (left, $0) } }
        let luma = view.map { Self.areaMeans($0, width: w, height: h) } ?? []
        let regions = label(width: w, height: h)
        let before = surfaces
        surfaces = []
        var fitted = [Bool](repeating: false, count: n)
        // Each region's trusted surfaces: their outlines are drawn once every region is fitted
        // (an outline beside a person fitted later sees that person's depth, not the matcher's).
        var outlined: [(Region, [Surface])] = []
        for whole in regions {
            var all = collect(region: whole, d: d, confidence: map.confidence, width: w)
            // The left view's first columns, up to the person's disparity, show what the right
            // camera does not see: the matcher's answers there (the stereo border) are the
            // background's or nothing. They may not make a surface of their own.
            let sampleWidth = Float(map.referenceWidth) / Float(w)
            let border = all.isEmpty ? 0 : Self.selected(all.map(\.d), rank: all.count * 9 / 10) + 2 * sampleWidth
            if let view {
                all = disambiguated(all, region: whole, left: view, right: right?.plane(0), mapWidth: w, mapHeight: h,
                                    referenceWidth: map.referenceWidth)
            }
            for region in split(whole, width: w) {
                let samples = region.minX == whole.minX && region.maxX == whole.maxX
                    ? all : all.filter { $0.x >= region.minX && $0.x <= region.maxX }
                guard samples.count >= max(12, region.count / 20) else { continue }
                // One surface, or more when a region holds people at different depths (people
                // touching under one matte region, a torso matched apart from its head): each next one
                // fitted to what the ones before leave out, up to three.
                guard let first = fit(samples) else { continue }
                var found = [first]
                while found.count < 3 {
                    let left = samples.filter { p in
                        (Float(p.x) + 0.5) * sampleWidth >= border
                            && found.allSatisfy { abs(p.d - $0.disparity(p.x, p.y)) > 3 * settings.huber }
                    }
                    guard left.count >= max(12, samples.count / 12), let next = fit(left) else { break }
                    found.append(next)
                }
                var anchored: Set<Int> = []
                if found.count >= 2 {
                    // Each surface's own samples: the ones nearest to it, and close.
                    let own = found.indices.map { k in
                        samples.filter { p in
                            let e = abs(p.d - found[k].disparity(p.x, p.y))
                            return e <= 2 * settings.huber && found.indices.allSatisfy { abs(p.d - found[$0].disparity(p.x, p.y)) >= e }
                        }
                    }
                    (found, anchored) = anchoredToTheHead(found, samples: own, height: region.maxY - region.minY + 1)
                }
                // A person who stands still stays still: each surface leans on last frame's
                // surface that lies within ``Settings/surfaceStill`` of it at the region's middle.
                let (mx, my) = ((region.minX + region.maxX) / 2, (region.minY + region.maxY) / 2)
                for k in found.indices {
                    guard let last = before.min(by: { abs($0.disparity(mx, my) - found[k].disparity(mx, my))
                                                     < abs($1.disparity(mx, my) - found[k].disparity(mx, my)) }),
                          abs(last.disparity(mx, my) - found[k].disparity(mx, my)) < settings.surfaceStill else { continue }
                    let keep = settings.surfaceTemporal
                    found[k] = Surface(a: last.a + (1 - keep) * (found[k].a - last.a), b: last.b + (1 - keep) * (found[k].b - last.b),
                                       c: last.c + (1 - keep) * (found[k].c - last.c))
                }
                var choice = assign(region: region, samples: samples, surfaces: found, width: w)
                if found.count >= 2, let (left, right) = views {
                    drawnByTheViews(&choice, region: region, surfaces: found, left: left, right: right,
                                    cut: (region.minX > whole.minX, region.maxX < whole.maxX),
                                    mapWidth: w, mapHeight: h, referenceWidth: map.referenceWidth)
                }
                // A surface most of its own samples disagree with explains nothing: keep the match.
                var agree = [Int](repeating: 0, count: found.count), owned = [Int](repeating: 0, count: found.count)
                for sample in samples {
                    let k = Int(choice[(sample.y - region.minY) * (region.maxX - region.minX + 1) + sample.x - region.minX])
                    owned[k] += 1
                    if abs(sample.d - found[k].disparity(sample.x, sample.y)) <= 2 * settings.huber { agree[k] += 1 }
                }
                // (A torso anchored to its head disagrees with its own matches by design.)
                let trusted = found.indices.map { anchored.contains($0) || agree[$0] * 2 >= owned[$0] && owned[$0] > 0 }
                let bw = region.maxX - region.minX + 1
                let seen = backgroundSeenInside(region: region, surfaces: found, d: d, confidence: map.confidence, width: w)
                let labels = self.labels, person = self.person
                d.withUnsafeMutableBufferPointer { dp in
                    fitted.withUnsafeMutableBufferPointer { fp in
                        for y in region.minY...region.maxY {
                            for x in region.minX...region.maxX where labels[y * w + x] == region.label {
                                let k = Int(choice[(y - region.minY) * bw + x - region.minX])
                                guard trusted[k] else { continue }
                                if seen[(y - region.minY) * bw + x - region.minX] { continue }
                                // In the matte's soft outline the matcher's own value stays (the matte's
                                // edge is a few pixels off as often as the matcher's) unless the picture
                                // there looks like the person's inside and not like the background beside it.
                                if person[y * w + x] < settings.interiorLevel && dp[y * w + x].isFinite
                                    && !(abs(dp[y * w + x] - found[k].disparity(x, y)) > 3 * settings.huber
                                         && looksInside(x, y, luma: luma, label: region.label, width: w, height: h)) { continue }
                                dp[y * w + x] = found[k].disparity(x, y)
                                fp[y * w + x] = true
                            }
                        }
                    }
                }
                for k in found.indices where trusted[k] {
                    surfaces.append(found[k])
                    giveBackFattening(region: region, surface: found[k], d: &d, decided: &fitted, confidence: map.confidence, width: w, height: h,
                                      sampleWidth: sampleWidth, views: views, referenceWidth: map.referenceWidth)
                }
                outlined.append((region, found.indices.filter { trusted[$0] }.map { found[$0] }))
            }
        }
        if let (left, right) = views {
            for (region, found) in outlined {
                if settings.outlineByTheViews {
                    coveredByTheViews(region: region, surfaces: found, d: &d, left: left, right: right, mapWidth: w, mapHeight: h,
                                      referenceWidth: map.referenceWidth)
                }
                if settings.leftOutlineReach > 0 {
                    leftOutlineByTheViews(region: region, surfaces: found, d: &d, fitted: &fitted, left: left, right: right,
                                          mapWidth: w, mapHeight: h, referenceWidth: map.referenceWidth)
                }
            }
        }
        if settings.outOfView, let (left, right) = views {
            let person = self.person, level = settings.personLevel
            _ = OutOfViewFill().fill(&d, mapWidth: w, mapHeight: h, referenceWidth: map.referenceWidth,
                                     left: left, right: right, skip: { person[$0] >= level })
        }
        // Where the picture stands still since the last frame (1), for the steps' memory and the
        // hold over time.
        let calm = stillSamples(luma, width: w, height: h)
        if settings.stepsByTheViews, let (left, right) = views {
            // People's samples are theirs: their outlines are drawn above.
            let level = settings.personLevel
            StepsByTheViews().blend(&d, mapWidth: w, mapHeight: h, referenceWidth: map.referenceWidth,
                                    left: left, right: right, skip: person.map { $0 >= level },
                                    still: calm, memory: &steps)
        }
        filterOverTime(&d, fitted: fitted, calm: calm, luma: luma, width: w, height: h)
        d.withUnsafeBufferPointer { d in
            for y in 0..<h { out.plane(0).row(y, as: Float.self).update(from: d.baseAddress! + y * w, count: w) }
        }
        return DisparityMap(values: out, confidence: map.confidence, referenceWidth: map.referenceWidth,
                            referenceHeight: map.referenceHeight)
    }

    // MARK: - Steps

    /// A region split into one column range per person when people touch under one matte
    /// region: each head is a peak of the region's top outline (the highest person sample of each
    /// column), and two heads are parted at the lowest point of the outline between them when it
    /// dips below the lower head by more than a head's height (the gap between two people's
    /// shoulders; a person's own shoulders dip on one side of their head only).
    func split(_ region: Region, width w: Int) -> [Region] {
        let span = region.maxX - region.minX + 1
        let (top, peaks) = outline(region, width: w)
        let dip = max(4, (region.maxY - region.minY + 1) / 8)
        guard peaks.count >= 2 else { return [region] }
        var cuts: [Int] = []
        for (a, b) in zip(peaks, peaks.dropFirst()) {
            guard let valley = (a...b).max(by: { top[$0] < top[$1] }) else { continue }
            if top[valley] == Int.max || top[valley] - max(top[a], top[b]) > dip { cuts.append(valley) }
        }
        guard !cuts.isEmpty else { return [region] }
        var out: [Region] = [], start = 0
        for c in cuts + [span] {
            var r = region
            r.minX = region.minX + start
            r.maxX = region.minX + min(c, span - 1)
            if r.maxX >= r.minX { out.append(r) }
            start = c + 1
        }
        return out
    }

    /// Surfaces in one person region where one reaches highest — a head — and another below it
    /// lies further away than the head by more than ``Settings/headAnchor`` of its disparity: no
    /// upright person's torso stands that far behind their head, but a knit or a stripe matched
    /// one period off puts it there (the matcher cannot tell repeats apart; a face has none). Such
    /// a torso takes the head's plane. The head is the top surface's samples above where the
    /// lower one begins, and must stand over it (the head's middle inside the torso's width): a
    /// person beside them keeps their own surface, and so does a torso nearer than the head
    /// (leaning in, a raised arm). `samples` holds each surface's own samples; `height` is the
    /// region's, in samples. Returns the surfaces and the indices re-anchored.
    private func anchoredToTheHead(_ found: [Surface], samples: [[Sample]], height: Int) -> ([Surface], Set<Int>) {
        func percentile(_ v: [Int], _ p: Int) -> Int { let s = v.sorted(); return s[(s.count - 1) * p / 100] }
        let usable = found.indices.filter { samples[$0].count >= 12 }
        guard usable.count >= 2 else { return (found, []) }
        let tops = found.indices.map { samples[$0].count >= 12 ? percentile(samples[$0].map(\.y), 10) : Int.max }
        var out = found, anchored: Set<Int> = []
        for lower in usable {
            let xs = samples[lower].map(\.x)
            let (left, right) = (percentile(xs, 10), percentile(xs, 90))
            // Its head: the highest other surface that begins well above it and stands over it.
            var head: (index: Int, samples: [Sample])?
            for upper in usable where upper != lower && tops[lower] - tops[upper] > height / 5 {
                let part = samples[upper].filter { $0.y < (tops[upper] + tops[lower]) / 2 }
                guard part.count >= 12 else { continue }
                let middle = percentile(part.map(\.x), 50)
                guard middle >= left, middle <= right else { continue }
                if head == nil || tops[upper] < tops[head!.index] { head = (upper, part) }
            }
            guard let (upper, part) = head else { continue }
            let headD = found[upper].disparity(percentile(part.map(\.x), 50), percentile(part.map(\.y), 50))
            let torso = found[lower].disparity(percentile(xs, 50), percentile(samples[lower].map(\.y), 50))
            guard headD - torso > max(2, settings.headAnchor * headD) else { continue }
            out[lower] = found[upper]
            anchored.insert(lower)
        }
        return (out, anchored)
    }

    /// The matte's person share (0…1) at each map sample's centre, bilinear.
    private mutating func samplePerson(_ matte: Image, width w: Int, height h: Int) {
        person = [Float](repeating: 0, count: w * h)
        guard matte.format == .gray8 || matte.format == .i420 || matte.format == .nv12,
              matte.width > 0, matte.height > 0 else { return }
        let plane = matte.plane(0), mw = matte.width, mh = matte.height
        // The columns' taps and weights are the same on every row: worked out once.
        var columns: [(Int, Int, Float)] = []
        columns.reserveCapacity(w)
        for x in 0..<w {
            let u = min(max((Double(x) + 0.5) * Double(mw) / Double(w) - 0.5, 0), Double(mw - 1))
            columns.append((Int(u), min(Int(u) + 1, mw - 1), Float(u - Double(Int(u)))))
        }
        person.withUnsafeMutableBufferPointer { out in
            for y in 0..<h {
                let v = min(max((Double(y) + 0.5) * Double(mh) / Double(h) - 0.5, 0), Double(mh - 1))
                let j0 = Int(v), j1 = min(j0 + 1, mh - 1), fy = Float(v - Double(j0))
                let r0 = plane.row(j0, as: UInt8.self), r1 = plane.row(j1, as: UInt8.self)
                for x in 0..<w {
                    let (i0, i1, fx) = columns[x]
                    let top = Float(r0[i0]) + fx * (Float(r0[i1]) - Float(r0[i0]))
                    let bottom = Float(r1[i0]) + fx * (Float(r1[i1]) - Float(r1[i0]))
                    out[y * w + x] = (top + fy * (bottom - top)) * (1 / 255)
                }
            }
        }
    }

    struct Region { var label: Int32; var count: Int; var minX: Int; var maxX: Int; var minY: Int; var maxY: Int }

    /// Connected regions (4-neighbours) of samples at or above ``Settings/personLevel``, large
    /// enough to count, largest first; `labels` holds each sample's region (0 = none).
    private mutating func label(width w: Int, height h: Int) -> [Region] {
        let n = w * h
        var labels = [Int32](repeating: 0, count: n)
        var regions: [Region] = []
        var next: Int32 = 1
        let level = settings.personLevel
        var stack = self.stack
        stack.removeAll(keepingCapacity: true)
        person.withUnsafeBufferPointer { person in
            labels.withUnsafeMutableBufferPointer { labels in
                for start in 0..<n where person[start] >= level && labels[start] == 0 {
                    var r = Region(label: next, count: 0, minX: w, maxX: 0, minY: h, maxY: 0)
                    stack.append(Int32(start))
                    labels[start] = next
                    while let top = stack.popLast() {
                        let i = Int(top), x = i % w, y = i / w
                        r.count += 1
                        r.minX = min(r.minX, x); r.maxX = max(r.maxX, x); r.minY = min(r.minY, y); r.maxY = max(r.maxY, y)
                        // The four neighbours inside the map.
                        for k in 0..<4 {
                            let j: Int
                            switch k {
                            case 0: j = x > 0 ? i - 1 : -1
                            case 1: j = x + 1 < w ? i + 1 : -1
                            case 2: j = y > 0 ? i - w : -1
                            default: j = y + 1 < h ? i + w : -1
                            }
                            if j >= 0 && labels[j] == 0 && person[j] >= level {
                                labels[j] = next
                                stack.append(Int32(j))
                            }
                        }
                    }
                    regions.append(r)
                    next += 1
                }
            }
        }
        // Regions too small to count lose their label, in one pass whatever their number.
        let smallest = max(Int(settings.minimumRegionShare * Float(n)), 1)
        var kept = [Bool](repeating: false, count: Int(next))
        for r in regions where r.count >= smallest { kept[Int(r.label)] = true }
        for i in 0..<n where labels[i] != 0 && !kept[Int(labels[i])] { labels[i] = 0 }
        self.labels = labels
        self.stack = stack
        return regions.filter { $0.count >= smallest }.sorted { $0.count > $1.count }
    }

    struct Sample { var x: Int; var y: Int; var d: Float }

    /// The region's confident interior samples.
    private func collect(region: Region, d: [Float], confidence: Image?, width w: Int) -> [Sample] {
        var out: [Sample] = []
        let minimum = settings.minimumConfidence
        for y in region.minY...region.maxY {
            let conf = confidence.map { $0.plane(0).row(y, as: UInt8.self) }
            for x in region.minX...region.maxX {
                let i = y * w + x
                guard labels[i] == region.label, person[i] >= settings.interiorLevel, d[i].isFinite else { continue }
                if let conf, conf[x] < minimum { continue }
                out.append(Sample(x: x, y: y, d: d[i]))
            }
        }
        return out
    }

    /// Samples whose match the picture cannot tell from their head's disparity take the head's.
    ///
    /// A match `d` and the head's disparity `c` are equally good when the right view matches
    /// the sample's patch at `c` about as well as at `d` (``asGood(_:_:x:y:half:match:other:)``:
    /// a knit or a stripe matched one period off, a flat colour). A face has neither, so the
    /// head's own disparity is trusted; a torso sample that disagrees with it *and* is ambiguous
    /// takes it. A real difference — an arm reaching out, a lean — matches well only where it is
    /// and keeps its match. Without the right view, the left view repeating itself at a lag of
    /// `d − c` stands in (``selfSimilar(_:x:y:half:lag:)``). Heads are the peaks of the region's
    /// top outline that the outline falls away from on both sides; each sample is judged
    /// against the nearest head across its match agrees with or cannot be told from.
    func disambiguated(_ samples: [Sample], region: Region, left: Plane, right: Plane?, mapWidth w: Int, mapHeight h: Int,
                       referenceWidth: Int) -> [Sample] {
        let (top, peaks) = outline(region, width: w)
        guard !peaks.isEmpty else { return samples }
        let span = region.maxX - region.minX + 1, height = region.maxY - region.minY + 1
        let radius = max(2, span / 16), headRows = max(3, height / 10)
        // A head: the outline falls away on both sides within a head's width or two (a
        // shoulder at the region's side rises on one). A peak on the frame's top row may be a
        // head cut off (a torso): no head there.
        let drop = max(3, height / 12), reach = max(3 * radius, span / 2)
        // The heads of an outline: `top` per column, its `peaks`, the samples that draw it.
        func headsOf(_ top: [Int], _ peaks: [Int], reach: Int, fewest: Int = 6, layer: (Sample) -> Bool) -> [(x: Int, d: Float)] {
            var found: [(x: Int, d: Float)] = []
            for p in peaks where region.minY + top[p] > 0 {
                // Outwards from the peak, the outline must fall before it rises above the peak.
                func falls(_ step: Int) -> Bool {
                    var x = p + step
                    while abs(x - p) <= reach {
                        if x < 0 || x >= span || top[x] == Int.max || top[x] >= top[p] + drop { return true }
                        if top[x] < top[p] - 1 { return false }
                        x += step
                    }
                    return false
                }
                guard falls(-1), falls(1) else { continue }
                var ds: [Float] = []
                for s in samples where layer(s) && abs(s.x - region.minX - p) <= radius && s.y - region.minY <= top[p] + headRows {
                    ds.append(s.d)
                }
                guard ds.count >= fewest else { continue }
                ds.sort()
                found.append((region.minX + p, ds[ds.count / 2]))
            }
            return found
        }
        var heads = headsOf(top, peaks, reach: reach) { _ in true }
        // A head in front of another's (someone standing before the one behind them) does not
        // reach the region's top: it is a peak of the outline of what lies nearer than the head
        // behind, falling away within a head's width (a quarter of the region's height; a
        // torso's shoulders are wider).
        for behind in heads {
            let cut = behind.d + max(3, 0.08 * behind.d)
            var nearer = [Int](repeating: Int.max, count: span)
            for s in samples where s.d > cut {
                let c = s.x - region.minX
                nearer[c] = min(nearer[c], s.y - region.minY)
            }
            // (Its matches fill a third of a head's box: a few nearer matches are noise.)
            let front = headsOf(nearer, Self.peaks(of: nearer, radius: radius), reach: height / 4,
                                fewest: (2 * radius + 1) * headRows / 3) { $0.d > cut }
            for f in front where !heads.contains(where: { abs($0.d - f.d) <= max(1.5, 0.04 * f.d) }) { heads.append(f) }
        }
        guard !heads.isEmpty else { return samples }
        let scaleX = Float(left.width) / Float(w), scaleY = Float(left.height) / Float(h)
        let toImage = Float(left.width) / Float(referenceWidth)
        let half = max(4, Int((1.5 * scaleX).rounded()))
        let stacked = max(2 * radius, span / 4)
        // Each sample's verdict is its own: the samples are judged on `threads` cores.
        var out = samples
        let threads = max(1, settings.threads)
        out.withUnsafeMutableBufferPointer { buffer in
            let all = buffer
            RowBands.run(0..<all.count, bands: samples.count >= 2048 ? threads : 1) { _, range in
                var order = heads
                for k in range {
                    let s = all[k]
                    // Its head: of the heads in order — the nearest across first, except that
                    // heads one behind the other (within a quarter of the region's width of the
                    // nearest across) all come first, the nearest in depth first — the first
                    // its match agrees with, or that the picture cannot tell from its match.
                    var firstX = order[0].x
                    for head in order where abs(head.x - s.x) < abs(firstX - s.x) { firstX = head.x }
                    order.sort {
                        let (a, b) = (abs($0.x - firstX) <= stacked, abs($1.x - firstX) <= stacked)
                        if a != b { return a }
                        return a ? abs($0.d - s.d) < abs($1.d - s.d) : abs($0.x - s.x) < abs($1.x - s.x)
                    }
                    guard s.y - region.minY > top[min(span - 1, max(0, order[0].x - region.minX))] + headRows else { continue }
                    // A match that agrees with the head above it, or with one of the heads
                    // one behind the other above it, is that person's.
                    if order.contains(where: { abs($0.x - firstX) <= stacked && abs(s.d - $0.d) <= max(1.5, 0.04 * $0.d) }) {
                        continue
                    }
                    for head in order {
                        let cx = Int((Float(s.x) + 0.5) * scaleX), cy = Int((Float(s.y) + 0.5) * scaleY)
                        let ambiguous = right.map {
                            Self.asGood(left, $0, x: cx, y: cy, half: half, match: s.d * toImage, other: head.d * toImage)
                        } ?? Self.selfSimilar(left, x: cx, y: cy, half: half, lag: (s.d - head.d) * toImage)
                        if ambiguous { all[k].d = head.d; break }
                    }
                }
            }
        }
        return out
    }

    /// Whether the right view matches the left patch around (`x`, `y`) at disparity `other`
    /// about as well as at `match` (normalised cross-correlation, within 0.1), or the patch is
    /// flat: the picture cannot tell the two apart.
    static func asGood(_ left: Plane, _ right: Plane, x: Int, y: Int, half: Int, match: Float, other: Float) -> Bool {
        guard let c = correlations(left, right, x: x, y: y, half: half, match: match, other: other) else { return false }
        return c.flat || c.atOther >= c.atMatch - 0.1
    }

    /// The left patch around (`x`, `y`) (every other pixel of a square `half` on each side)
    /// correlated with the right view at disparities `match` and `other` (normalised
    /// cross-correlation; −1 where the right patch is flat), and whether the left patch is flat
    /// (under 2 levels of deviation); nil where a patch leaves the views.
    static func correlations(_ left: Plane, _ right: Plane, x: Int, y: Int, half: Int, match: Float, other: Float)
        -> (flat: Bool, atMatch: Float, atOther: Float)? {
        guard patchInside(left, right, x: x, y: y, half: half, match: match, other: other) else { return nil }
        let iw = left.width
        // Every other column of the patch, eight to a vector: each 16 bytes read hold a row's
        // eight samples (even bytes) and their right neighbours (odd ones). A patch whose last
        // vector would read past the row's end is summed one sample at a time.
        let i0 = Int((-match).rounded(.down)), j0 = Int((-other).rounded(.down))
        let columns = half + 1, vectors = (columns + 7) / 8
        guard x - half + 16 * vectors <= iw else {
            return Self.correlationsOneByOne(left, right, x: x, y: y, half: half, match: match, other: other)
        }
        let f = SIMD8<Float>(repeating: -match - Float(i0)), g = SIMD8<Float>(repeating: -other - Float(j0))
        var sa = SIMD8<Float>(), saa = SIMD8<Float>(), sb = SIMD8<Float>(), sbb = SIMD8<Float>(), sab = SIMD8<Float>()
        var sc = SIMD8<Float>(), scc = SIMD8<Float>(), sac = SIMD8<Float>()
        // The last vector's lanes past the patch count nothing.
        let lane = SIMD8<Float>(0, 1, 2, 3, 4, 5, 6, 7)
        let last = SIMD8<Float>(repeating: 1).replacing(with: 0, where: lane .>= Float(columns - 8 * (vectors - 1)))
        for yy in stride(from: y - half, through: y + half, by: 2) {
            let l = UnsafeRawPointer(left.row(yy)), r = UnsafeRawPointer(right.row(yy))
            for v in 0..<vectors {
                let x0 = x - half + 16 * v
                let used = v == vectors - 1 ? last : SIMD8<Float>(repeating: 1)
                let a = SIMD8<Float>(l.loadUnaligned(fromByteOffset: x0, as: SIMD16<UInt8>.self).evenHalf) * used
                let rb = r.loadUnaligned(fromByteOffset: x0 + i0, as: SIMD16<UInt8>.self)
                let rc = r.loadUnaligned(fromByteOffset: x0 + j0, as: SIMD16<UInt8>.self)
                let b0 = SIMD8<Float>(rb.evenHalf), b1 = SIMD8<Float>(rb.oddHalf)
                let c0 = SIMD8<Float>(rc.evenHalf), c1 = SIMD8<Float>(rc.oddHalf)
                let b = (b0 + (b1 - b0) * f) * used, c = (c0 + (c1 - c0) * g) * used
                sa += a; saa += a * a
                sb += b; sbb += b * b; sab += a * b
                sc += c; scc += c * c; sac += a * c
            }
        }
        return Self.correlations(sa: sa.sum(), saa: saa.sum(), sb: sb.sum(), sbb: sbb.sum(), sab: sab.sum(),
                                  sc: sc.sum(), scc: scc.sum(), sac: sac.sum(), n: Float(columns * columns))
    }

    /// Whether the patch and both its shifted copies lie inside views of one size.
    static func patchInside(_ left: Plane, _ right: Plane, x: Int, y: Int, half: Int, match: Float, other: Float) -> Bool {
        let iw = left.width, ih = left.height, far = Int(max(match, other).rounded(.up)) + 1
        return right.width == iw && right.height == ih && y - half >= 0 && y + half < ih && x - half - far >= 0
            && x + half + 1 < iw && match >= 0 && other >= 0
    }

    /// ``correlations(_:_:x:y:half:match:other:)`` one sample at a time (near a row's end, and
    /// the reference its vectors are tested against).
    static func correlationsOneByOne(_ left: Plane, _ right: Plane, x: Int, y: Int, half: Int, match: Float, other: Float)
        -> (flat: Bool, atMatch: Float, atOther: Float)? {
        guard patchInside(left, right, x: x, y: y, half: half, match: match, other: other) else { return nil }
        // Both correlations in one pass over the patch (the left patch's sums are shared).
        let i0 = Int((-match).rounded(.down)), f = -match - Float(i0)
        let j0 = Int((-other).rounded(.down)), g = -other - Float(j0)
        var sa: Float = 0, saa: Float = 0, n: Float = 0
        var sb: Float = 0, sbb: Float = 0, sab: Float = 0, sc: Float = 0, scc: Float = 0, sac: Float = 0
        for yy in stride(from: y - half, through: y + half, by: 2) {
            let l = left.row(yy, as: UInt8.self), r = right.row(yy, as: UInt8.self)
            for xx in stride(from: x - half, through: x + half, by: 2) {
                let a = Float(l[xx])
                let b = Float(r[xx + i0]) + (Float(r[xx + i0 + 1]) - Float(r[xx + i0])) * f
                let c = Float(r[xx + j0]) + (Float(r[xx + j0 + 1]) - Float(r[xx + j0])) * g
                sa += a; saa += a * a; n += 1
                sb += b; sbb += b * b; sab += a * b
                sc += c; scc += c * c; sac += a * c
            }
        }
        return correlations(sa: sa, saa: saa, sb: sb, sbb: sbb, sab: sab, sc: sc, scc: scc, sac: sac, n: n)
    }

    /// The correlations from a patch's sums.
    @inline(__always)
    static func correlations(sa: Float, saa: Float, sb: Float, sbb: Float, sab: Float, sc: Float, scc: Float, sac: Float,
                             n: Float) -> (flat: Bool, atMatch: Float, atOther: Float) {
        let va = saa - sa * sa / n
        let vb = sbb - sb * sb / n, vc = scc - sc * sc / n
        let atMatch = vb > 0 && va > 0 ? (sab - sa * sb / n) / (va * vb).squareRoot() : -1
        let atOther = vc > 0 && va > 0 ? (sac - sa * sc / n) / (va * vc).squareRoot() : -1
        return (va < 4 * n, atMatch, atOther)
    }

    /// Whether the luma patch around (`x`, `y`) looks like itself `lag` px to either side
    /// (normalised cross-correlation ≥ 0.8), or is flat (nothing to match).
    static func selfSimilar(_ luma: Plane, x: Int, y: Int, half: Int, lag: Float) -> Bool {
        let iw = luma.width, ih = luma.height
        let reach = Int(abs(lag).rounded(.up)) + 1
        guard y - half >= 0, y + half < ih, x - half - reach >= 0, x + half + reach < iw else { return false }
        var best: Float = -1
        var flat = false
        for sign: Float in [-1, 1] {
            let shift = sign * lag
            let i0 = Int(shift.rounded(.down)), f = shift - Float(i0)
            var sa: Float = 0, sb: Float = 0, saa: Float = 0, sbb: Float = 0, sab: Float = 0, n: Float = 0
            for yy in stride(from: y - half, through: y + half, by: 2) {
                let row = luma.row(yy, as: UInt8.self)
                for xx in stride(from: x - half, through: x + half, by: 2) {
                    let a = Float(row[xx])
                    let b = Float(row[xx + i0]) * (1 - f) + Float(row[xx + i0 + 1]) * f
                    sa += a; sb += b; saa += a * a; sbb += b * b; sab += a * b; n += 1
                }
            }
            let va = saa - sa * sa / n, vb = sbb - sb * sb / n
            if va < 4 * n { flat = true; break }          // under 2 levels of deviation: a flat colour
            guard vb > 0 else { continue }
            best = max(best, (sab - sa * sb / n) / (va * vb).squareRoot())
        }
        return flat || best >= 0.8
    }

    /// The region's top outline (per column of its box, the first row holding it, relative to
    /// `minY`; `Int.max` where none) and its head peaks (columns relative to `minX`): the highest
    /// column within a sixteenth of the width on each side, the first of a flat run.
    func outline(_ region: Region, width w: Int) -> (top: [Int], peaks: [Int]) {
        let span = region.maxX - region.minX + 1
        var top = [Int](repeating: Int.max, count: span)
        for y in region.minY...region.maxY {
            for x in region.minX...region.maxX where top[x - region.minX] == Int.max && labels[y * w + x] == region.label {
                top[x - region.minX] = y - region.minY
            }
        }
        return (top, Self.peaks(of: top, radius: max(2, span / 16)))
    }

    /// The peaks of an outline (`top` per column, `Int.max` where none): the highest column
    /// within `radius` on each side, the first of a flat run.
    static func peaks(of top: [Int], radius: Int) -> [Int] {
        var peaks: [Int] = []
        for x in top.indices where top[x] != Int.max {
            let window = max(0, x - radius)...min(top.count - 1, x + radius)
            // Higher than everything to its left, at least as high as everything to its right.
            if window.allSatisfy({ $0 < x ? top[$0] > top[x] : top[$0] >= top[x] }) { peaks.append(x) }
        }
        return peaks
    }

    /// The plane through `samples`: iteratively reweighted least squares from their median.
    private func fit(_ samples: [Sample]) -> Surface? {
        guard samples.count >= 12 else { return nil }
        var s = Surface(a: Self.median(samples.map(\.d)), b: 0, c: 0)
        var cx: Float = 0, cy: Float = 0
        for p in samples { cx += Float(p.x); cy += Float(p.y) }
        cx /= Float(samples.count); cy /= Float(samples.count)
        // The samples as columns, padded to whole lanes of 4 with weightless copies of the first
        // (a 4-lane loop, the sums kept in Double lanes).
        let n = samples.count, padded = (n + 3) / 4 * 4
        var xs = [Float](repeating: Float(samples[0].x), count: padded), ys = [Float](repeating: Float(samples[0].y), count: padded)
        var ts = [Float](repeating: samples[0].d, count: padded), live = [Float](repeating: 0, count: padded)
        for (k, p) in samples.enumerated() { xs[k] = Float(p.x); ys[k] = Float(p.y); ts[k] = p.d; live[k] = 1 }
        for round in 0..<settings.iterations {
            // Normal equations in coordinates centred on the samples (well conditioned). Huber
            // weights first (they converge from anywhere), then Tukey's biweight, which gives a
            // wrong match (a stripe matched to the next one) no weight at all.
            let tukey = round >= 2, cutoff = 3 * settings.huber, huber = settings.huber
            var a0 = SIMD4<Double>(), ax = a0, ay = a0, axx = a0, axy = a0, ayy = a0, at = a0, axt = a0, ayt = a0
            let (sa, sb, sc) = (s.a, s.b, s.c)
            xs.withUnsafeBufferPointer { xs in
                ys.withUnsafeBufferPointer { ys in
                    ts.withUnsafeBufferPointer { ts in
                        live.withUnsafeBufferPointer { live in
                            func lane(_ p: UnsafeBufferPointer<Float>, _ k: Int) -> SIMD4<Float> {
                                UnsafeRawPointer(p.baseAddress! + k).loadUnaligned(as: SIMD4<Float>.self)
                            }
                            for k in stride(from: 0, to: padded, by: 4) {
                                let x = lane(xs, k), y = lane(ys, k), t = lane(ts, k)
                                let bx: SIMD4<Float> = sb * x, cy4: SIMD4<Float> = sc * y
                                let plane: SIMD4<Float> = sa + bx + cy4
                                let diff: SIMD4<Float> = t - plane
                                let r: SIMD4<Float> = diff.replacing(with: -diff, where: diff .< 0)
                                let q: SIMD4<Float> = r / cutoff
                                var wgt: SIMD4<Float>
                                if tukey {
                                    wgt = (1 - q * q) * (1 - q * q)
                                    wgt.replace(with: 0, where: r .>= cutoff)
                                } else {
                                    wgt = SIMD4(repeating: 1)
                                    wgt.replace(with: huber / r, where: r .> huber)
                                }
                                let w = SIMD4<Double>(wgt * lane(live, k))
                                let px = SIMD4<Double>(x - cx), py = SIMD4<Double>(y - cy), td = SIMD4<Double>(t)
                                let wx: SIMD4<Double> = w * px, wy: SIMD4<Double> = w * py
                                // The symmetric 3×3 normal matrix of (1, px, py), accumulated in lanes.
                                a0 += w; ax += wx; ay += wy
                                axx += wx * px; axy += wx * py; ayy += wy * py
                                at += w * td; axt += wx * td; ayt += wy * td
                            }
                        }
                    }
                }
            }
            let s0 = a0.sum(), sx = ax.sum(), sy = ay.sum(), sxx = axx.sum(), sxy = axy.sum(), syy = ayy.sum()
            let v = [at.sum(), axt.sum(), ayt.sum()]
            var m = [s0, sx, sy, sx, sxx, sxy, sy, sxy, syy]
            // People stand roughly square to a webcam: a slope has to earn its keep against
            // the ridge (a tilt the matches only hint at stays flat).
            let total = m[0]
            guard total > 0 else { break }
            m[4] += Double(settings.slopeRidge) * total
            m[8] += Double(settings.slopeRidge) * total
            guard let sol = Self.solve3(m, v) else { break }
            let b = Float(sol[1]), c = Float(sol[2])
            s = Surface(a: Float(sol[0]) - b * cx - c * cy, b: b, c: c)
        }
        guard s.a.isFinite, s.b.isFinite, s.c.isFinite else { return nil }
        return s
    }

    /// Which surface each pixel of the region's box takes: the one most samples within
    /// ``Settings/voteRadius`` are closer to (a box sum of ±1 votes; the first surface on a tie).
    private func assign(region: Region, samples: [Sample], surfaces: [Surface], width w: Int) -> [UInt8] {
        let bw = region.maxX - region.minX + 1, bh = region.maxY - region.minY + 1
        var choice = [UInt8](repeating: 0, count: bw * bh)
        let k = surfaces.count
        guard k >= 2 else { return choice }
        // One integral image of votes per surface: each sample votes for the surface nearest it.
        let stride = (bw + 1) * (bh + 1)
        var vote = [Int32](repeating: 0, count: k * stride)
        for p in samples {
            var best = 0, error = Float.infinity
            for s in 0..<k {
                let e = abs(p.d - surfaces[s].disparity(p.x, p.y))
                if e < error { (best, error) = (s, e) }
            }
            vote[best * stride + (p.y - region.minY + 1) * (bw + 1) + p.x - region.minX + 1] = 1
        }
        for s in 0..<k {
            let o = s * stride
            for y in 1...bh {
                var row: Int32 = 0
                for x in 1...bw {
                    row += vote[o + y * (bw + 1) + x]
                    vote[o + y * (bw + 1) + x] = vote[o + (y - 1) * (bw + 1) + x] + row
                }
            }
        }
        let r = settings.voteRadius
        for y in 0..<bh {
            let y0 = max(0, y - r), y1 = min(bh, y + r + 1)
            for x in 0..<bw {
                let x0 = max(0, x - r), x1 = min(bw, x + r + 1)
                var best = 0, most: Int32 = -1
                for s in 0..<k {
                    let o = s * stride
                    let sum = vote[o + y1 * (bw + 1) + x1] - vote[o + y0 * (bw + 1) + x1] - vote[o + y1 * (bw + 1) + x0]
                        + vote[o + y0 * (bw + 1) + x0]
                    if sum > most { (best, most) = (s, sum) }
                }
                choice[y * bw + x] = UInt8(best)
            }
        }
        return choice
    }

    /// Where two surfaces of one region meet on a row, the nearer one's votes reach into the
    /// farther person: the matcher's window straddles the outline, so samples of the far person
    /// beside a textured near one carry the near depth (a flat sweater beside a plaid shirt takes
    /// the plaid's depth for a dozen pixels). From each such meeting the near side is walked back,
    /// sample by sample, while a small patch of the views matches the far disparity as well as
    /// the near one (or is flat); the first sample the views give clearly to the near surface is
    /// the outline. A walk of ``Settings/boundaryReach`` samples that never meets such a sample
    /// (both people flat there) changes nothing.
    private func drawnByTheViews(_ choice: inout [UInt8], region: Region, surfaces: [Surface], left: Plane, right: Plane,
                                 cut: (left: Bool, right: Bool), mapWidth w: Int, mapHeight h: Int, referenceWidth: Int) {
        let bw = region.maxX - region.minX + 1
        guard bw >= 2, right.width == left.width, right.height == left.height else { return }
        let scaleX = Float(left.width) / Float(w), scaleY = Float(left.height) / Float(h)
        let toImage = Float(left.width) / Float(referenceWidth)
        let half = max(3, Int((0.75 * scaleX).rounded()))
        let reach = settings.boundaryReach
        // Each row's choices as the votes made them (walks change `choice` as they go).
        var original = [UInt8](repeating: 0, count: bw)
        for y in region.minY...region.maxY {
            let base = (y - region.minY) * bw
            for x in 0..<bw { original[x] = choice[base + x] }
            for x in 0..<(bw - 1) where original[x] != original[x + 1] {
                let gx = region.minX + x
                guard labels[y * w + gx] == region.label, labels[y * w + gx + 1] == region.label else { continue }
                let a = surfaces[Int(original[x])].disparity(gx, y), b = surfaces[Int(original[x + 1])].disparity(gx + 1, y)
                guard abs(a - b) >= 1 else { continue }
                // The near side's first sample, the step into it, and the far surface.
                let (start, step, farLabel, nearD, farD): (Int, Int, UInt8, Float, Float) =
                    a > b ? (x, -1, original[x + 1], a, b) : (x + 1, 1, original[x], b, a)
                let nearLabel = original[start]
                var j = start, walked = 0, verdict = false
                while walked < reach, original[j] == nearLabel, labels[y * w + region.minX + j] == region.label {
                    let cx = Int((Float(region.minX + j) + 0.5) * scaleX), cy = Int((Float(y) + 0.5) * scaleY)
                    if !Self.asGood(left, right, x: cx, y: cy, half: half, match: nearD * toImage, other: farD * toImage) {
                        verdict = true
                        break
                    }
                    j += step; walked += 1
                    // A region parted between two people: the walk reached the other person.
                    if j < 0 || j >= bw { verdict = j < 0 ? cut.left : cut.right; break }
                }
                guard verdict else { continue }
                // Left of a nearer person, the far person's pixels within the two disparities'
                // difference are hidden from the right camera: they match nothing, so the views
                // may give them to the near surface. The outline is the strongest edge of the
                // picture between the last sample the views left open and that width beyond.
                if step == 1, j < bw, original[j] == nearLabel {
                    let hidden = Int(((nearD - farD) * toImage / scaleX).rounded(.up)) + 1
                    let from = Int((Float(region.minX + j) - 0.5) * scaleX)
                    let to = Int((Float(region.minX + min(bw - 1, j + hidden)) + 0.5) * scaleX)
                    let edge = Self.strongestEdge(left, from: from, to: to, rows: Int(Float(y) * scaleY)..<Int(Float(y + 1) * scaleY))
                    while j < bw, original[j] == nearLabel, (Float(region.minX + j) + 0.5) * scaleX < Float(edge) { j += 1; walked += 1 }
                }
                guard walked > 0 else { continue }
                var k = start
                for _ in 0..<walked { choice[base + k] = farLabel; k += step }
            }
        }
    }

    /// The column in `from...to` (clamped to the picture) where the luma steps most across
    /// `rows`: the first pixel right of the step. A step is the difference of the means of the
    /// three pixels on each side (a texture's pixel-to-pixel noise is not an outline).
    static func strongestEdge(_ luma: Plane, from: Int, to: Int, rows: Range<Int>) -> Int {
        let lo = max(3, from), hi = min(luma.width - 3, to)
        let ys = max(0, rows.lowerBound)..<min(luma.height, max(rows.upperBound, rows.lowerBound + 1))
        guard lo < hi, !ys.isEmpty else { return from }
        var best = lo, most = -1
        for x in lo...hi {
            var step = 0
            for y in ys {
                let r = luma.row(y, as: UInt8.self)
                step += abs(Int(r[x]) + Int(r[x + 1]) + Int(r[x + 2]) - Int(r[x - 1]) - Int(r[x - 2]) - Int(r[x - 3]))
            }
            if step > most { (best, most) = (x, step) }
        }
        return best
    }

    /// The region's samples (in its bounding box, row by row) where the matcher sees the
    /// background the matte took for the person: a run of confident matches reaching in from a
    /// background sample beyond the outline along its row, at most
    /// ``Settings/backgroundReach`` long, each within ``Settings/backgroundTolerance`` of that
    /// sample and well behind every surface of the region.
    private func backgroundSeenInside(region: Region, surfaces: [Surface], d: [Float], confidence: Image?, width w: Int) -> [Bool] {
        let bw = region.maxX - region.minX + 1, bh = region.maxY - region.minY + 1
        var seen = [Bool](repeating: false, count: bw * bh)
        let conf = confidence?.plane(0)
        let minimum = settings.minimumConfidence, reach = settings.backgroundReach, tol = settings.backgroundTolerance
        func confident(_ x: Int, _ y: Int) -> Bool { conf.map { $0.row(y, as: UInt8.self)[x] >= minimum } ?? true }
        func behind(_ v: Float, _ x: Int, _ y: Int) -> Bool { surfaces.allSatisfy { v < $0.disparity(x, y) - 3 * settings.huber } }
        // From each outside sample beside the region on its row, inwards along the row.
        for y in region.minY...region.maxY {
            let row = y * w
            for x in region.minX...region.maxX where labels[row + x] == region.label {
                for dx in [1, -1] {
                    let ox = x - dx
                    guard ox >= 0, ox < w, labels[row + ox] != region.label else { continue }
                    let out = d[row + ox]
                    guard out.isFinite, behind(out, ox, y) else { continue }
                    var ix = x
                    while abs(ix - x) < reach, ix >= region.minX, ix <= region.maxX {
                        let i = row + ix
                        guard labels[i] == region.label, d[i].isFinite, abs(d[i] - out) <= tol,
                              confident(ix, y), behind(d[i], ix, y) else { break }
                        seen[(y - region.minY) * bw + ix - region.minX] = true
                        ix += dx
                    }
                }
            }
        }
        return seen
    }

    /// The samples on each side of the region's outline — a sample on one of its `surfaces`
    /// beside one more than 3 px of disparity behind it — blended by the views: each of the
    /// sample's pixels is the person's when the right view matches its 3×3 window better at the
    /// person's disparity than at the background's, and the sample becomes the two disparities
    /// blended in that share (what the truth averaged over the sample would be). Where a person's
    /// sample goes (mostly) to the background, the test goes on inwards
    /// (``Settings/outlineInwardLayers``).
    private func coveredByTheViews(region: Region, surfaces: [Surface], d: inout [Float], left: Plane, right: Plane,
                                   mapWidth w: Int, mapHeight h: Int, referenceWidth: Int) {
        // Views at the map's own size (a kept pair) have one pixel a sample: no share to count.
        guard !surfaces.isEmpty, right.width == left.width, right.height == left.height, left.width >= 2 * w else { return }
        let toImage = Float(left.width) / Float(referenceWidth)
        // Each outline sample once, with the person's and the background's disparity.
        var outline: [(index: Int, person: Float, background: Float)] = []
        var inward: [(index: Int, person: Float, background: Float, dx: Int, dy: Int)] = []
        var listed = [Bool](repeating: false, count: w * h)
        // Whether sample `k` was not listed yet (and is now).
        func list(_ k: Int) -> Bool {
            defer { listed[k] = true }
            return !listed[k]
        }
        let softLevel = settings.softTopLevel
        for y in max(0, region.minY - max(0, settings.softTopReach))...region.maxY {
            for x in region.minX...region.maxX {
                let i = y * w + x, v = d[i], inside = labels[i] == region.label
                // Outside the region, under a soft matte: the outline above only (see ``Settings/softTopReach``).
                guard inside || (labels[i] <= 0 && person[i] >= softLevel) else { continue }
                let tolerance: Float = inside ? 1.5 : settings.softTopTolerance
                guard v.isFinite, let surface = surfaces.first(where: { abs($0.disparity(x, y) - v) <= tolerance }) else { continue }
                let near = surface.disparity(x, y)
                // Not leftwards: left of a nearer surface the left view shows what the right one
                // does not (the farther side is hidden there, and matches nothing at its own depth).
                for (dx, dy) in [(1, 0), (0, 1), (0, -1)] {
                    if !inside, dy != -1 { continue }
                    let nx = x + dx, ny = y + dy
                    guard nx >= 0, nx < w, ny >= 0, ny < h else { continue }
                    let j = ny * w + nx, far = d[j]
                    guard far.isFinite, far < near - 3 else { continue }
                    if list(i) { outline.append((i, near, far)) }
                    if list(j) { outline.append((j, near, far)) }
                    inward.append((i, near, far, -dx, -dy))
                }
            }
        }
        // The share of the pixels of sample (x, y) the views give `person` rather than `background`.
        func share(_ x: Int, _ y: Int, person: Float, background: Float) -> Float? {
            ViewsShare.near(left, right, x: x, y: y, mapWidth: w, mapHeight: h, near: person, far: background, toImage: toImage)
        }
        // The test reads only the views: the samples are judged on ``Settings/threads`` cores,
        // then written.
        var shares = [Float](repeating: .nan, count: outline.count)
        shares.withUnsafeMutableBufferPointer { out in
            let all = out
            RowBands.run(0..<outline.count, bands: outline.count >= 256 ? max(1, settings.threads) : 1) { _, range in
                for k in range {
                    let sample = outline[k]
                    all[k] = share(sample.index % w, sample.index / w, person: sample.person, background: sample.background) ?? .nan
                }
            }
        }
        for (sample, s) in zip(outline, shares) where !s.isNaN {
            d[sample.index] = sample.background + s * (sample.person - sample.background)
        }
        // Where the views gave a person's outline sample to the background, the matte reached
        // past the person: the next sample inwards is judged too, layer by layer.
        let limit = settings.outlineInwardShare
        var front = inward.filter { d[$0.index] <= $0.background + limit * ($0.person - $0.background) }
        for _ in 0..<settings.outlineInwardLayers where !front.isEmpty {
            var next: [(index: Int, person: Float, background: Float, dx: Int, dy: Int)] = []
            for f in front {
                let x = f.index % w + f.dx, y = f.index / w + f.dy
                guard x >= 0, x < w, y >= 0, y < h else { continue }
                let k = y * w + x
                guard labels[k] == region.label, abs(d[k] - f.person) <= 1.5, list(k),
                      let s = share(x, y, person: f.person, background: f.background) else { continue }
                d[k] = f.background + s * (f.person - f.background)
                if s <= limit { next.append((k, f.person, f.background, f.dx, f.dy)) }
            }
            front = next
        }
    }

    /// The samples around each left outline of the region, blended in the share of their pixels
    /// right of the person's edge as the views and the picture place it.
    ///
    /// Left of a person the background is hidden from the right camera for the width of the
    /// depth step, so the test of ``coveredByTheViews`` (which depth matches better) says nothing
    /// there, and the matcher's fattening and the coarse matte leave a ring of the person's depth
    /// on the wall. But the person's own pixels match at the person's depth and the hidden wall's
    /// do not: along each row of the outline (``Settings/leftOutlineReach`` samples each way of
    /// the region's first sample), the edge is the column that best parts pixels that do not
    /// match at the person's disparity (left) from pixels that do (right), helped by the
    /// picture's own step there. The samples become the background beyond and the person's
    /// surface blended in that share. Inside a region (``Settings/innerLeftOutlines``) the same
    /// holds where a sample's left neighbour lies farther: the background is then the middle of
    /// the farther samples to its left.
    private func leftOutlineByTheViews(region: Region, surfaces: [Surface], d: inout [Float], fitted: inout [Bool], left: Plane, right: Plane,
                                       mapWidth w: Int, mapHeight h: Int, referenceWidth: Int) {
        guard !surfaces.isEmpty, left.width >= 2 * w, right.width == left.width, right.height == left.height else { return }
        let iw = left.width, ih = left.height, innerReach = settings.leftOutlineReach, outerReach = settings.leftOutlineOuterReach
        var writes: [(index: Int, value: Float, held: Bool)] = []
        var behind: [Float] = []
        behind.reserveCapacity(innerReach + 2)
        for y in region.minY...region.maxY {
            for x in region.minX...region.maxX where labels[y * w + x] == region.label {
                let i = y * w + x, v = d[i]
                guard x > 0, v.isFinite, let surface = surfaces.first(where: { abs($0.disparity(x, y) - v) <= 1.5 }) else { continue }
                var background = Float.infinity
                let inner = labels[i - 1] == region.label
                if !inner {
                    // The background beyond: the farthest of the samples to the left outside people.
                    for k in 1...(outerReach + 2) where x - k >= 0 && labels[i - k] == 0 { background = min(background, d[i - k]) }
                } else if settings.innerLeftOutlines, d[i - 1] < surface.disparity(x, y) - 3 {
                    // In front of something farther under the same matte region (a person behind,
                    // or the wall the matte spans): the middle of what lies farther to the left.
                    behind.removeAll(keepingCapacity: true)
                    for k in 1...(innerReach + 2) where x - k >= 0 && d[i - k] < surface.disparity(x, y) - 3 { behind.append(d[i - k]) }
                    behind.sort()
                    background = behind[behind.count / 2]
                }
                guard background.isFinite, background < surface.disparity(x, y) - 3 else { continue }
                let reach = inner ? innerReach : outerReach, a = x - reach, b = x + reach
                let edge = Self.personEdge(left, right, from: a * iw / w, to: b * iw / w, rows: (y * ih / h)..<((y + 1) * ih / h),
                                           shift: surface.disparity(x, y) * Float(iw) / Float(referenceWidth),
                                           match: settings.leftOutlineMatch, pictureWeight: settings.leftOutlinePicture)
                for sx in max(0, a)..<min(w, b) {
                    let lo = sx * iw / w, hi = (sx + 1) * iw / w
                    let share = Float(min(max(hi - edge, 0), hi - lo)) / Float(hi - lo)
                    writes.append((y * w + sx, background + share * (surface.disparity(sx, y) - background), inner))
                }
            }
        }
        // (Every outline is judged on the map as it was.)
        for write in writes {
            d[write.index] = write.value
            // An outline inside a region is decided anew each frame from a few pixels: where the
            // picture stands still it is held like the background (see `filterOverTime`).
            if write.held { fitted[write.index] = false }
        }
    }

    /// The column in `from..<to` of the person's left edge over `rows` of the views: the column
    /// `e` that maximises how much the pixels from `e` on match at `shift` (the person's
    /// disparity in pixels of the views), less how much the pixels before it do — each pixel's
    /// 3×3 mean absolute difference against `match` — plus `pictureWeight` times the picture's
    /// step at `e` (mean of three columns each side).
    static func personEdge(_ left: Plane, _ right: Plane, from: Int, to: Int, rows: Range<Int>, shift: Float,
                           match: Float, pictureWeight: Float) -> Int {
        let lo = max(3, from), hi = min(left.width - 3, to)
        let ys = max(1, rows.lowerBound)..<min(left.height - 1, max(rows.upperBound, rows.lowerBound + 1))
        guard lo < hi, !ys.isEmpty else { return from }
        let s = Int(shift.rounded())
        // (Small scratch rows on the stack: this runs for every row of every left outline.)
        return withUnsafeTemporaryAllocation(of: Float.self, capacity: 3 * (hi - lo) + 2) { scratch in
        let gain = UnsafeMutableBufferPointer(rebasing: scratch[0..<(hi - lo)])
        let step = UnsafeMutableBufferPointer(rebasing: scratch[(hi - lo)..<(2 * (hi - lo))])
        // Each column's differences at the shift, over the rows the 3×3 windows of `ys` cover,
        // each row counted once for every window that holds it: a window's cost is then the sum
        // of three columns (whole numbers all, so the sums are exact in any order).
        let columns = UnsafeMutableBufferPointer(rebasing: scratch[(2 * (hi - lo))...])
        for c in columns.indices { columns[c] = 0 }
        let first = max(lo - 1, s), last = min(hi + 1, right.width + s)
        if first < last {
            for yy in (ys.lowerBound - 1)...ys.upperBound {
                let times = Float(min(ys.upperBound - 1, yy + 1) - max(ys.lowerBound, yy - 1) + 1)
                guard times > 0 else { continue }
                let l = left.row(yy, as: UInt8.self), q = right.row(yy, as: UInt8.self)
                for x in first..<last { columns[x - lo + 1] += times * abs(Float(l[x]) - Float(q[x - s])) }
            }
        }
        let n = Float(9 * ys.count)
        for x in lo..<hi {
            var jump: Float = 0
            for y in ys {
                let r = left.row(y, as: UInt8.self)
                jump += abs(Float(Int(r[x]) + Int(r[x + 1]) + Int(r[x + 2]) - Int(r[x - 1]) - Int(r[x - 2]) - Int(r[x - 3])))
            }
            let xr = x - s
            let cost = columns[x - lo] + columns[x - lo + 1] + columns[x - lo + 2]
            gain[x - lo] = xr >= 1 && xr + 1 < right.width ? match - cost / n : 0
            step[x - lo] = jump / Float(3 * ys.count)
        }
        let total = gain.reduce(0, +)
        var before: Float = 0, best = lo, most = -Float.infinity
        for x in lo..<hi {
            let score = total - 2 * before + pictureWeight * step[x - lo]
            if score > most { (best, most) = (x, score) }
            before += gain[x - lo]
        }
        return best
        }
    }

    /// Background samples beside the region that carry the person's depth (the matcher's
    /// fattening) take the disparity of the background beyond them on their row — save those
    /// whose own pixels match the right view at their own depth (``Settings/fatteningMatch``):
    /// a person behind, outside the matte, beside the one in front.
    private func giveBackFattening(region: Region, surface: Surface, d: inout [Float], decided: inout [Bool], confidence: Image?, width w: Int, height h: Int,
                                   sampleWidth: Float, views: (Plane, Plane)?, referenceWidth: Int) {
        let reach = settings.reach, tol = settings.fatteningTolerance
        let keepAt = settings.fatteningMatch, keepBy = settings.fatteningMargin
        // Whether a sample's own pixels match at its own depth, and clearly better than at the
        // background's: something really there (a person behind, outside the matte), not fattening.
        func real(_ bx: Int, _ y: Int, _ v: Float, _ beyond: Float) -> Bool {
            guard keepAt <= 1, let (left, right) = views, referenceWidth > 0 else { return false }
            let toImage = Float(left.width) / Float(referenceWidth)
            let cx = (2 * bx + 1) * left.width / (2 * w), cy = (2 * y + 1) * left.height / (2 * h)
            guard let c = Self.correlations(left, right, x: cx, y: cy, half: 4, match: v * toImage, other: beyond * toImage) else { return false }
            return !c.flat && c.atMatch >= keepAt && c.atMatch >= c.atOther + keepBy
        }
        for y in region.minY...region.maxY {
            let base = y * w
            for x in region.minX...region.maxX where labels[base + x] == region.label {
                // Leftwards from a left edge, rightwards from a right edge.
                for dir in stride(from: -1, through: 1, by: 2) {
                    let nx = x + dir
                    guard nx >= 0, nx < w, labels[base + nx] != region.label, person[base + nx] < settings.personLevel else { continue }
                    if dir < 0, giveBackTheBorder(row: y, from: x, surface: surface, d: &d, decided: &decided, confidence: confidence, width: w, height: h,
                                                     sampleWidth: sampleWidth) {
                        continue
                    }
                    // The background value beyond the fattened run.
                    var beyond: Float?
                    var k = 1
                    while k <= reach + 1 {
                        let bx = x + dir * k
                        if bx < 0 || bx >= w { break }
                        let v = d[base + bx]
                        if labels[base + bx] == 0 && v.isFinite && v < surface.disparity(bx, y) - tol { beyond = v; break }
                        k += 1
                    }
                    guard let beyond else { continue }
                    for j in 1..<k {
                        let bx = x + dir * j
                        if labels[base + bx] == 0 && !real(bx, y, d[base + bx], beyond) { d[base + bx] = beyond }
                    }
                }
            }
        }
    }

    /// Left of a person near the frame's left edge the right camera sees nothing (the stereo
    /// border: a left pixel at `x` has no match when `x` is under its disparity), and the matcher
    /// carries the person's depth out to the edge. Outside the matte that is the background:
    /// the samples of the row left of `x` that are no person (with ``Settings/borderWhole`` off,
    /// only those that carry the person's depth, within ``Settings/borderShare`` of it) take the
    /// median of the background found above or below
    /// each of them (the nearest confident sample of its column outside people and behind the
    /// person). Returns whether the row's edge lies in the border (and was handled here).
    private func giveBackTheBorder(row y: Int, from x: Int, surface: Surface, d: inout [Float], decided: inout [Bool], confidence: Image?,
                                   width w: Int, height h: Int, sampleWidth: Float) -> Bool {
        // Only where the person's own edge lies in the border (with a sample to spare; with
        // ``Settings/borderWhole``, two more: a strip that narrow beside the border is hidden
        // from the right camera all the same).
        let spare = settings.borderWhole ? 3 : 1
        guard x > 0, Float(x - spare) * sampleWidth <= surface.disparity(x, y) else { return false }
        let tol = settings.fatteningTolerance, minimum = settings.minimumConfidence
        func background(_ bx: Int, _ ny: Int) -> Float? {
            let j = ny * w + bx, v = d[j]
            guard labels[j] == 0, person[j] < settings.personLevel, v.isFinite, v < surface.disparity(bx, y) - 3 * tol,
                  confidence.map({ $0.plane(0).row(ny, as: UInt8.self)[bx] >= minimum }) ?? true else { return nil }
            return v
        }
        var run: [Int] = [], found: [Float] = []
        for bx in 0..<x {
            let i = y * w + bx, own = surface.disparity(bx, y)
            guard labels[i] == 0, person[i] < settings.personLevel,
                  settings.borderWhole || abs(d[i] - own) <= max(2 * tol, settings.borderShare * own) else { continue }
            run.append(i)
            search: for step in 1..<h {
                for ny in stride(from: y - step, through: y + step, by: 2 * step) where ny >= 0 && ny < h {
                    if let v = background(bx, ny) { found.append(v); break search }
                }
            }
        }
        if !found.isEmpty {
            let value = Self.median(found)
            for i in run { d[i] = value; decided[i] = true }
        }
        return true
    }

    /// Per sample, 1 where the picture stands still since the last frame: the sample's area mean
    /// and its 8 neighbours' all within ``Settings/stillPicture`` (a moving shirt whose mean
    /// happens to equal the wall's behind it in one sample does not pass in nine); all 0 without
    /// a last frame of this size. Worked out branch-free on bytes (1 = changed): a row's change
    /// or-ed with the rows above and below, then with the columns either side.
    private func stillSamples(_ luma: [UInt8], width w: Int, height h: Int) -> [UInt8] {
        let n = w * h, quiet = Int(settings.stillPicture)
        var calm = [UInt8](repeating: 0, count: n)
        guard luma.count == n, previousLuma.count == n, previousSize == (w, h), w >= 3, h >= 3 else { return calm }
        var changed = [UInt8](repeating: 0, count: n), column = [UInt8](repeating: 0, count: n)
        luma.withUnsafeBufferPointer { now in
            previousLuma.withUnsafeBufferPointer { last in
                changed.withUnsafeMutableBufferPointer { c in
                    for i in 0..<n { c[i] = abs(Int16(now[i]) - Int16(last[i])) > Int16(quiet) ? 1 : 0 }
                }
            }
        }
        changed.withUnsafeBufferPointer { c in
            column.withUnsafeMutableBufferPointer { v in
                for i in w..<(n - w) { v[i] = c[i - w] | c[i] | c[i + w] }
            }
        }
        column.withUnsafeBufferPointer { v in
            calm.withUnsafeMutableBufferPointer { out in
                for y in 1..<(h - 1) {
                    let row = y * w
                    for i in (row + 1)..<(row + w - 1) { out[i] = (v[i - 1] | v[i] | v[i + 1]) ^ 1 }
                }
            }
        }
        return calm
    }

    /// Still samples outside people lean on their last value; moving ones follow at once.
    ///
    /// With the view given, "still" is read from the picture (`calm`, from
    /// ``stillSamples(_:width:height:)``): where the view's area mean over a sample and each of
    /// its 8 neighbours moved by less than ``Settings/stillPicture`` levels since the last frame,
    /// nothing there moved, so the depth cannot have either — the sample keeps
    /// ``Settings/heldStill`` of its last value whatever the matcher now says (a stripe or an
    /// edge it flips between two matches, a hole). Elsewhere, or without a view, a sample whose
    /// disparity moved by less than ``Settings/stillThreshold`` leans on its last value by
    /// ``Settings/temporal``. A person's fitted surface is held only where it jumps by more than
    /// ``Settings/heldJump`` in a still picture where the matte just lost some of its certainty:
    /// someone in a plain shirt walking towards the camera looks the same from frame to frame
    /// while their depth changes, and their fit is taken as it is.
    private mutating func filterOverTime(_ d: inout [Float], fitted: [Bool], calm: [UInt8], luma: [UInt8], width w: Int, height h: Int) {
        let alpha = min(max(settings.temporal, 0), 0.95), held = min(max(settings.heldStill, 0), 0.98)
        defer {
            previous = d
            previousLuma = luma
            previousSize = (w, h)
            previousFitted = fitted
            previousPerson = person
        }
        guard alpha > 0 || held > 0, previousSize == (w, h), previous.count == d.count, previousFitted.count == d.count,
              previousPerson.count == d.count, calm.count == d.count else { return }
        let jump = settings.heldJump, drop = settings.matteDrop
        let still = settings.stillThreshold
        let n = d.count
        let person = self.person, previous = self.previous, previousFitted = self.previousFitted, previousPerson = self.previousPerson
        d.withUnsafeMutableBufferPointer { d in
            for i in 0..<n {
                let now = d[i], last = previous[i], change = now - last
                let known = last.isFinite, seen = now.isFinite, moved = abs(change)
                // Held: the background where the picture stands still, and a person there whom the
                // matte is losing and whose depth jumped.
                let lost = previousFitted[i] && person[i] + drop < previousPerson[i] && (!seen || moved > jump)
                let hold = known && calm[i] != 0 && (!fitted[i] || lost)
                let lean = known && !hold && !fitted[i] && seen && moved < still
                let kept = seen ? last + (1 - held) * change : last
                d[i] = hold ? kept : lean ? last + (1 - alpha) * change : now
            }
        }
    }

    /// The view's area mean over each map sample (`w`×`h`).
    static func areaMeans(_ view: Plane, width w: Int, height h: Int) -> [UInt8] {
        var luma = [UInt8](repeating: 0, count: w * h)
        var acc = [UInt32](repeating: 0, count: view.width)
        luma.withUnsafeMutableBufferPointer { o in
            acc.withUnsafeMutableBufferPointer { a in
                AreaDownscaler.downscale(view, rows: 0..<h, width: w, height: h, into: o.baseAddress!, stride: w,
                                         accumulator: a.baseAddress!)
            }
        }
        return luma
    }

    /// Whether the picture at an outline sample of region `label` looks like the person's inside
    /// more than like the background beside it: its mean luma against the first inside sample
    /// (``Settings/interiorLevel``) and the first sample outside the region, each within three
    /// samples along the matte's steeper axis. `false` when either is missing.
    private func looksInside(_ x: Int, _ y: Int, luma: [UInt8], label: Int32, width w: Int, height h: Int) -> Bool {
        guard luma.count == w * h, x > 0, x < w - 1, y > 0, y < h - 1 else { return false }
        let i = y * w + x
        let gx = person[i + 1] - person[i - 1], gy = person[i + w] - person[i - w]
        // The step towards the inside: along the axis the matte changes most on.
        let (dx, dy) = abs(gx) >= abs(gy) ? (gx >= 0 ? 1 : -1, 0) : (0, gy >= 0 ? 1 : -1)
        var inside: UInt8?, outside: UInt8?
        for k in 1...3 {
            let (ix, iy, ox, oy) = (x + k * dx, y + k * dy, x - k * dx, y - k * dy)
            if inside == nil, ix >= 0, ix < w, iy >= 0, iy < h, labels[iy * w + ix] == label, person[iy * w + ix] >= settings.interiorLevel {
                inside = luma[iy * w + ix]
            }
            if outside == nil, ox >= 0, ox < w, oy >= 0, oy < h, labels[oy * w + ox] == 0 { outside = luma[oy * w + ox] }
        }
        guard let inside, let outside else { return false }
        let l = Int(luma[i])
        return abs(l - Int(inside)) < abs(l - Int(outside))
    }

    /// The median (the upper one of an even count) by selection, not a sort.
    static func median(_ values: [Float]) -> Float { selected(values, rank: values.count / 2) }

    /// The value of rank `k` (0-based, ascending), by selection, not a sort.
    static func selected(_ values: [Float], rank k: Int) -> Float {
        var v = values
        var lo = 0, hi = v.count - 1
        while lo < hi {
            let pivot = v[(lo + hi) / 2]
            var i = lo, j = hi
            while i <= j {
                while v[i] < pivot { i += 1 }
                while v[j] > pivot { j -= 1 }
                if i <= j { v.swapAt(i, j); i += 1; j -= 1 }
            }
            if k <= j { hi = j } else if k >= i { lo = i } else { break }
        }
        return v[k]
    }

    /// Solves the 3×3 system `m · x = v` (row-major), or `nil` when it is singular.
    static func solve3(_ m: [Double], _ v: [Double]) -> [Double]? {
        let det = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6])
        guard abs(det) > 1e-9 else { return nil }
        func replaced(_ col: Int) -> Double {
            var a = m
            for r in 0..<3 { a[r * 3 + col] = v[r] }
            return a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) + a[2] * (a[3] * a[7] - a[4] * a[6])
        }
        return [replaced(0) / det, replaced(1) / det, replaced(2) / det]
    }
}
