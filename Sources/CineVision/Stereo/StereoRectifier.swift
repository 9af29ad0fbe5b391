// StereoRectifier: warps both views of a calibrated stereo camera so that epipolar lines become
// image rows (undistort + rotate + re-project), with one bilinear remap pass per view that can
// also resize (the map is built for the output size directly).
import CineMedia
import Dispatch
import Foundation

/// Rectification of a calibrated pair: precomputed source coordinates for every output pixel.
public struct StereoRectifier: Sendable {
    /// Input view size.
    public let width: Int
    /// Input view height.
    public let height: Int
    /// Output (rectified) size.
    public let outputWidth: Int
    /// Output height.
    public let outputHeight: Int
    /// Focal length of the rectified output, in output pixels (for depth = f·B/d).
    public let focalLength: Double
    /// Baseline, in the calibration's units.
    public let baseline: Double
    /// The luma warp of the left and the right view.
    let luma: [RemapTable]
    /// The chroma warp (half resolution) of each view.
    let chroma: [RemapTable]

    /// Builds the maps for views of `width` × `height` rectified to `outputWidth` × `outputHeight`
    /// (the input size by default).
    ///
    /// Uses the file's R1 R2 P1 P2 when it has them; otherwise computes them from K D R T the
    /// way OpenCV's `stereoRectify` does (Bouguet: each camera rotated half-way, then the pair
    /// aligned with the baseline; zero disparity at infinity, common focal length).
    ///
    /// - Throws: ``CalibrationError`` when the calibration was made at another image size.
    public init(
        calibration c: StereoCalibration, width: Int, height: Int, outputWidth: Int? = nil,
        outputHeight: Int? = nil, file: String = "calibration"
    ) throws(CalibrationError) {
        if let cw = c.imageWidth, let ch = c.imageHeight, cw != width || ch != height {
            throw CalibrationError(
                file: file, field: "imageSize",
                "the calibration is for \(cw)x\(ch) images but the views are \(width)x\(height)")
        }
        self.width = width
        self.height = height
        let ow = outputWidth ?? width, oh = outputHeight ?? height
        self.outputWidth = ow
        self.outputHeight = oh
        let (r1, r2, p1, p2) = Self.rectification(c)
        focalLength = p1[0] * Double(ow) / Double(width)
        baseline = c.baseline
        let maps = [
            Self.map(c.left, rotation: r1, projection: p1, width, height, ow, oh),
            Self.map(c.right, rotation: r2, projection: p2, width, height, ow, oh),
        ]
        // Luma: samples outside the view are black.
        luma = maps.map { m in
            RemapTable(width: ow, height: oh, sourceWidth: width, sourceHeight: height) { u, v in
                let x = m[2 * (v * ow + u)], y = m[2 * (v * ow + u) + 1]
                guard x >= 0, y >= 0, x <= Float(width - 1), y <= Float(height - 1) else { return nil }
                return SIMD2(x, y)
            }
        }
        // Chroma: the map sampled at even output pixels, its coordinates halved (chroma sited at
        // the centre of each 2×2 block); within half a sample of the edge clamped, beyond it grey.
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        chroma = maps.map { m in
            RemapTable(width: (ow + 1) / 2, height: (oh + 1) / 2, sourceWidth: cw, sourceHeight: ch) { u, v in
                let mu = min(ow - 1, 2 * u), mv = min(oh - 1, 2 * v)
                let x = (m[2 * (mv * ow + mu)] - 0.5) * 0.5, y = (m[2 * (mv * ow + mu) + 1] - 0.5) * 0.5
                let maxX = Float(cw - 1), maxY = Float(ch - 1)
                guard x >= -0.5, y >= -0.5, x <= maxX + 0.5, y <= maxY + 0.5 else { return nil }
                return SIMD2(min(max(x, 0), maxX), min(max(y, 0), maxY))
            }
        }
    }

    /// R1 R2 (3×3) and P1 P2 (3×4), from the file or computed (Bouguet).
    static func rectification(_ c: StereoCalibration) -> ([Double], [Double], [Double], [Double]) {
        if let r1 = c.left.rectification, let r2 = c.right.rectification, let p1 = c.left.projection,
            let p2 = c.right.projection
        {
            return (r1, r2, p1, p2)
        }
        let r = c.rotation ?? [1, 0, 0, 0, 1, 0, 0, 0, 1], t = c.translation ?? [-1, 0, 0]
        // Half rotations: r_r = rodrigues(−om/2), the left gets its transpose.
        let om = rodrigues(matrix: r)
        let rr = rodrigues(vector: om.map { -0.5 * $0 })
        let tt = multiply(rr, t)
        // Rotate the baseline onto the x axis.
        let uu: [Double] = [tt[0] > 0 ? 1 : -1, 0, 0]
        var ww = cross(tt, uu)
        let nw = (ww[0] * ww[0] + ww[1] * ww[1] + ww[2] * ww[2]).squareRoot()
        let nt = (tt[0] * tt[0] + tt[1] * tt[1] + tt[2] * tt[2]).squareRoot()
        if nw > 0 { ww = ww.map { $0 * acos(min(1, abs(tt[0]) / nt)) / nw } }
        let wr = rodrigues(vector: ww)
        let r1 = multiply3(wr, transpose(rr)), r2 = multiply3(wr, rr)
        let f = (c.left.matrix[4] + c.right.matrix[4]) / 2
        let cx = (c.left.matrix[2] + c.right.matrix[2]) / 2, cy = (c.left.matrix[5] + c.right.matrix[5]) / 2
        let tx = multiply(r2, t)[0]
        let p1 = [f, 0, cx, 0, 0, f, cy, 0, 0, 0, 1, 0]
        let p2 = [f, 0, cx, tx * f, 0, f, cy, 0, 0, 0, 1, 0]
        return (r1, r2, p1, p2)
    }

    /// Source coordinates for each output pixel: ray through the rectified pixel, rotated back
    /// by Rᵀ, distorted (k1 k2 p1 p2 k3), projected with K. Built once, in Double.
    static func map(
        _ cam: StereoCalibration.Camera, rotation r: [Double], projection p: [Double],
        _ w: Int, _ h: Int, _ ow: Int, _ oh: Int
    ) -> [Float] {
        let k = cam.matrix, d = cam.distortion + [Double](repeating: 0, count: max(0, 5 - cam.distortion.count))
        var out = [Float](repeating: 0, count: ow * oh * 2)
        let sx = Double(w) / Double(ow), sy = Double(h) / Double(oh)
        for v in 0..<oh {
            for u in 0..<ow {
                let uf = (Double(u) + 0.5) * sx - 0.5, vf = (Double(v) + 0.5) * sy - 0.5
                let x = (uf - p[2]) / p[0], y = (vf - p[6]) / p[5]
                // Rᵀ · (x, y, 1)
                let X = r[0] * x + r[3] * y + r[6], Y = r[1] * x + r[4] * y + r[7], Z = r[2] * x + r[5] * y + r[8]
                let xp = X / Z, yp = Y / Z
                let r2 = xp * xp + yp * yp
                let radial = 1 + d[0] * r2 + d[1] * r2 * r2 + d[4] * r2 * r2 * r2
                let xd = xp * radial + 2 * d[2] * xp * yp + d[3] * (r2 + 2 * xp * xp)
                let yd = yp * radial + d[2] * (r2 + 2 * yp * yp) + 2 * d[3] * xp * yp
                out[2 * (v * ow + u)] = Float(k[0] * xd + k[1] * yd + k[2])
                out[2 * (v * ow + u) + 1] = Float(k[4] * yd + k[5])
            }
        }
        return out
    }

    /// Rectifies both views' luma into gray8 images of the output size (two jobs, one per view).
    public func rectify(_ frame: StereoFrame, pool: ImagePool? = nil) -> StereoFrame {
        let outs = (0..<2).map { _ in
            pool?.makeImage(width: outputWidth, height: outputHeight, format: .gray8)
                ?? Image(width: outputWidth, height: outputHeight, format: .gray8)
        }
        DispatchQueue.concurrentPerform(iterations: 2) { view in
            remap(view == 0 ? frame.left.plane(0) : frame.right.plane(0), view: view, into: outs[view].plane(0))
        }
        return StereoFrame(left: outs[0], right: outs[1])
    }

    /// Rectifies both views in colour: I420 in, I420 of the output size out (the luma map for Y,
    /// the same map at half resolution for U and V, whose outside is neutral grey). Two jobs,
    /// one per view — what a stereo source node emits, so that the reference view the user
    /// records lines up pixel for pixel with the disparity computed from the pair.
    public func rectifyColor(_ frame: StereoFrame, pool: ImagePool? = nil) -> StereoFrame {
        precondition(frame.left.format == .i420, "rectifyColor takes I420 views")
        let outs = (0..<2).map { _ in
            pool?.makeImage(width: outputWidth, height: outputHeight, format: .i420)
                ?? Image(width: outputWidth, height: outputHeight, format: .i420)
        }
        DispatchQueue.concurrentPerform(iterations: 2) { view in
            let src = view == 0 ? frame.left : frame.right
            remap(src.plane(0), view: view, into: outs[view].plane(0))
            remapChroma(src.plane(1), view: view, into: outs[view].plane(1))
            remapChroma(src.plane(2), view: view, into: outs[view].plane(2))
        }
        return StereoFrame(left: outs[0], right: outs[1])
    }

    /// Bilinear remap of a half-resolution chroma plane; outside the view → 128 (neutral).
    func remapChroma(_ src: Plane, view: Int, into dst: Plane) {
        chroma[view].apply(src, into: dst, outside: 128)
    }

    /// Bilinear remap of one view's luma (0 = left, 1 = right); samples outside the view are black.
    /// Per output pixel: one precomputed tap, 4 source bytes, integer arithmetic.
    public func remap(_ src: Plane, view: Int, into dst: Plane) {
        luma[view].apply(src, into: dst, outside: 0)
    }

    // MARK: 3×3 helpers (row-major; `package`: the calibration's simulated rig uses them too)

    package static func rodrigues(vector w: [Double]) -> [Double] {
        let theta = (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]).squareRoot()
        if theta < 1e-12 { return [1, 0, 0, 0, 1, 0, 0, 0, 1] }
        let kx = w[0] / theta, ky = w[1] / theta, kz = w[2] / theta
        let c = cos(theta), s = sin(theta), v = 1 - c
        return [
            c + kx * kx * v, kx * ky * v - kz * s, kx * kz * v + ky * s,
            ky * kx * v + kz * s, c + ky * ky * v, ky * kz * v - kx * s,
            kz * kx * v - ky * s, kz * ky * v + kx * s, c + kz * kz * v,
        ]
    }

    static func rodrigues(matrix r: [Double]) -> [Double] {
        let cosTheta = max(-1, min(1, (r[0] + r[4] + r[8] - 1) / 2))
        let theta = acos(cosTheta)
        if theta < 1e-12 { return [0, 0, 0] }
        let s = 2 * sin(theta)
        return [(r[7] - r[5]) / s * theta, (r[2] - r[6]) / s * theta, (r[3] - r[1]) / s * theta]
    }

    package static func multiply(_ m: [Double], _ v: [Double]) -> [Double] {
        [
            m[0] * v[0] + m[1] * v[1] + m[2] * v[2], m[3] * v[0] + m[4] * v[1] + m[5] * v[2],
            m[6] * v[0] + m[7] * v[1] + m[8] * v[2],
        ]
    }

    package static func multiply3(_ a: [Double], _ b: [Double]) -> [Double] {
        var out = [Double](repeating: 0, count: 9)
        for i in 0..<3 { for j in 0..<3 { for k in 0..<3 { out[i * 3 + j] += a[i * 3 + k] * b[k * 3 + j] } } }
        return out
    }

    static func transpose(_ m: [Double]) -> [Double] { [m[0], m[3], m[6], m[1], m[4], m[7], m[2], m[5], m[8]] }

    static func cross(_ a: [Double], _ b: [Double]) -> [Double] {
        [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    }
}
