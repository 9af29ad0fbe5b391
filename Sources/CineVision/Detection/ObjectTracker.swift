// ObjectTracker: stable identities for detections across frames — a constant-velocity motion
// model, ByteTrack-style two-pass IoU association gated by disparity and by people's looks,
// short-miss survival, face↔body grouping, the looking-away signal and robust per-object
// disparity.
import CineMedia
import Foundation

/// Gives every detected object a stable ``Detection/id`` across frames.
///
/// Each frame call ``update(_:disparity:)`` with the detector's observations, or
/// ``predict(disparity:)`` on frames where the detector did not run (detection every N
/// frames). Association is ByteTrack's: high-confidence observations are matched to every
/// track by IoU with the predicted boxes (a body's weighed by how alike the heights, the rows
/// they stand on and the looks are), then
/// remaining tracks to low-confidence observations; pairs whose disparities disagree are never
/// matched (so two subjects crossing at different depths keep their IDs), nor bodies whose looks
/// differ (``PersonAppearance``, ``Configuration/appearanceGate``: two walkers crossing at one
/// depth, or one walking in where another was lost). Unmatched tracks coast on their velocity
/// for up to ``Configuration/maxMisses`` detection rounds; new IDs go only to unmatched
/// high-confidence observations. All state is in this value.
public struct ObjectTracker: Sendable {
    /// Tuning.
    public struct Configuration: Sendable, Hashable {
        /// Observations at or above this confidence start tracks and are matched first.
        public var highConfidence = 0.5
        /// Observations below this are ignored.
        public var lowConfidence = 0.1
        /// Minimum IoU for the first (high-confidence) pass.
        public var matchIoU = 0.2
        /// Minimum IoU for the second (low-confidence) pass.
        public var lowMatchIoU = 0.4
        /// Re-identification of tracks IoU did not match (a face that turned away and back, one
        /// clipped by the frame's edge, an occlusion): an unmatched observation takes an unmatched
        /// track of its type whose centre is within this many box sizes and whose size and
        /// disparity agree, before it may start a new ID. 0 = off.
        public var reidentifyDistance = 1.5
        /// Each missed round multiplies a track's velocity by this, so a lost track stops
        /// drifting where its motion would have taken it.
        public var missedVelocityDecay = 1.0
        /// Observations and tracks whose looks (``PersonAppearance``) differ by more than this
        /// many levels cannot match, and a lost track found again by its look may be found up to
        /// ``reidentifyByLookDistance`` box sizes away. 0 = looks are not compared.
        public var appearanceGate = 45.0
        /// How much looks weigh in matching bodies by overlap: a pair's score is multiplied by
        /// e^(−distance / this), the distance between the track's and the box's looks in levels
        /// (one person's looks lie 1–15 apart from round to round, two people's 30–60). A walker
        /// stepping out from behind a nearer one is found by their own track, whose look they
        /// keep, not by the nearer walker's, whose box they overlap more. 0 = not weighed.
        public var lookScale = 20.0
        /// How far a lost track whose look agrees (within half the gate) may be found again, in
        /// box sizes from where its motion took it.
        public var reidentifyByLookDistance = 4.0
        /// How far a lost track may be found again grows with the rounds it has been missed:
        /// at most this many box sizes for each (with the reaches above as the limits). One round
        /// after a miss the track's motion still says where it is; a window on a post 1.3 box
        /// sizes away took a walker's track after a single missed round, and kept it.
        public var reidentifyPerMiss = 0.5
        /// How much of a matched observation's look a track learns each round (only from boxes
        /// no other observation overlaps: a crossing mixes two people's colours).
        public var appearanceRate: Float = 0.3
        /// A body detector's box more than this factor taller or shorter than its walker's track
        /// moves the track to where its feet are, not its size (``bodyMeasurement``). 0 = off.
        public var bodyOutlierRatio = 1.25
        /// The frame's width over its height: the boxes are in shares of each, and how far a lost
        /// track may be found again is measured in box sizes on the picture.
        public var frameAspect = 1.0
        /// Detection rounds a track survives without a match (then its ID is retired).
        public var maxMisses = 20
        /// Detection rounds a missed track is still reported (coasting on its motion).
        public var reportedMisses = 2
        /// The same for bodies: a walker keeps their pace, so a coasting box stays on them
        /// longer than on a face (a person passing behind a pole, or missed for a few rounds).
        public var reportedBodyMisses = 4
        /// A track coasts only once it has been matched in this many detection rounds: a single
        /// stray hit (a pattern on the wall, the back of a head) is reported for its own round
        /// and not carried on.
        public var coastAfterHits = 2
        /// A body track coasts only when its last match was at least this sure: a track last
        /// matched by a weak window (a box beside the walker, or on the road they left) drifts on
        /// that window's motion.
        public var bodyCoastConfidence = 0.7
        /// A coasting body track this much inside a seen body that stands nearer (its box lower
        /// and taller) is behind them and not reported: the Caltech benchmark's people "more
        /// than 35 % occluded" are not expected to be found, and a box left there is taken for
        /// the nearer walker.
        public var hiddenBehindShare = 0.8
        /// How far a track started by an observation that ``TrackerObservation/mustMove`` must
        /// move before it is reported: where it stands (its bottom edge's middle), by this share
        /// of its width across, or of its height up or down while its size stays within 25 %.
        public var confirmingMotion = 0.5
        /// Detection rounds such a track is still reported after it last moved that far (10: 1 s
        /// at every 3 and 30 fps): a box left on a pole by someone walking past stops being
        /// reported, and so does someone who stands still, until they walk on. The detector node
        /// scales it to its own interval (a second at any `every`).
        public var stillRounds = 10
        /// A track started by an observation that ``TrackerObservation/mustMove`` this sure
        /// (a window that is a person in nearly every bench) is reported at once, as if it had
        /// just moved: it must then move within ``stillRounds`` rounds to stay reported. A walker
        /// in view when the take starts is not held back until they have walked half a stride.
        public var sureConfidence = 0.993
        /// A body's box may not grow or shrink by more than this factor in height from one round
        /// to the next to match by overlap: a tall walker's legs look like a small walker to
        /// HOG, and the legs' box, inside the walker's, overlaps it enough to take its track.
        public var bodyHeightGate = 1.6
        /// How far a body box's bottom edge may lie from a track's, as a share of the track's
        /// height, before it hardly counts in matching by overlap (its score falls linearly to
        /// 5 % there): two walkers crossing at different distances stand on different rows,
        /// and a box on the nearer one overlaps the farther one's track as well.
        public var feetReach = 0.5
        /// Relative disparity difference above which a track and an observation cannot match.
        public var disparityGate = 0.25
        /// Observations starting within this fraction of the frame's left edge are not gated by
        /// disparity: there the left view sees what the right view cannot (the stereo border),
        /// and the matcher fills in the background's disparity.
        public var untrustedLeftBorder = 0.1
        /// Position smoothing (alpha-beta filter): weight of a new measurement.
        public var alpha = 0.7
        /// Size smoothing of bodies: weight of a new measurement. A walker's height changes
        /// slowly, a body detector's boxes jump between its window sizes, and a box over two
        /// people crossing would otherwise grow the track round by round within
        /// ``bodyHeightGate`` until it fits neither.
        public var bodySizeAlpha = 0.3
        /// Velocity smoothing: weight of a new velocity measurement.
        public var beta = 0.3
        /// Missed face rounds, while its body is still tracked, after which the face is reported as looking away.
        public var awayAfterMisses = 1
        /// Shrink factor of a box before taking its median disparity (0.5 = the central half).
        public var disparityShrink = 0.5
        /// A track whose box has less than this share of its area inside the frame is not
        /// reported: a face more than half out of the picture (walking out, or a tracked box
        /// coasting past the edge) is not a subject to show or focus on.
        public var minimumShareInFrame = 0.5
        /// Creates the default configuration.
        public init() {}
    }

    /// One track's state.
    struct Track: Sendable {
        var id: Int
        var type: DetectionType
        var cx, cy, w, h: Double
        var vx = 0.0, vy = 0.0
        var misses = 0
        var framesSinceUpdate = 0
        var confidence: Double
        var facing: Facing
        var disparity: Double?
        /// The disparity when an observation last matched the track: while the track is missed,
        /// the map inside its predicted box shows whatever hides it, so re-finding it is gated
        /// by this one.
        var seenDisparity: Double?
        var groupID: Int
        var hits = 1
        /// Whether the map in the box of this missed track is nearer than the track was when
        /// last seen: someone stands in front of it, so it is not reported (but kept to be found
        /// again).
        var hidden = false
        /// The mouth opening of the observation matched this round (faces with a mesh).
        var mouthOpening: Double?
        /// For a track started by an observation that ``TrackerObservation/mustMove``: where it
        /// stood when it last moved (the middle of its bottom edge: where a person stands, which
        /// stays put when a box on a pole grows or shrinks); `nil` for other tracks.
        var anchor: (x: Double, y: Double, h: Double)?
        /// Detection rounds since the track last moved from its ``anchor`` (starts unconfirmed).
        var stillRounds = Int.max / 2
        /// What it looks like, learnt from the observations that matched it.
        var appearance: PersonAppearance?

        var rect: NormalizedRect { NormalizedRect(x: cx - w / 2, y: cy - h / 2, width: w, height: h) }
        /// The disparity an observation must agree with: the current one while the track is
        /// seen, the one it had when last seen while it is missed.
        var gateDisparity: Double? { misses > 0 ? (seenDisparity ?? disparity) : disparity }
    }

    /// The configuration.
    public var configuration: Configuration
    private(set) var tracks: [Track] = []
    private var nextID: Int

    /// Creates a tracker; IDs start at `firstID`.
    public init(configuration: Configuration = Configuration(), firstID: Int = 1) {
        self.configuration = configuration
        nextID = firstID
    }

    /// Number of live tracks (reported or coasting).
    public var trackCount: Int { tracks.count }

    /// Advances every track by one frame of motion and reports them (no detector this frame).
    public mutating func predict(disparity: DisparityMap? = nil) -> Detections {
        for i in tracks.indices {
            tracks[i].cx += tracks[i].vx
            tracks[i].cy += tracks[i].vy
            tracks[i].framesSinceUpdate += 1
            if let disparity { markHidden(i, map: disparity) }
            // A missed track keeps its depth: the map in its box is what hides it.
            // A jump past the gate between detections is someone passing in front: kept too.
            if let disparity, tracks[i].type != .salientObject, tracks[i].misses == 0,
               let d = disparity.robustDisparity(in: tracks[i].rect, previous: tracks[i].disparity,
                                                 shrink: configuration.disparityShrink),
               disparitiesAgree(tracks[i].disparity, d, bounds: tracks[i].rect),
               !isBorderFill(d, track: tracks[i].disparity, bounds: tracks[i].rect) {
                tracks[i].disparity = d
            }
        }
        return report()
    }

    /// Associates this frame's observations with the tracks and reports the tracked objects.
    public mutating func update(_ observations: [TrackerObservation], disparity: DisparityMap? = nil) -> Detections {
        let c = configuration
        // Motion prediction over the frames since the last detection round.
        for i in tracks.indices {
            tracks[i].cx += tracks[i].vx
            tracks[i].cy += tracks[i].vy
            tracks[i].framesSinceUpdate += 1
        }
        for i in tracks.indices {
            tracks[i].mouthOpening = nil
            if tracks[i].anchor != nil && tracks[i].stillRounds < Int.max / 2 { tracks[i].stillRounds += 1 }
        }
        var obs = observations.filter { $0.confidence >= c.lowConfidence && $0.bounds.width > 0 && $0.bounds.height > 0 }
        if let disparity {
            for i in obs.indices where obs[i].disparity == nil {
                obs[i].disparity = disparity.robustDisparity(in: obs[i].bounds, previous: nil, shrink: c.disparityShrink)
            }
        }
        var trackUsed = [Bool](repeating: false, count: tracks.count)
        var obsUsed = [Bool](repeating: false, count: obs.count)
        // Pass 1: high-confidence observations against every track.
        associate(obs, high: true, minIoU: c.matchIoU, trackUsed: &trackUsed, obsUsed: &obsUsed, disparity: disparity)
        // Pass 2: low-confidence observations against tracks that were seen last round.
        associate(obs, high: false, minIoU: c.lowMatchIoU, trackUsed: &trackUsed, obsUsed: &obsUsed, disparity: disparity)
        // Pass 3: lost tracks against what is still unmatched, by nearness.
        reidentify(obs, trackUsed: &trackUsed, obsUsed: &obsUsed, disparity: disparity)
        for i in tracks.indices where !trackUsed[i] {
            tracks[i].misses += 1
            if let disparity { markHidden(i, map: disparity) }
            tracks[i].vx *= c.missedVelocityDecay
            tracks[i].vy *= c.missedVelocityDecay
        }
        tracks.removeAll { $0.misses > c.maxMisses }
        // New tracks for unmatched high-confidence observations.
        for (j, o) in obs.enumerated() where !obsUsed[j] && o.confidence >= c.highConfidence && o.type != .salientObject {
            let b = o.bounds
            tracks.append(Track(id: nextID, type: o.type, cx: b.x + b.width / 2, cy: b.y + b.height / 2, w: b.width,
                                h: b.height, confidence: o.confidence, facing: o.facing, disparity: o.disparity,
                                seenDisparity: o.disparity, groupID: nextID,
                                mouthOpening: o.mouthOpening,
                                anchor: o.mustMove ? (b.x + b.width / 2, b.y + b.height, b.height) : nil,
                                stillRounds: o.mustMove && o.confidence >= c.sureConfidence ? 0 : Int.max / 2,
                                appearance: o.appearance))
            nextID += 1
        }
        for i in tracks.indices { tracks[i].framesSinceUpdate = tracks[i].misses == 0 ? 0 : tracks[i].framesSinceUpdate }
        regroup()
        return report()
    }

    /// Starts tracking a salient object (from ``SalientObjectFinder``) under a new ID; returns the ID.
    public mutating func addSalientObject(bounds: NormalizedRect, disparity: Double?) -> Int {
        let id = nextID
        nextID += 1
        tracks.append(Track(id: id, type: .salientObject, cx: bounds.x + bounds.width / 2, cy: bounds.y + bounds.height / 2,
                            w: bounds.width, h: bounds.height, confidence: 1, facing: .unknown, disparity: disparity, groupID: id))
        return id
    }

    /// Replaces the box of salient track `id` with a new measurement (nil = lost this frame).
    public mutating func updateSalientObject(id: Int, bounds: NormalizedRect?, disparity: Double?) {
        guard let i = tracks.firstIndex(where: { $0.id == id }) else { return }
        guard let b = bounds else {
            tracks[i].misses += 1
            if tracks[i].misses > configuration.maxMisses { tracks.remove(at: i) }
            return
        }
        correct(i, b)
        tracks[i].misses = 0
        if let disparity { tracks[i].disparity = disparity }
    }

    /// The predicted box and disparity of track `id`, if it is alive.
    public func state(of id: Int) -> (bounds: NormalizedRect, disparity: Double?)? {
        tracks.first { $0.id == id }.map { ($0.rect, $0.disparity) }
    }

    /// A fresh ID from the tracker's sequence for an object tracked elsewhere (one no track has
    /// or will have).
    public mutating func reserveID() -> Int {
        defer { nextID += 1 }
        return nextID
    }

    /// Stops tracking `id`.
    public mutating func remove(id: Int) { tracks.removeAll { $0.id == id } }

    /// The bodies a ``BodyFollower`` may keep between a detector's misses: confirmed walkers
    /// (matched at least ``Configuration/coastAfterHits`` times, moved lately) still reported,
    /// each with its predicted box (not clipped to the frame), its velocity (a frame) and whether the latest
    /// ``update(_:disparity:)`` matched it.
    public func followableBodies() -> [(id: Int, bounds: NormalizedRect, velocity: (x: Double, y: Double), seen: Bool)] {
        let c = configuration
        return tracks.compactMap { t in
            guard t.type == .humanBody, t.hits >= c.coastAfterHits, t.misses <= c.reportedBodyMisses, !t.hidden,
                  t.anchor == nil || t.stillRounds <= c.stillRounds else { return nil }
            return (t.id, t.rect, (t.vx, t.vy), t.misses == 0)
        }
    }

    /// Body track `id`, missed by this round's detector, was found at `bounds` by other means
    /// (its look, ``BodyFollower``): its box and motion follow, it counts as seen this round, and
    /// a walker that moved stays confirmed. Neither a hit nor a look is learnt from it.
    public mutating func follow(id: Int, to bounds: NormalizedRect) {
        guard let i = tracks.firstIndex(where: { $0.id == id && $0.type == .humanBody }) else { return }
        correct(i, bounds)
        var o = TrackerObservation(type: .humanBody, bounds: bounds, confidence: tracks[i].confidence, facing: .unknown)
        o.mustMove = true
        confirm(i, observed: o)
        tracks[i].misses = 0
        tracks[i].hidden = false
    }

    /// Optimal matching (Hungarian method) maximising the summed IoU of the pairs that pass the
    /// gates: a greedy choice can give one subject's box to a neighbour and leave the subject unmatched.
    private mutating func associate(_ obs: [TrackerObservation], high: Bool, minIoU: Double, trackUsed: inout [Bool],
                                    obsUsed: inout [Bool], disparity: DisparityMap?) {
        let candidates = obs.indices.filter { !obsUsed[$0] && (obs[$0].confidence >= configuration.highConfidence) == high }
        let open = tracks.indices.filter { !trackUsed[$0] && tracks[$0].type != .salientObject && (high || tracks[$0].misses == 0) }
        guard !candidates.isEmpty, !open.isEmpty else { return }
        var scores = [[Double?]](repeating: [Double?](repeating: nil, count: candidates.count), count: open.count)
        for (a, i) in open.enumerated() {
            let t = tracks[i]
            for (b, j) in candidates.enumerated() where t.type == obs[j].type {
                let o = obs[j]
                if !agrees(t, o, map: disparity) || (lookDistance(t, o) ?? 0) > configuration.appearanceGate { continue }
                let ratio = o.bounds.height / max(t.h, 1e-9)
                if t.type == .humanBody {
                    guard ratio < configuration.bodyHeightGate && ratio > 1 / configuration.bodyHeightGate else { continue }
                }
                let iou = Self.iou(t.rect, o.bounds)
                guard iou >= minIoU else { continue }
                // Of two walkers' tracks under one box, the one of its height and standing where
                // it stands: IoU alone favours the smaller track inside a larger box, and a walker
                // passing behind another stands on a row of their own.
                scores[a][b] = t.type == .humanBody ? iou * min(ratio, 1 / ratio) * feetWeight(t, o.bounds) * lookWeight(t, o) : iou
            }
        }
        let pairs = OptimalAssignment.maximise(scores).map { (t: open[$0.row], o: candidates[$0.column]) }
        for p in pairs where !trackUsed[p.t] && !obsUsed[p.o] {
            trackUsed[p.t] = true
            obsUsed[p.o] = true
            let o = obs[p.o]
            correct(p.t, o.mustMove && o.type == .humanBody ? bodyMeasurement(p.t, o.bounds) : o.bounds)
            learnLook(p.t, from: p.o, of: obs)
            tracks[p.t].hits += 1
            tracks[p.t].confidence = o.confidence
            if o.facing != .unknown { tracks[p.t].facing = o.facing }
            tracks[p.t].mouthOpening = o.mouthOpening
            refreshDisparity(p.t, observed: o, map: disparity)
        }
    }

    /// How much the looks of track `t` and observation `o` allow them to be one person:
    /// e^(−distance / ``Configuration/lookScale``), 1 when either has no look.
    private func lookWeight(_ t: Track, _ o: TrackerObservation) -> Double {
        guard configuration.lookScale > 0, let look = lookDistance(t, o) else { return 1 }
        return exp(-look / configuration.lookScale)
    }

    /// How well body box `b` stands where track `t` stands: 1 with its bottom edge on the track's,
    /// falling to 0.05 when it lies ``Configuration/feetReach`` of the track's height above or below.
    private func feetWeight(_ t: Track, _ b: NormalizedRect) -> Double {
        let off = abs(b.y + b.height - (t.cy + t.h / 2)) / max(t.h, 1e-9)
        return max(0.05, 1 - off / configuration.feetReach)
    }

    /// What a body detector's box `b`, matched to body track `i`, says of the walker: the box
    /// itself, or, when its height is more than ``Configuration/bodyOutlierRatio`` off the
    /// track's, a box of the track's size standing where its feet are. A walker's height changes
    /// slowly; a window over a walker and the post above them, or over their legs, does not say
    /// how tall they are, and a track that grew round by round with such windows fitted neither
    /// the walker nor anyone when the walker stepped out from beside the post.
    private func bodyMeasurement(_ i: Int, _ b: NormalizedRect) -> NormalizedRect {
        let t = tracks[i], ratio = b.height / max(t.h, 1e-9), limit = configuration.bodyOutlierRatio
        guard limit > 1, ratio > limit || ratio < 1 / limit else { return b }
        return NormalizedRect(x: b.x + b.width / 2 - t.w / 2, y: b.y + b.height - t.h, width: t.w, height: t.h)
    }

    /// Matches unmatched high-confidence observations to unmatched tracks (missed now or in
    /// earlier rounds: a face turning, leaving through the frame's edge, coming back): same
    /// type, centres within ``Configuration/reidentifyDistance`` box sizes, sizes within 2×,
    /// disparities within the gate; the nearest pairs of the most similar sizes win (optimal
    /// assignment).
    private mutating func reidentify(_ obs: [TrackerObservation], trackUsed: inout [Bool], obsUsed: inout [Bool],
                                     disparity: DisparityMap?) {
        let c = configuration
        guard c.reidentifyDistance > 0 else { return }
        let candidates = obs.indices.filter { !obsUsed[$0] && obs[$0].confidence >= c.highConfidence }
        let lost = tracks.indices.filter { !trackUsed[$0] && tracks[$0].type != .salientObject }
        guard !candidates.isEmpty, !lost.isEmpty else { return }
        var scores = [[Double?]](repeating: [Double?](repeating: nil, count: candidates.count), count: lost.count)
        for (a, i) in lost.enumerated() {
            let t = tracks[i]
            for (b, j) in candidates.enumerated() where t.type == obs[j].type {
                let o = obs[j].bounds
                let look = lookDistance(t, obs[j])
                if !agrees(t, obs[j], map: disparity) || (look ?? 0) > c.appearanceGate { continue }
                // Distances and sizes in frame heights (normalised x times the frame's aspect).
                let aspect = c.frameAspect
                let size = max(t.w * aspect, t.h, 1e-6), ratio = max(o.width * aspect, o.height) / size
                guard ratio > 0.5 && ratio < 2 else { continue }
                let dx = (o.x + o.width / 2 - t.cx) * aspect, dy = o.y + o.height / 2 - t.cy
                let distance = (dx * dx + dy * dy).squareRoot() / size
                // A close look lets a walk lost for a while be found farther from where its
                // motion took it.
                let reach = (look ?? .infinity) <= c.appearanceGate / 2
                    ? max(c.reidentifyDistance, c.reidentifyByLookDistance)
                    : min(c.reidentifyDistance, c.reidentifyPerMiss * Double(t.misses + 1))
                // Of two lost walkers near a found one, the one of its size: two people crossing
                // at different distances, lost while one hid the other, come out with their own IDs.
                if distance < reach { scores[a][b] = (1 - distance / reach) * (min(ratio, 1 / ratio) - 0.5) / 0.5 + 1e-9 }
            }
        }
        for p in OptimalAssignment.maximise(scores) {
            let i = lost[p.row], j = candidates[p.column]
            guard !trackUsed[i] && !obsUsed[j] else { continue }
            trackUsed[i] = true
            obsUsed[j] = true
            let o = obs[j]
            // A fresh start at the new place: the old velocity says nothing about the gap.
            tracks[i].cx = o.bounds.x + o.bounds.width / 2
            tracks[i].cy = o.bounds.y + o.bounds.height / 2
            if tracks[i].anchor != nil {
                // Found again by a detector that also likes poles: perhaps a pole beside where
                // the walker was lost. Reported again once it moves.
                tracks[i].anchor = (tracks[i].cx, o.bounds.y + o.bounds.height, o.bounds.height)
                tracks[i].stillRounds = Int.max / 2
            }
            tracks[i].w = o.bounds.width
            tracks[i].h = o.bounds.height
            learnLook(i, from: j, of: obs)
            tracks[i].vx = 0
            tracks[i].vy = 0
            tracks[i].framesSinceUpdate = 0
            tracks[i].hits += 1
            tracks[i].confidence = o.confidence
            if o.facing != .unknown { tracks[i].facing = o.facing }
            tracks[i].mouthOpening = o.mouthOpening
            refreshDisparity(i, observed: o, map: disparity)
        }
    }

    /// How far apart the looks of track `t` and observation `o` are (levels); `nil` when either
    /// has no look or looks are off: such a pair is never refused by look
    /// (``Configuration/appearanceGate``) nor let farther by it.
    private func lookDistance(_ t: Track, _ o: TrackerObservation) -> Double? {
        guard configuration.appearanceGate > 0, let a = t.appearance, let b = o.appearance else { return nil }
        return a.distance(to: b)
    }

    /// Track `i` learns the look of observation `j` of `obs`, which matched it, unless another
    /// observation's box overlaps it (two people's colours mixed).
    private mutating func learnLook(_ i: Int, from j: Int, of obs: [TrackerObservation]) {
        guard let look = obs[j].appearance else { return }
        let b = obs[j].bounds
        if obs.indices.contains(where: { $0 != j && obs[$0].type == obs[j].type && Self.iou(obs[$0].bounds, b) > 0 }) { return }
        tracks[i].appearance = tracks[i].appearance.map { $0.blended(towards: look, rate: configuration.appearanceRate) } ?? look
    }

    /// Track `i`'s disparity once observation `o` matched it: from the map in its corrected box
    /// (near the disparity it had when last seen, if it was missed), else the observation's.
    /// When someone nearer covers most of that box, the samples near the track's own depth in
    /// the observation's box are taken instead. Clears the misses.
    private mutating func refreshDisparity(_ i: Int, observed o: TrackerObservation, map: DisparityMap?) {
        confirm(i, observed: o)
        let previous = tracks[i].gateDisparity
        tracks[i].misses = 0
        if let map {
            let shrink = configuration.disparityShrink, rect = tracks[i].rect
            var value = map.robustDisparity(in: rect, previous: previous, shrink: shrink) ?? o.disparity
            if let previous, let v = value, !disparitiesAgree(previous, v, bounds: rect),
               let own = map.robustDisparity(in: o.bounds, previous: previous, shrink: shrink),
               disparitiesAgree(previous, own, bounds: o.bounds) {
                value = own
            }
            if let previous, let v = value, isBorderFill(v, track: previous, bounds: rect) { value = previous }
            tracks[i].disparity = value
        } else if let d = o.disparity {
            tracks[i].disparity = d
        }
        tracks[i].seenDisparity = tracks[i].disparity
    }

    /// Marks missed track `i` hidden when the map in its box is nearer than the depth it was
    /// last seen at by more than the gate (a seen track never is).
    private mutating func markHidden(_ i: Int, map: DisparityMap) {
        guard tracks[i].misses > 0, tracks[i].type != .salientObject, let seen = tracks[i].seenDisparity,
              let d = map.robustDisparity(in: tracks[i].rect, previous: nil, shrink: configuration.disparityShrink)
        else {
            tracks[i].hidden = false
            return
        }
        tracks[i].hidden = d > seen && !disparitiesAgree(seen, d, bounds: tracks[i].rect)
    }

    /// Whether an observation may be track `t` by depth: its disparity agrees with the track's,
    /// or, when someone nearer covers most of its box, a quarter of the box's samples do (the
    /// face showing behind the nearer person's head).
    private func agrees(_ t: Track, _ o: TrackerObservation, map: DisparityMap?) -> Bool {
        if disparitiesAgree(t.gateDisparity, o.disparity, bounds: o.bounds) { return true }
        guard let map, let d = t.gateDisparity else { return false }
        return disparitiesAgree(d, map.robustDisparity(in: o.bounds, previous: d, shrink: configuration.disparityShrink),
                                bounds: o.bounds)
    }

    /// Whether a track's and an observation's disparities allow a match (unknown ones, and the
    /// stereo border's, always do).
    private func disparitiesAgree(_ track: Double?, _ observed: Double?, bounds: NormalizedRect) -> Bool {
        guard let x = track, let y = observed, bounds.x >= configuration.untrustedLeftBorder else { return true }
        return abs(x - y) <= configuration.disparityGate * max(x, y, 1)
    }

    /// Whether `measured` is the stereo border's fill rather than the object: in the untrusted
    /// left border the matcher fills in the background, so a reading farther than the track's
    /// own depth by more than the gate (a face leaving through the left edge reading the wall
    /// behind it) is not taken; a nearer one is.
    private func isBorderFill(_ measured: Double, track: Double?, bounds: NormalizedRect) -> Bool {
        guard let x = track, bounds.x < configuration.untrustedLeftBorder else { return false }
        return measured < x && x - measured > configuration.disparityGate * max(x, 1)
    }

    /// Alpha-beta correction of track `i` towards a measured box.
    private mutating func correct(_ i: Int, _ b: NormalizedRect) {
        let c = configuration
        let mx = b.x + b.width / 2, my = b.y + b.height / 2
        let n = Double(max(1, tracks[i].framesSinceUpdate))
        let rx = mx - tracks[i].cx, ry = my - tracks[i].cy
        tracks[i].cx += c.alpha * rx
        tracks[i].cy += c.alpha * ry
        tracks[i].vx += c.beta * rx / n
        tracks[i].vy += c.beta * ry / n
        let size = tracks[i].type == .humanBody ? c.bodySizeAlpha : c.alpha
        tracks[i].w += size * (b.width - tracks[i].w)
        tracks[i].h += size * (b.height - tracks[i].h)
        tracks[i].framesSinceUpdate = 0
    }

    /// Ties faces to bodies: a face whose centre is inside a body's top 40 % joins the body's
    /// group (keeping its previous body while that still fits); a face lost while its body is
    /// still seen is reported as looking away; a body takes its face's facing.
    private mutating func regroup() {
        let bodies = tracks.indices.filter { tracks[$0].type == .humanBody }
        for i in tracks.indices where tracks[i].type == .humanFace {
            let f = tracks[i]
            func fits(_ b: Track) -> Bool {
                let r = b.rect
                return f.cx >= r.x && f.cx <= r.x + r.width && f.cy >= r.y && f.cy <= r.y + 0.4 * r.height
            }
            if let keep = bodies.first(where: { tracks[$0].id == f.groupID }), fits(tracks[keep]) { continue }
            if let b = bodies.filter({ fits(tracks[$0]) }).min(by: { abs(tracks[$0].cx - f.cx) < abs(tracks[$1].cx - f.cx) }) {
                tracks[i].groupID = tracks[b].groupID
            } else {
                tracks[i].groupID = f.id
            }
        }
        for b in bodies {
            let gid = tracks[b].groupID
            if let fi = tracks.indices.first(where: { tracks[$0].type == .humanFace && tracks[$0].groupID == gid }) {
                if tracks[fi].misses >= configuration.awayAfterMisses && tracks[b].misses == 0 { tracks[fi].facing = .away }
                tracks[b].facing = tracks[fi].facing
            }
        }
    }

    /// The mouth openings the last ``update(_:disparity:)`` matched to tracks, by track ID
    /// (faces whose observation carried one): what a ``SpeakingDetector`` watches.
    public func mouthOpenings() -> [(id: Int, opening: Double)] {
        tracks.compactMap { t in t.mouthOpening.map { (t.id, $0) } }
    }

    /// The objects as last reported (after the latest ``update(_:disparity:)``, ``predict(disparity:)``
    /// or salient-object change): tracks seen within ``Configuration/reportedMisses`` rounds (seen
    /// this round, for a track matched fewer than ``Configuration/coastAfterHits`` times), and faces
    /// whose body is still seen (reported as looking away), clipped to the frame; boxes mostly
    /// outside it (``Configuration/minimumShareInFrame``) are left out, and so is one of two body
    /// boxes one inside the other (the part of a sure body, or an unsure box around a surer one).
    public func report() -> Detections {
        let seenGroups = Set(tracks.filter { $0.type == .humanBody && $0.misses == 0 }.map(\.groupID))
        let faceGroups = Set(tracks.filter { $0.type == .humanFace }.map(\.groupID))
        var reported: [Detection] = tracks.compactMap { t in
            // Not moved lately, and no face: perhaps a pole.
            guard t.anchor == nil || t.stillRounds <= configuration.stillRounds || faceGroups.contains(t.groupID) else { return nil }
            let away = t.type == .humanFace && t.facing == .away && seenGroups.contains(t.groupID) && t.groupID != t.id
            let coasting = t.hits < configuration.coastAfterHits
                || t.type == .humanBody && t.confidence < configuration.bodyCoastConfidence ? 0
                : t.type == .humanBody ? configuration.reportedBodyMisses : configuration.reportedMisses
            guard t.misses <= coasting || away else { return nil }
            // A missed face or body with someone nearer in its box is hidden: not in view.
            guard t.misses == 0 || !t.hidden else { return nil }
            let r = t.rect, inFrame = r.clipped(to: .frame)
            guard inFrame.width > 0, inFrame.height > 0,
                  inFrame.width * inFrame.height >= configuration.minimumShareInFrame * r.width * r.height else { return nil }
            return Detection(id: t.id, groupID: t.groupID, type: t.type, bounds: inFrame,
                             confidence: t.misses == 0 ? t.confidence : t.confidence * 0.5, disparity: t.disparity,
                             facing: t.facing)
        }
        // A body box inside a taller one is one person seen twice: a window on their top or
        // legs (when the taller box is sure, the part goes), or a loose window around them and
        // their surroundings (when the taller box is unsure and the part surer, the taller
        // goes). Someone behind a sure nearer person but for a sliver goes too: out of sight.
        // Decided on the list as reported, then removed in place (no copy on the frames with
        // fewer than two bodies, most of them). A coasting body mostly inside a seen one that
        // stands nearer (lower in the picture, and taller) has walked behind them: out of sight.
        let bodies = reported.filter { $0.type == .humanBody }
        guard bodies.count > 1 else { return reported }
        func coasting(_ id: Int) -> Bool { tracks.contains { $0.id == id && $0.misses > 0 } }
        reported.removeAll { d in
            d.type == .humanBody && bodies.contains { b in
                guard b.id != d.id else { return false }
                return b.confidence >= configuration.highConfidence && HOGPersonDetector.isPart(d.bounds, of: b.bounds)
                    || d.confidence < configuration.highConfidence && b.confidence > d.confidence
                    && HOGPersonDetector.isPart(b.bounds, of: d.bounds)
                    || b.bounds.height >= d.bounds.height && b.bounds.y + b.bounds.height >= d.bounds.y + d.bounds.height
                    && d.bounds.share(inside: b.bounds) >= configuration.hiddenBehindShare && coasting(d.id) && !coasting(b.id)
            }
        }
        return reported
    }

    /// Track `i` of a detector that also fires on things that stand still, matched by `o`: it
    /// moved when where it stands is ``Configuration/confirmingMotion`` of its size from its
    /// anchor; an observation that does not need it to move confirms it for good.
    private mutating func confirm(_ i: Int, observed o: TrackerObservation) {
        guard let anchor = tracks[i].anchor else { return }
        guard o.mustMove else {
            tracks[i].anchor = nil
            return
        }
        let t = tracks[i]
        // Up or down only at about the same size: a box flipping between two scales on a
        // tripod moves its bottom edge without anyone walking.
        let across = abs(t.cx - anchor.x) / max(t.w, 1e-9)
        let sameSize = t.h > 0.8 * anchor.h && t.h < 1.25 * anchor.h
        let along = sameSize ? abs(t.cy + t.h / 2 - anchor.y) / max(t.h, 1e-9) : 0
        if max(across, along) >= configuration.confirmingMotion {
            tracks[i].anchor = (t.cx, t.cy + t.h / 2, t.h)
            tracks[i].stillRounds = 0
        }
    }

    /// Intersection over union of two normalised rectangles.
    public static func iou(_ a: NormalizedRect, _ b: NormalizedRect) -> Double {
        let ix = max(0, min(a.x + a.width, b.x + b.width) - max(a.x, b.x))
        let iy = max(0, min(a.y + a.height, b.y + b.height) - max(a.y, b.y))
        let inter = ix * iy
        let u = a.width * a.height + b.width * b.height - inter
        return u > 0 ? inter / u : 0
    }
}
