// CalibrationCapture: when to take a pair during a live calibration — the board whole in both
// views, held still, and showing the lens something new (a part of the frame not yet covered,
// or a distance or tilt not yet seen) — and when there is enough.
import Foundation

/// Decides, detection by detection, which board views to keep.
public struct CalibrationCapture: Sendable {
    /// What a detection led to.
    public enum Verdict: Sendable, Equatable {
        /// The whole board is not in both views.
        case noBoard
        /// The board moved since the last detection (a moving board blurs and the views may not be simultaneous).
        case moving
        /// Still, but nothing a kept pair has not already shown.
        case nothingNew
        /// Keep this pair.
        case take
    }

    /// Pairs that are enough (with ``coverageTarget``).
    public var pairsTarget: Int
    /// Share of the frame that is enough.
    public var coverageTarget: Double
    /// A board whose corners moved less than this (pixels, full resolution) since the last
    /// detection is still.
    public var stillPixels: Float = 2
    /// Cells of the coverage grid kept so far, per view.
    public private(set) var coverage: (left: BoardCoverage, right: BoardCoverage)
    /// Pairs kept so far.
    public private(set) var pairs = 0
    private var previous: [SIMD2<Float>]?
    private var poses: [SIMD8<Float>] = []
    private let width: Float, height: Float

    /// A capture for views of `width` × `height`.
    public init(width: Int, height: Int, pairsTarget: Int = 15, coverageTarget: Double = 0.7) {
        self.width = Float(width)
        self.height = Float(height)
        self.pairsTarget = pairsTarget
        self.coverageTarget = coverageTarget
        coverage = (BoardCoverage(width: width, height: height), BoardCoverage(width: width, height: height))
    }

    /// The lesser coverage of the two views, 0…1.
    public var fraction: Double { min(coverage.left.fraction, coverage.right.fraction) }

    /// Whether enough pairs, spread over enough of the frame, have been kept.
    public var isEnough: Bool { pairs >= pairsTarget && fraction >= coverageTarget }

    /// Judges one detection (corners of both views in full-resolution pixels, `nil` where the
    /// board was not found whole) and, on ``Verdict/take``, counts the pair as kept.
    public mutating func offer(left: [SIMD2<Float>]?, right: [SIMD2<Float>]?) -> Verdict {
        guard let left, let right, left.count == right.count, left.count >= 4 else {
            previous = nil
            return .noBoard
        }
        defer { previous = left }
        guard let previous, previous.count == left.count else { return .moving }
        // Either end of the board may come first: compare with whichever numbering is nearer.
        let forward = zip(previous, left).map { length($0 - $1) }.max() ?? .infinity
        let backward = zip(previous, left.reversed()).map { length($0 - $1) }.max() ?? .infinity
        guard min(forward, backward) < stillPixels else { return .moving }
        let pose = signature(left)
        let gain = max(coverage.left.gain(left), coverage.right.gain(right))
        let novel = poses.allSatisfy { seen in
            let d = seen - pose
            return max(d.max(), (-d).max()) > 0.12
        }
        guard gain >= 2 || novel else { return .nothingNew }
        coverage.left.add(left)
        coverage.right.add(right)
        poses.append(pose)
        pairs += 1
        return .take
    }

    /// Where the board is, how big, and how it leans: its centre (in frame widths and heights),
    /// its size, and the ratio of its opposite edges across and down (perspective from a tilt).
    func signature(_ c: [SIMD2<Float>]) -> SIMD8<Float> {
        let centre = c.reduce(.zero, +) / Float(c.count)
        let lo = c.reduce(c[0]) { pointwiseMin($0, $1) }, hi = c.reduce(c[0]) { pointwiseMax($0, $1) }
        let size = length(hi - lo) / length(SIMD2(width, height))
        // A tilted board is taller at its near side: compare the corners' extent down its left
        // and right thirds, and across its top and bottom thirds.
        let top = c.filter { $0.y < lo.y + (hi.y - lo.y) / 3 }, bottom = c.filter { $0.y > hi.y - (hi.y - lo.y) / 3 }
        let left = c.filter { $0.x < lo.x + (hi.x - lo.x) / 3 }, right = c.filter { $0.x > hi.x - (hi.x - lo.x) / 3 }
        func spread(_ p: [SIMD2<Float>], _ axis: Int) -> Float {
            guard let a = p.map({ $0[axis] }).min(), let b = p.map({ $0[axis] }).max() else { return 1 }
            return max(1, b - a)
        }
        let tiltX = spread(left, 1) / spread(right, 1), tiltY = spread(top, 0) / spread(bottom, 0)
        return SIMD8(centre.x / width, centre.y / height, size, log(tiltX), log(tiltY), 0, 0, 0)
    }
}

@inline(__always) func length(_ v: SIMD2<Float>) -> Float { (v * v).sum().squareRoot() }
