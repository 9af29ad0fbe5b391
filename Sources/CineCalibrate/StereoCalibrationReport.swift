// StereoCalibrationReport: a stereo calibration with the figures that judge it — reprojection
// error, each view's share of it, the rectified views' vertical error, coverage — and the
// reasons to refuse it.
import CineVision
import Foundation

/// A stereo calibration and how far to trust it.
public struct StereoCalibrationReport: Sendable {
    /// Fewer pairs than this do not pin down a lens's distortion.
    public static let minimumPairs = 10
    /// A good board and camera reproject to well under a pixel; more means bad corners or a moved board.
    public static let maximumRMS = 1.0
    /// The share of the frame (``BoardCoverage``) the corners must have been seen in, in both views.
    public static let minimumCoverage = 0.5
    /// Rows of the rectified views must agree to this many pixels on average.
    public static let maximumEpipolar = 0.5

    /// The calibration, with the rectification (R1 R2 P1 P2) filled in.
    public let calibration: StereoCalibration
    /// The board it was made with.
    public let board: Chessboard
    /// The pairs it used, by name.
    public let pairs: [String]
    /// RMS reprojection error in pixels: each camera alone, then the pair.
    public let rms: (left: Double, right: Double, stereo: Double)
    /// Each pair's RMS error in the left and the right view, in pixels.
    public let perView: [(left: Double, right: Double)]
    /// Mean and largest vertical distance of the same corner in the two rectified views, in pixels.
    public let epipolar: (mean: Double, max: Double)
    /// The disparity-to-depth matrix, 4×4 row-major.
    public let q: [Double]
    /// The share of the frame the corners were seen in (the lesser of the two views).
    public let coverage: Double

    /// Why this calibration should not be used; empty when it is good.
    public var problems: [String] {
        var p: [String] = []
        if pairs.count < Self.minimumPairs {
            p.append("only \(pairs.count) pairs had the board in both views; take at least \(Self.minimumPairs), the board at different places, distances and angles")
        }
        if coverage < Self.minimumCoverage {
            p.append("the corners were seen in \(Int(coverage * 100)) % of the frame (at least \(Int(Self.minimumCoverage * 100)) % is needed); hold the board near the edges and corners of the picture too")
        }
        if rms.stereo > Self.maximumRMS {
            let worst = worstPairs(3).map { "\($0.name) (\(String(format: "%.2f", $0.error)) px)" }.joined(separator: ", ")
            p.append("the RMS reprojection error is \(String(format: "%.2f", rms.stereo)) px, over \(Self.maximumRMS) px; the worst pairs are \(worst): drop them, or check the board is flat and the --board count right")
        }
        if epipolar.mean > Self.maximumEpipolar {
            p.append("after rectification the same corner is \(String(format: "%.2f", epipolar.mean)) px apart vertically on average (at most \(Self.maximumEpipolar)); were the two views taken at the same instant?")
        }
        return p
    }

    /// The `count` pairs with the largest error (the larger of their two views).
    public func worstPairs(_ count: Int) -> [(name: String, error: Double)] {
        zip(pairs, perView).map { ($0, max($1.left, $1.right)) }.sorted { $0.1 > $1.1 }.prefix(count).map { $0 }
    }

    /// The figures, for a terminal.
    public var summary: String {
        let c = calibration
        func f(_ v: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", v) }
        let t = c.translation ?? [0, 0, 0]
        return """
            pairs used       \(pairs.count)
            RMS error        \(f(rms.stereo, 3)) px (left alone \(f(rms.left, 3)), right alone \(f(rms.right, 3)))
            left camera      fx \(f(c.left.matrix[0])) fy \(f(c.left.matrix[4])) cx \(f(c.left.matrix[2])) cy \(f(c.left.matrix[5]))
            right camera     fx \(f(c.right.matrix[0])) fy \(f(c.right.matrix[4])) cx \(f(c.right.matrix[2])) cy \(f(c.right.matrix[5]))
            baseline         \(f(c.baseline, 3)) (the square's unit; T = \(f(t[0], 3)) \(f(t[1], 3)) \(f(t[2], 3)))
            rectified        focal \(f(c.focalLength)) px; vertical error mean \(f(epipolar.mean, 3)) px, max \(f(epipolar.max, 3)) px
            coverage         \(Int((coverage * 100).rounded())) % of the frame
            """
    }
}
