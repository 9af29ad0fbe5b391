// StandingHeights: how tall a person standing at each place of a still camera's picture is,
// learnt from the walkers the tracker confirmed, so that a body detector's box three times too
// tall for where its feet stand (a tree and a walker, a lamp post beside two people) is refused.
import CineMedia
import Foundation

/// The height a standing person has where their feet are, learnt from confirmed walkers.
///
/// **Model.** People stand on a floor. Seen by a still camera, a person's height in the picture
/// is about proportional to how far below the horizon their feet are: a straight line, height
/// against the feet's row. Each detection round, ``learn(_:)`` takes the boxes of the walkers the
/// ``ObjectTracker`` confirmed (matched, moving) whose feet are in the picture; the line is the
/// one most of them lie near (a third of them too tall does not move it). ``allows(_:)`` then
/// refuses a box whose height is outside ``Configuration/shortest``–``Configuration/tallest`` of
/// the line's at its feet, and ``placed(_:)`` moves the others' heights towards it.
///
/// **When it says nothing.** Until ``Configuration/minimumSamples`` boxes from at least
/// ``Configuration/minimumWalkers`` walkers are learnt; when fewer than
/// ``Configuration/minimumShare`` of the boxes lie on one line (stairs, a moving camera); for
/// feet beyond the rows seen by more than ``Configuration/reach`` of their span (a line learnt
/// from walkers far away is steep, and its slope only as sure as their rows are apart); and
/// for boxes cut by the frame's bottom edge (feet not seen). Every box is then allowed.
///
/// **Memory.** The last ``Configuration/samplesPerBand`` boxes in each of
/// ``Configuration/bands`` bands of rows: the line follows a camera moved to a new place.
public struct StandingHeights: Sendable {
    /// The tuning.
    public struct Configuration: Sendable, Hashable {
        /// A box shorter than this share of the line's height at its feet is not a whole person
        /// standing there (a window on legs or a torso, a short pattern).
        public var shortest = 0.6
        /// A box taller than this share of it covers more than a person (a tree or a post above
        /// them, two people one above the other).
        public var tallest = 1.35
        /// How far ``StandingHeights/placed(_:)`` moves a box's height to the line's (0: not at
        /// all, 1: all the way), as a power of their ratio.
        public var pull = 0.5
        /// Boxes learnt before the line is used.
        public var minimumSamples = 40
        /// Distinct walkers among them.
        public var minimumWalkers = 3
        /// A learnt box lies on the line when its height is within this much of the line's
        /// (the log of their ratio: 0.15 is 16 %).
        public var band = 0.15
        /// The share of the learnt boxes that must lie on the line for it to be used.
        public var minimumShare = 0.5
        /// Pairs of learnt boxes tried as the line's two points.
        public var tries = 200
        /// The least difference of the feet's rows of such a pair, in frame heights.
        public var pairRows = 0.01
        /// How far beyond the rows whose feet were seen the line is used, as a share of their span.
        public var reach = 0.5
        /// Bands of rows the samples are kept in.
        public var bands = 16
        /// Boxes kept per band (the latest).
        public var samplesPerBand = 32
        /// A box whose bottom is this close to the frame's bottom has its feet cut off.
        public var bottomMargin = 0.01

        /// The defaults.
        public init() {}
    }

    /// The tuning in use.
    public let configuration: Configuration
    /// Per band: the latest (feet row, height, walker) samples, oldest first.
    private var samples: [[(foot: Double, height: Double, walker: Int)]]
    /// The line (height = slope × feet row + offset) and the rows it holds for; `nil` while it
    /// says nothing.
    private(set) var line: (slope: Double, offset: Double, top: Double, bottom: Double)?

    /// Nothing learnt yet, with `configuration`.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        samples = Array(repeating: [], count: max(1, configuration.bands))
    }

    /// The height a person standing with their feet at `foot` (a share of the frame's height)
    /// has, as a share of the frame's height; `nil` while the line says nothing there.
    public func height(atFoot foot: Double) -> Double? {
        guard let l = line else { return nil }
        let reach = configuration.reach * (l.bottom - l.top)
        guard foot >= l.top - reach, foot <= l.bottom + reach else { return nil }
        let h = l.slope * foot + l.offset
        return h > 0 ? h : nil
    }

    /// Whether `box` may be a person standing where its bottom edge is: its height within the
    /// line's bounds there, or the line saying nothing.
    public func allows(_ box: NormalizedRect) -> Bool {
        guard let h = height(of: box) else { return true }
        let ratio = box.height / h
        return ratio >= configuration.shortest && ratio <= configuration.tallest
    }

    /// `box` with its height moved ``Configuration/pull`` of the way (in ratio) to the line's at
    /// its feet, its feet and its middle kept and its width scaled with it; `box` itself where
    /// the line says nothing. A body detector's box is a window of a few fixed sizes around
    /// the person, half a step too short or too tall; the walkers seen on the same floor know
    /// better.
    public func placed(_ box: NormalizedRect) -> NormalizedRect {
        guard configuration.pull > 0, box.height > 0, let h = height(of: box) else { return box }
        let scale = pow(h / box.height, configuration.pull)
        let width = box.width * scale, height = box.height * scale
        return NormalizedRect(x: box.x + (box.width - width) / 2, y: box.y + box.height - height, width: width, height: height)
    }

    /// The line's height at the feet of `box`; `nil` where it says nothing or the frame's bottom
    /// edge cuts the box.
    private func height(of box: NormalizedRect) -> Double? {
        let foot = box.y + box.height
        return foot < 1 - configuration.bottomMargin ? height(atFoot: foot) : nil
    }

    /// `observations` with the bodies judged by the line: a body box it refuses (``allows(_:)``)
    /// left out, the others ``placed(_:)``. Every body is judged, a pose detector's box from
    /// the head as well as HOG's.
    public func judged(_ observations: [TrackerObservation]) -> [TrackerObservation] {
        guard line != nil else { return observations }
        return observations.compactMap { o in
            guard o.type == .humanBody else { return o }
            guard allows(o.bounds) else { return nil }
            var placed = o
            placed.bounds = self.placed(o.bounds)
            return placed
        }
    }

    /// After a detection round's ``ObjectTracker/update(_:disparity:)`` (and a
    /// ``BodyFollower``'s round): a confirmed walker's track whose box the line refuses is
    /// removed (made before the line was learnt, or kept by its motion or its look: a walker
    /// and the post above them is no one), and the walkers seen this round are learnt.
    public mutating func round(tracker: inout ObjectTracker) {
        for b in tracker.followableBodies() where !allows(b.bounds) { tracker.remove(id: b.id) }
        learn(tracker.followableBodies().filter(\.seen).map { ($0.id, $0.bounds) })
    }

    /// Learns the boxes of confirmed walkers seen this round (`id`: the walker's track) and
    /// refits the line.
    public mutating func learn(_ walkers: [(id: Int, bounds: NormalizedRect)]) {
        let c = configuration
        var learnt = false
        for w in walkers {
            let foot = w.bounds.y + w.bounds.height
            guard w.bounds.height > 0, foot > 0, foot < 1 - c.bottomMargin else { continue }
            let band = min(samples.count - 1, Int(foot * Double(samples.count)))
            samples[band].append((foot, w.bounds.height, w.id))
            if samples[band].count > c.samplesPerBand { samples[band].removeFirst() }
            learnt = true
        }
        if learnt { refit() }
    }

    /// Fits the line to the kept samples, or clears it when they are too few or too few of them
    /// lie on one line. The line through two samples of different rows that most samples lie
    /// near (within ``Configuration/band``) is found among ``Configuration/tries`` pairs
    /// (RANSAC, drawn by a fixed sequence: the same samples give the same line), then fitted by
    /// least squares to the samples near it. A median fit is not enough: in a busy scene a third
    /// of the confirmed walkers' boxes are too tall (a tree, a post or a second person above one).
    private mutating func refit() {
        let c = configuration
        let all = Array(samples.joined())
        guard all.count >= c.minimumSamples, Set(all.map(\.walker)).count >= c.minimumWalkers else {
            line = nil
            return
        }
        let feet = all.map(\.foot), heights = all.map(\.height)
        // Within the band: between fitted × e^-band and fitted × e^band (no logarithm a sample).
        let low = exp(-c.band), high = exp(c.band)
        func isNear(_ i: Int, _ slope: Double, _ offset: Double) -> Bool {
            let fitted = slope * feet[i] + offset
            return fitted > 0 && heights[i] >= low * fitted && heights[i] <= high * fitted
        }
        func near(_ slope: Double, _ offset: Double) -> [Int] { all.indices.filter { isNear($0, slope, offset) } }
        var random = SeededRandom(seed: 0x5EED)
        var best = (count: -1, slope: 0.0, offset: 0.0)
        for _ in 0..<c.tries {
            let i = random.index(below: all.count), j = random.index(below: all.count)
            guard abs(feet[i] - feet[j]) >= c.pairRows else { continue }
            let slope = (heights[j] - heights[i]) / (feet[j] - feet[i]), offset = heights[i] - slope * feet[i]
            var count = 0
            for k in all.indices where isNear(k, slope, offset) { count += 1 }
            if count > best.count { best = (count, slope, offset) }
        }
        // Feet all on one row: no line (a level one would be wrong a row away).
        guard best.count > 0 else {
            line = nil
            return
        }
        var (slope, offset) = (best.slope, best.offset)
        var inliers = near(slope, offset)
        for _ in 0..<2 where inliers.count >= 2 {
            var sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0
            for i in inliers {
                sx += feet[i]; sy += heights[i]; sxx += feet[i] * feet[i]; sxy += feet[i] * heights[i]
            }
            let n = Double(inliers.count), mx = sx / n, my = sy / n, vx = sxx / n - mx * mx
            slope = vx > 1e-5 ? (sxy / n - mx * my) / vx : 0
            offset = my - slope * mx
            inliers = near(slope, offset)
        }
        guard Double(inliers.count) >= c.minimumShare * Double(all.count),
              let top = inliers.map({ feet[$0] }).min(), let bottom = inliers.map({ feet[$0] }).max() else {
            line = nil
            return
        }
        line = (slope, offset, top, bottom)
    }
}

