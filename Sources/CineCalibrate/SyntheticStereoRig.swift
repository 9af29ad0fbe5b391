// SyntheticStereoRig: chessboard pictures from a stereo camera whose every number is known —
// focal lengths, principal points, distortion, the pose between the cameras, sensor noise —
// so that a calibration can be judged against the truth, not against another tool.
import CineMedia
import CineVision
import Foundation

/// A simulated stereo camera photographing a chessboard.
public struct SyntheticStereoRig: Sendable {
    /// The true calibration (K D R T, no rectification).
    public let truth: StereoCalibration
    /// The board it photographs.
    public let board: Chessboard
    /// Sensor noise, standard deviation in 8-bit levels.
    public var noise: Double = 2
    /// Each view's ray through every pixel corner (the lens undone once, not per picture).
    let rays: [Lens.Rays]

    /// A typical USB stereo camera: 1280×720 views, fx ≈ 1000 px, k1 = −0.12 (mild barrel),
    /// a 60 mm baseline with the right camera turned by under a degree; a 9×6 board of 25 mm squares.
    public static func usbCamera() -> SyntheticStereoRig {
        let left = StereoCalibration.Camera(
            matrix: [1002, 0, 647, 0, 998, 355, 0, 0, 1], distortion: [-0.12, 0.05, 0.001, -0.0008, 0])
        let right = StereoCalibration.Camera(
            matrix: [995, 0, 633, 0, 992, 366, 0, 0, 1], distortion: [-0.11, 0.04, -0.0006, 0.0009, 0])
        let rotation = StereoRectifier.rodrigues(vector: [0.006, -0.012, 0.004])
        let truth = StereoCalibration(
            left: left, right: right, rotation: rotation, translation: [-60, 0.4, -0.8], imageWidth: 1280, imageHeight: 720)
        return SyntheticStereoRig(truth: truth, board: try! Chessboard(columns: 9, rows: 6, square: 25))
    }

    /// Creates a rig.
    public init(truth: StereoCalibration, board: Chessboard) {
        self.truth = truth
        self.board = board
        rays = [truth.left, truth.right].map { Lens.rays($0, width: truth.imageWidth!, height: truth.imageHeight!) }
    }

    /// The board's pose in the left camera: `X_cam = rotation · X_board + translation`.
    public struct Pose: Sendable {
        /// 3×3 row-major.
        public var rotation: [Double]
        /// In the square's unit.
        public var translation: SIMD3<Double>
    }

    /// `count` poses that put the whole board in both views, spread over the frame, at
    /// different distances and tilts (seeded).
    public func poses(count: Int, seed: UInt64) -> [Pose] {
        var rng = SeededRandom(seed: seed)
        let w = Double(truth.imageWidth!), h = Double(truth.imageHeight!)
        let k = truth.left.matrix
        var out: [Pose] = []
        var attempts = 0
        while out.count < count && attempts < count * 200 {
            attempts += 1
            // Aim the board's centre at a spot of a 4×3 grid over the frame, in turn, then jitter.
            let spot = out.count % 12
            let u = w * (0.18 + 0.64 * Double(spot % 4) / 3) + rng.uniform(-40, 40)
            let v = h * (0.2 + 0.6 * Double(spot / 4) / 2) + rng.uniform(-30, 30)
            let z = rng.uniform(450, 900)
            let r = StereoRectifier.rodrigues(vector: [rng.uniform(-0.5, 0.5), rng.uniform(-0.5, 0.5), rng.uniform(-0.3, 0.3)])
            let centre = SIMD3((u - k[2]) / k[0] * z, (v - k[5]) / k[4] * z, z)
            let half = SIMD3(Double(board.columns - 1) * board.square / 2, Double(board.rows - 1) * board.square / 2, 0)
            let pose = Pose(rotation: r, translation: centre - rotate(r, half))
            if fits(pose) { out.append(pose) }
        }
        return out
    }

    /// The inverse of a 3×3 row-major matrix, as its three columns.
    static func inverse(_ m: [Double]) -> (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>) {
        let a = SIMD3(m[0], m[3], m[6]), b = SIMD3(m[1], m[4], m[7]), c = SIMD3(m[2], m[5], m[8])
        func cross(_ u: SIMD3<Double>, _ v: SIMD3<Double>) -> SIMD3<Double> {
            SIMD3(u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x)
        }
        // Rows of the inverse are the cross products of the columns, over the determinant.
        let r0 = cross(b, c), r1 = cross(c, a), r2 = cross(a, b)
        let det = (a * r0).sum()
        return (SIMD3(r0.x, r1.x, r2.x) / det, SIMD3(r0.y, r1.y, r2.y) / det, SIMD3(r0.z, r1.z, r2.z) / det)
    }

    /// Whether every corner (and a square's margin round the board) is inside both views.
    func fits(_ pose: Pose) -> Bool {
        let s = board.square
        let outline = [SIMD3(-s, -s, 0), SIMD3(Double(board.columns) * s, -s, 0),
                       SIMD3(-s, Double(board.rows) * s, 0), SIMD3(Double(board.columns) * s, Double(board.rows) * s, 0)]
        let w = Double(truth.imageWidth!), h = Double(truth.imageHeight!)
        for view in 0..<2 {
            for p in outline {
                guard let q = project(p, pose: pose, view: view), q.x > 8, q.y > 8, q.x < w - 8, q.y < h - 8 else {
                    return false
                }
            }
        }
        return true
    }

    /// Where a point of the board lands in view 0 (left) or 1 (right), distortion included.
    public func project(_ p: SIMD3<Double>, pose: Pose, view: Int) -> SIMD2<Double>? {
        let (r, t) = cameraPose(pose, view: view)
        let x = rotate(r, p) + t
        guard x.z > 0 else { return nil }
        let cam = view == 0 ? truth.left : truth.right
        let d = Lens.distort(SIMD2(x.x / x.z, x.y / x.z), cam.distortion)
        let k = cam.matrix
        return SIMD2(k[0] * d.x + k[2], k[4] * d.y + k[5])
    }

    /// The true corners of `pose` in a view.
    public func corners(_ pose: Pose, view: Int) -> [SIMD2<Float>] {
        board.objectPoints.map { p in
            let q = project(SIMD3(Double(p.x), Double(p.y), 0), pose: pose, view: view)!
            return SIMD2(Float(q.x), Float(q.y))
        }
    }

    func cameraPose(_ pose: Pose, view: Int) -> ([Double], SIMD3<Double>) {
        guard view == 1, let r = truth.rotation, let t = truth.translation else { return (pose.rotation, pose.translation) }
        return (StereoRectifier.multiply3(r, pose.rotation), rotate(r, pose.translation) + SIMD3(t[0], t[1], t[2]))
    }

    /// The picture view 0 (left) or 1 (right) takes of the board at `pose`: a white sheet with
    /// the board on a grey, lightly textured wall; 4×4 samples a pixel, then sensor noise.
    public func render(_ pose: Pose, view: Int, seed: UInt64) -> Image {
        let w = truth.imageWidth!, h = truth.imageHeight!
        let rays = rays[view]
        let (r, t) = cameraPose(pose, view: view)
        // Normalised image coordinates map to the board's plane by a homography: the inverse of
        // [e1 e2 t], whose columns take the board's (x, y, 1) into the camera.
        let toBoard = Self.inverse([r[0], r[1], t.x, r[3], r[4], t.y, r[6], r[7], t.z])
        let s = board.square, cols = Double(board.columns), rows = Double(board.rows)
        let image = Image(width: w, height: h, format: .gray8)
        let plane = image.plane(0)
        let samples = 4, weight = 1 / Double(samples * samples)
        DispatchQueue.concurrentPerform(iterations: h) { y in
            var rng = SeededRandom(seed: seed &+ UInt64(y) &* 0x9E37_79B9)
            let row = plane.row(y, as: UInt8.self)
            for x in 0..<w {
                // The rays through the pixel's corners; inside, the lens is as good as linear.
                let a = rays.at(x, y), b = rays.at(x + 1, y), c = rays.at(x, y + 1), d = rays.at(x + 1, y + 1)
                let wall = 110 + 12 * sin(Double(x) * 0.05) * cos(Double(y) * 0.037)
                var sum = 0.0
                for sy in 0..<samples {
                    let fy = (Double(sy) + 0.5) / Double(samples)
                    let lo = a + (c - a) * fy, hi = b + (d - b) * fy
                    for sx in 0..<samples {
                        let fx = (Double(sx) + 0.5) / Double(samples)
                        let ray = lo + (hi - lo) * fx
                        let q = toBoard.0 * ray.x + toBoard.1 * ray.y + toBoard.2
                        let bx = q.x / q.z, by = q.y / q.z
                        if bx >= -s && by >= -s && bx < cols * s && by < rows * s {
                            // Squares of the board: those with an even sum of indices are black.
                            let i = Int((bx / s + 1).rounded(.down)) + Int((by / s + 1).rounded(.down))
                            sum += i % 2 == 0 ? 30 : 225
                        } else if bx >= -2 * s && by >= -2 * s && bx < (cols + 1) * s && by < (rows + 1) * s {
                            sum += 225  // the sheet's white margin
                        } else {
                            sum += wall
                        }
                    }
                }
                let v = sum * weight + rng.gaussian() * noise
                row[x] = UInt8(max(0, min(255, v.rounded())))
            }
        }
        return image
    }
}

extension SyntheticStereoRig {
    /// Both views of `pose` in one grey picture, left half and right half — what a side-by-side
    /// USB stereo camera delivers.
    public func sideBySide(_ pose: Pose, seed: UInt64) -> Image {
        Image.packed(render(pose, view: 0, seed: seed), render(pose, view: 1, seed: seed &+ 1))
    }
}

/// The pinhole-plus-distortion lens (OpenCV's model: k1 k2 p1 p2 k3).
enum Lens {
    /// Normalised image coordinates → distorted normalised coordinates.
    static func distort(_ p: SIMD2<Double>, _ d: [Double]) -> SIMD2<Double> {
        guard d.count >= 4 else { return p }
        let k3 = d.count > 4 ? d[4] : 0
        let r2 = (p * p).sum(), radial = 1 + d[0] * r2 + d[1] * r2 * r2 + k3 * r2 * r2 * r2
        return SIMD2(
            p.x * radial + 2 * d[2] * p.x * p.y + d[3] * (r2 + 2 * p.x * p.x),
            p.y * radial + d[2] * (r2 + 2 * p.y * p.y) + 2 * d[3] * p.x * p.y)
    }

    /// Distorted normalised coordinates → normalised ones (Newton on the model; converges in a few steps).
    static func undistort(_ q: SIMD2<Double>, _ d: [Double]) -> SIMD2<Double> {
        var p = q
        for _ in 0..<20 {
            let e = distort(p, d) - q
            if (e * e).sum() < 1e-24 { break }
            let h = 1e-7
            let jx = (distort(p + SIMD2(h, 0), d) - distort(p, d)) / h
            let jy = (distort(p + SIMD2(0, h), d) - distort(p, d)) / h
            let det = jx.x * jy.y - jy.x * jx.y
            p -= SIMD2(jy.y * e.x - jy.x * e.y, -jx.y * e.x + jx.x * e.y) / det
        }
        return p
    }

    /// The ray through every pixel corner of a view (interpolated inside a pixel). Pixel centres
    /// are at whole coordinates (OpenCV's convention), so corner (x, y) is at (x − ½, y − ½).
    struct Rays: Sendable {
        let width: Int
        let grid: [SIMD2<Double>]

        /// The ray through pixel corner (x, y).
        @inline(__always) func at(_ x: Int, _ y: Int) -> SIMD2<Double> { grid[y * (width + 1) + x] }
    }

    static func rays(_ cam: StereoCalibration.Camera, width: Int, height: Int) -> Rays {
        let k = cam.matrix
        var grid = [SIMD2<Double>](repeating: .zero, count: (width + 1) * (height + 1))
        for y in 0...height {
            for x in 0...width {
                grid[y * (width + 1) + x] = undistort(
                    SIMD2((Double(x) - 0.5 - k[2]) / k[0], (Double(y) - 0.5 - k[5]) / k[4]), cam.distortion)
            }
        }
        return Rays(width: width, grid: grid)
    }
}

/// A 3×3 row-major rotation applied to a point.
func rotate(_ r: [Double], _ p: SIMD3<Double>) -> SIMD3<Double> {
    let x: Double = r[0] * p.x + r[1] * p.y + r[2] * p.z
    let y: Double = r[3] * p.x + r[4] * p.y + r[5] * p.z
    let z: Double = r[6] * p.x + r[7] * p.y + r[8] * p.z
    return SIMD3(x, y, z)
}
