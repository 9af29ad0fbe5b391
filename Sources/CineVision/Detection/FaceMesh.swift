// FaceMesh: the pre- and post-processing of MediaPipe's face landmark model (468 points from a
// 192×192 crop around a detected face) — the rotated crop, the way back to the frame, whether a
// face is there at all, and the head's pose from the points. Plain Swift, testable without the
// model (which runs in CineInference).
import CineMedia
import Foundation

/// A point of the frame in pixels with a depth in the same units (smaller is nearer).
public struct MeshPoint: Sendable, Hashable {
    public var x: Double
    public var y: Double
    public var z: Double
    /// Creates a point.
    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }
}

/// The head's rotation from the camera's view, in degrees: yaw (+ turned towards the image's
/// right), pitch (+ looking up), roll (+ tilted clockwise in the image).
public struct HeadPose: Sendable, Hashable {
    public var yaw: Double
    public var pitch: Double
    public var roll: Double
    /// |yaw| beyond which a head counts as turned away: past half profile, one eye hidden.
    public static let awayYaw = 50.0
    /// Towards the camera, or away once the head is turned past ``awayYaw``.
    public var facing: Facing { abs(yaw) > Self.awayYaw ? .away : .towards }
    /// Creates a pose.
    public init(yaw: Double, pitch: Double, roll: Double) {
        self.yaw = yaw
        self.pitch = pitch
        self.roll = roll
    }
}

/// One face's mesh: its 468 points in the frame, how sure the model is that a face is there,
/// and the head pose.
public struct FaceMeshResult: Sendable, Hashable {
    /// The 468 points, in the frame's pixels.
    public var points: [MeshPoint]
    /// The model's face-presence confidence, 0…1 (MediaPipe drops a face below 0.5).
    public var presence: Double
    /// The head's rotation from ``points``.
    public var pose: HeadPose
}

/// The face landmark model's crop and read-out.
public struct FaceMesh: Sendable {
    /// The model's input side.
    public static let inputSize = 192
    /// Points the model gives.
    public static let pointCount = 468

    /// The square the model looks at, in frame pixels: centred on the face, 1.5× its longer
    /// side, turned so the eyes lie level (MediaPipe's detection-to-ROI rule).
    public struct Crop: Sendable, Hashable {
        public var centerX: Double
        public var centerY: Double
        public var side: Double
        /// Angle of the crop's x axis in the frame (radians, clockwise as y points down).
        public var angle: Double

        /// The crop for a BlazeFace detection in a `width`×`height` frame.
        public init(face: BlazeFaceDetection, width: Int, height: Int) {
            let w = Double(width), h = Double(height), b = face.bounds
            centerX = (b.x + b.width / 2) * w
            centerY = (b.y + b.height / 2) * h
            side = max(b.width * w, b.height * h) * 1.5
            if face.keypoints.count >= 2 {
                // Keypoint 0 is the person's right eye (image left), 1 the left eye.
                angle = atan2((face.keypoints[1].y - face.keypoints[0].y) * h, (face.keypoints[1].x - face.keypoints[0].x) * w)
            } else {
                angle = 0
            }
        }

        /// The crop for a face box known otherwise (a tracked face between detections), upright
        /// unless `angle` says otherwise, in a `width`×`height` frame.
        public init(box b: NormalizedRect, angle: Double = 0, width: Int, height: Int) {
            let w = Double(width), h = Double(height)
            centerX = (b.x + b.width / 2) * w
            centerY = (b.y + b.height / 2) * h
            side = max(b.width * w, b.height * h) * 1.5
            self.angle = angle
        }

        /// The frame point of crop pixel coordinates (`u`, `v`), 0…``FaceMesh/inputSize``.
        @inline(__always)
        public func frame(u: Double, v: Double) -> (x: Double, y: Double) {
            let s = side / Double(FaceMesh.inputSize)
            let du = (u - Double(FaceMesh.inputSize) / 2) * s, dv = (v - Double(FaceMesh.inputSize) / 2) * s
            let c = cos(angle), n = sin(angle)
            return (centerX + du * c - dv * n, centerY + du * n + dv * c)
        }
    }

    /// Fills `input` (192² × 3 floats, RGB in 0…1, row-major) with the crop of `image`,
    /// bilinear; outside the frame reads the nearest edge pixel.
    /// Cost: one bilinear sample per input pixel (37 k), no allocation.
    public static func prepareInput(_ image: Image, crop: Crop, into input: UnsafeMutableBufferPointer<Float>) {
        let n = inputSize
        precondition(input.count >= n * n * 3, "input holds \(input.count) floats, needs \(n * n * 3)")
        let sampler = RGBSampler(image)
        let s = crop.side / Double(n), c = cos(crop.angle) * s, sn = sin(crop.angle) * s
        for v in 0..<n {
            let dv = Double(v) + 0.5 - Double(n) / 2
            for u in 0..<n {
                let du = Double(u) + 0.5 - Double(n) / 2
                let x = crop.centerX + du * c - dv * sn - 0.5, y = crop.centerY + du * sn + dv * c - 0.5
                let (r, g, b) = sampler.rgb(x, y)
                let o = (v * n + u) * 3
                input[o] = max(0, min(1, r / 255))
                input[o + 1] = max(0, min(1, g / 255))
                input[o + 2] = max(0, min(1, b / 255))
            }
        }
    }

    /// Reads the model's outputs: `landmarks` (468 × x, y, z in crop pixels) and `presence`
    /// (one logit) through `crop` back to the frame.
    public static func decode(landmarks: UnsafeBufferPointer<Float>, presence: Float, crop: Crop) -> FaceMeshResult {
        let s = crop.side / Double(inputSize)
        var points: [MeshPoint] = []
        points.reserveCapacity(pointCount)
        for i in 0..<min(pointCount, landmarks.count / 3) {
            let p = crop.frame(u: Double(landmarks[3 * i]), v: Double(landmarks[3 * i + 1]))
            points.append(MeshPoint(x: p.x, y: p.y, z: Double(landmarks[3 * i + 2]) * s))
        }
        return FaceMeshResult(points: points, presence: 1 / (1 + exp(-Double(presence))), pose: pose(points))
    }

    /// The head's pose from its mesh: the eyes' outer corners give the head's x axis, forehead
    /// to chin its y axis; their cross product is the way the face looks.
    public static func pose(_ p: [MeshPoint]) -> HeadPose {
        guard p.count >= pointCount else { return HeadPose(yaw: 0, pitch: 0, roll: 0) }
        func sub(_ a: MeshPoint, _ b: MeshPoint) -> SIMD3<Double> { SIMD3(a.x - b.x, a.y - b.y, a.z - b.z) }
        func unit(_ v: SIMD3<Double>) -> SIMD3<Double> { v / max(1e-9, (v * v).sum().squareRoot()) }
        let x = unit(sub(p[263], p[33]))  // person's right eye outer corner → left eye outer corner
        var y = sub(p[152], p[10])  // forehead → chin
        y = unit(y - (y * x).sum() * x)
        let into = SIMD3(x.y * y.z - x.z * y.y, x.z * y.x - x.x * y.z, x.x * y.y - x.y * y.x)  // away from the camera
        let look = -into
        let deg = 180 / Double.pi
        return HeadPose(yaw: atan2(look.x, -look.z) * deg,
                        pitch: atan2(-look.y, (look.x * look.x + look.z * look.z).squareRoot()) * deg,
                        roll: atan2(x.y, x.x) * deg)
    }
}
