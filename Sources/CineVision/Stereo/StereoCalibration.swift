// StereoCalibration: intrinsics, distortion and the relative pose of a stereo pair, read from an
// OpenCV FileStorage file (YAML or XML: K1 D1 K2 D2 R T, or R1 R2 P1 P2) or a pair of ROS
// camera_info YAML files; gives the rectification of each view, the baseline and focal length.
import Foundation

/// A calibrated stereo camera.
public struct StereoCalibration: Sendable, Equatable {
    /// One camera's model.
    public struct Camera: Sendable, Equatable {
        /// Intrinsic matrix, 3×3 row-major (`fx 0 cx; 0 fy cy; 0 0 1`).
        public var matrix: [Double]
        /// Distortion (OpenCV order: k1 k2 p1 p2 [k3]); empty = none.
        public var distortion: [Double]
        /// Rectifying rotation, 3×3 row-major, when the file gives it.
        public var rectification: [Double]?
        /// Projection after rectification, 3×4 row-major, when the file gives it.
        public var projection: [Double]?

        /// Creates a camera.
        public init(
            matrix: [Double], distortion: [Double] = [], rectification: [Double]? = nil, projection: [Double]? = nil
        ) {
            self.matrix = matrix
            self.distortion = distortion
            self.rectification = rectification
            self.projection = projection
        }
    }

    /// The reference (left) camera.
    public var left: Camera
    /// The right camera.
    public var right: Camera
    /// Rotation from left to right camera coordinates (`X_r = R·X_l + T`), 3×3 row-major, if given.
    public var rotation: [Double]?
    /// Translation from left to right camera coordinates, if given (units of the calibration target, often mm).
    public var translation: [Double]?
    /// Image size the calibration was made at, when the file says.
    public var imageWidth: Int?
    /// Image height; see ``imageWidth``.
    public var imageHeight: Int?

    /// Creates a calibration.
    public init(
        left: Camera, right: Camera, rotation: [Double]? = nil, translation: [Double]? = nil,
        imageWidth: Int? = nil, imageHeight: Int? = nil
    ) {
        self.left = left
        self.right = right
        self.rotation = rotation
        self.translation = translation
        self.imageWidth = imageWidth
        self.imageHeight = imageHeight
    }

    /// The rectified focal length in pixels (from P1, else K1).
    public var focalLength: Double { left.projection?[0] ?? left.matrix[0] }

    /// The baseline in calibration units: `|T|`, else `−P2[0][3] / P2[0][0]`.
    public var baseline: Double {
        if let t = translation { return (t[0] * t[0] + t[1] * t[1] + t[2] * t[2]).squareRoot() }
        if let p = right.projection, p[0] != 0 { return abs(p[3] / p[0]) }
        return 0
    }

    // MARK: Loading

    /// Reads an OpenCV FileStorage file (YAML or XML, told apart by content).
    public static func load(contentsOf path: String) throws(CalibrationError) -> StereoCalibration {
        let text = try read(path)
        let format: CalibrationText.Format =
            text.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("<") ? .xml : .yaml
        let m = CalibrationText(text: text, file: path, format: format)
        let hasRectified = m.has("P1") && m.has("P2")
        var k1 = try m.matrix("K1", rows: 3, cols: 3, required: false)
        if k1 == nil { k1 = try m.matrix("M1", rows: 3, cols: 3, required: false) }
        var k2 = try m.matrix("K2", rows: 3, cols: 3, required: false)
        if k2 == nil { k2 = try m.matrix("M2", rows: 3, cols: 3, required: false) }
        if !hasRectified && k1 == nil {
            throw CalibrationError(file: path, field: "K1", "is missing (give K1 D1 K2 D2 R T, or R1 R2 P1 P2)")
        }
        if !hasRectified && k2 == nil {
            throw CalibrationError(file: path, field: "K2", "is missing (give K1 D1 K2 D2 R T, or R1 R2 P1 P2)")
        }
        let p1 = try m.matrix("P1", rows: 3, cols: 4, required: false)
        let p2 = try m.matrix("P2", rows: 3, cols: 4, required: false)
        let r = try m.matrix("R", rows: 3, cols: 3, required: !hasRectified)
        let t = try m.matrix("T", rows: 3, cols: 1, required: !hasRectified)
        // With only R1 R2 P1 P2, the rectified cameras stand in for the originals (no distortion).
        let left = Camera(
            matrix: k1 ?? intrinsics(of: p1!), distortion: try m.vector("D1") ?? [],
            rectification: try m.matrix("R1", rows: 3, cols: 3, required: false), projection: p1)
        let right = Camera(
            matrix: k2 ?? intrinsics(of: p2!), distortion: try m.vector("D2") ?? [],
            rectification: try m.matrix("R2", rows: 3, cols: 3, required: false), projection: p2)
        var size = try m.vector("imageSize")
        if size == nil { size = try m.vector("image_size") }
        if size == nil, let w = try m.scalar("image_width"), let h = try m.scalar("image_height") { size = [w, h] }
        if let s = size, s.count != 2 {
            throw CalibrationError(file: path, field: "imageSize", "must be [width, height]")
        }
        let c = StereoCalibration(
            left: left, right: right, rotation: r, translation: t,
            imageWidth: size.map { Int($0[0]) }, imageHeight: size.map { Int($0[1]) })
        try c.check(path)
        return c
    }

    /// Reads a pair of ROS `camera_info` YAML files (`camera_matrix`, `distortion_coefficients`,
    /// `rectification_matrix`, `projection_matrix`, `image_width`, `image_height`).
    public static func load(rosLeft leftPath: String, rosRight rightPath: String) throws(CalibrationError)
        -> StereoCalibration
    {
        func camera(_ path: String) throws(CalibrationError) -> (Camera, Int?, Int?) {
            let m = CalibrationText(text: try read(path), file: path, format: .yaml)
            let k = try m.matrix("camera_matrix", rows: 3, cols: 3, required: true)!
            let d = try m.vector("distortion_coefficients") ?? []
            let r = try m.matrix("rectification_matrix", rows: 3, cols: 3, required: true)
            let p = try m.matrix("projection_matrix", rows: 3, cols: 4, required: true)
            return (
                Camera(matrix: k, distortion: d, rectification: r, projection: p),
                try m.scalar("image_width").map { Int($0) }, try m.scalar("image_height").map { Int($0) }
            )
        }
        let (l, lw, lh) = try camera(leftPath)
        let (r, rw, rh) = try camera(rightPath)
        if lw != rw || lh != rh {
            throw CalibrationError(
                file: rightPath, field: "image_width",
                "the right camera is \(rw ?? 0)x\(rh ?? 0) but the left (\(leftPath)) is \(lw ?? 0)x\(lh ?? 0)")
        }
        let c = StereoCalibration(left: l, right: r, imageWidth: lw, imageHeight: lh)
        try c.check(rightPath)
        return c
    }

    /// Checks that the numbers add up (positive focal lengths, a proper rotation, a baseline).
    func check(_ path: String) throws(CalibrationError) {
        for (name, cam) in [("K1", left), ("K2", right)] where !(cam.matrix[0] > 0 && cam.matrix[4] > 0) {
            throw CalibrationError(
                file: path, field: name, "focal lengths must be positive, got fx \(cam.matrix[0]) fy \(cam.matrix[4])")
        }
        if let r = rotation {
            let det =
                r[0] * (r[4] * r[8] - r[5] * r[7]) - r[1] * (r[3] * r[8] - r[5] * r[6]) + r[2]
                * (r[3] * r[7] - r[4] * r[6])
            if abs(det - 1) > 1e-3 {
                throw CalibrationError(file: path, field: "R", "is not a rotation (determinant \(det)); check the file")
            }
        }
        if baseline <= 0 {
            throw CalibrationError(
                file: path, field: translation != nil ? "T" : "P2",
                "gives no baseline (the cameras coincide); check the translation")
        }
        for (name, d) in [("D1", left.distortion), ("D2", right.distortion)] where !d.isEmpty && d.count < 4 {
            throw CalibrationError(
                file: path, field: name, "needs at least 4 coefficients (k1 k2 p1 p2 [k3]), got \(d.count)")
        }
    }

    static func read(_ path: String) throws(CalibrationError) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CalibrationError(file: path, field: nil, "cannot be read (missing or not readable)")
        }
        return String(decoding: data, as: UTF8.self)
    }

    static func intrinsics(of p: [Double]) -> [Double] {
        [p[0], p[1], p[2], p[4], p[5], p[6], p[8], p[9], p[10]]
    }
}
