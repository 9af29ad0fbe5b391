// StereoCalibrator: a stereo pair's intrinsics, distortion, relative pose and rectification from
// chessboard views seen by both cameras (OpenCV's calibrateCamera, stereoCalibrate and
// stereoRectify), with the figures that say whether to trust it.
import CineVision
import COpenCVCalib

/// One instant of the board, seen by both cameras.
public struct BoardViewPair: Sendable {
    /// Where the view came from (file names, or "pair 3"), for messages.
    public var name: String
    /// The board's corners in the left view.
    public var left: [SIMD2<Float>]
    /// The same corners in the right view, in the same order.
    public var right: [SIMD2<Float>]

    /// Creates a pair. When the two views number the corners from opposite ends (a detector may
    /// start from either end of a board), the right view's are put in the left view's order.
    public init(name: String, left: [SIMD2<Float>], right: [SIMD2<Float>]) {
        self.name = name
        self.left = left
        let l = left.last! - left.first!, r = right.last! - right.first!
        self.right = (l * r).sum() < 0 ? right.reversed() : right
    }
}

/// Calibrates a stereo pair from board views.
public struct StereoCalibrator: Sendable {
    /// The board.
    public let board: Chessboard
    /// The size of each view, in pixels.
    public let width: Int
    /// See ``width``.
    public let height: Int

    /// Creates a calibrator for views of `width` × `height`.
    public init(board: Chessboard, width: Int, height: Int) {
        self.board = board
        self.width = width
        self.height = height
    }

    /// Calibrates from `pairs`, every one of which must hold the whole board in both views.
    /// The result is returned even when it should not be trusted: ``StereoCalibrationReport/problems``
    /// says why.
    public func calibrate(_ pairs: [BoardViewPair]) throws(CalibrateError) -> StereoCalibrationReport {
        guard pairs.count >= 3 else {
            throw CalibrateError("the board was found in both views of \(pairs.count) pair(s); at least 3 are needed to solve, \(StereoCalibrationReport.minimumPairs) to trust")
        }
        let n = board.cornerCount
        for p in pairs where p.left.count != n || p.right.count != n {
            throw CalibrateError("\(p.name): \(p.left.count) and \(p.right.count) corners, the board has \(n)")
        }
        let object = board.objectPoints.flatMap { [$0.x, $0.y, $0.z] }
        let left = pairs.flatMap { $0.left.flatMap { [$0.x, $0.y] } }
        let right = pairs.flatMap { $0.right.flatMap { [$0.x, $0.y] } }
        var r = cgcv_stereo_result()
        var perView = [Double](repeating: 0, count: pairs.count * 2)
        var error = [CChar](repeating: 0, count: 512)
        let status = cgcv_stereo_calibrate(
            object, Int32(n), left, right, Int32(pairs.count), Int32(width), Int32(height), &r, &perView, &error,
            Int32(error.count))
        if status != 0 { throw CalibrateError("OpenCV could not calibrate: \(message(error))") }
        func array<T>(_ tuple: T, _ count: Int) -> [Double] {
            withUnsafeBytes(of: tuple) { Array($0.bindMemory(to: Double.self).prefix(count)) }
        }
        let calibration = StereoCalibration(
            left: .init(matrix: array(r.K1, 9), distortion: array(r.D1, 5), rectification: array(r.R1, 9), projection: array(r.P1, 12)),
            right: .init(matrix: array(r.K2, 9), distortion: array(r.D2, 5), rectification: array(r.R2, 9), projection: array(r.P2, 12)),
            rotation: array(r.R, 9), translation: array(r.T, 3), imageWidth: width, imageHeight: height)
        var coverage = (left: BoardCoverage(width: width, height: height), right: BoardCoverage(width: width, height: height))
        for p in pairs {
            coverage.left.add(p.left)
            coverage.right.add(p.right)
        }
        return StereoCalibrationReport(
            calibration: calibration, board: board, pairs: pairs.map(\.name),
            rms: (left: r.rms_left, right: r.rms_right, stereo: r.rms_stereo),
            perView: (0..<pairs.count).map { (perView[2 * $0], perView[2 * $0 + 1]) },
            epipolar: (mean: r.epipolar_mean, max: r.epipolar_max), q: array(r.Q, 16),
            coverage: min(coverage.left.fraction, coverage.right.fraction))
    }
}
