// BlazeFace: the pre- and post-processing of MediaPipe's face detection models (short range
// 128×128, full range 192×192) — letterboxed RGB input in [-1, 1], SSD anchors, box and keypoint
// decoding, weighted non-maximum suppression, and the way back to the frame's coordinates. The
// model itself runs elsewhere (CineInference); this is plain Swift, testable without it.
import CineMedia
import Foundation

/// One face found by BlazeFace, in the frame's normalised coordinates (0…1, top-left origin).
public struct BlazeFaceDetection: Sendable, Hashable {
    /// The face's box.
    public var bounds: NormalizedRect
    /// Confidence, 0…1 (sigmoid of the model's logit; the best of the merged candidates).
    public var score: Double
    /// Six keypoints: right eye, left eye, nose tip, mouth centre, right ear tragion, left ear
    /// tragion ("right" is the person's right, the image's left for a face towards the camera).
    public var keypoints: [NormalizedPoint]

    /// Head yaw from the keypoints, −1 (turned fully to the image's left) … 0 (frontal) … 1:
    /// where the nose sits between the two ear points. A face in half profile reads about ±0.5.
    /// |yaw| beyond which a face counts as turned away (about half profile).
    public static let awayYaw = 0.6
    /// Towards the camera, or away once |``yaw``| passes ``awayYaw``.
    public var facing: Facing { abs(yaw) > Self.awayYaw ? .away : .towards }
    public var yaw: Double {
        guard keypoints.count == 6 else { return 0 }
        let a = keypoints[4].x, b = keypoints[5].x, nose = keypoints[2].x
        let span = b - a
        guard abs(span) > 1e-6 else { return 0 }
        return max(-1, min(1, 2 * (nose - a) / span - 1))
    }
}

/// The BlazeFace model family: its input size, anchors and decoding constants.
public struct BlazeFace: Sendable {
    /// The constants of one model of the family.
    public struct Variant: Sendable, Hashable {
        /// Input width and height (square).
        public var inputSize: Int
        /// Feature-map strides; consecutive equal strides share one grid.
        public var strides: [Int]
        /// Anchors per grid cell and layer: 2 for short range (aspect ratio 1 and its
        /// interpolated scale), 1 for full range.
        public var anchorsPerLayer: Int
        /// Candidates below this confidence are dropped before suppression.
        public var minScore: Double
        /// Candidates overlapping the kept one by more than this IoU are merged into it.
        public var suppressionIoU: Double
        /// Keypoints after the box in each anchor's regressors (6 for faces, 4 for the pose
        /// detector).
        public var keypoints: Int = 6
        /// The input's range: RGB in −1…1 (the face and pose models) or, when set, 0…1 (the
        /// palm detector).
        public var unitInput = false
        /// Whether each input pixel averages the frame over its footprint (up to 4×4 pixels)
        /// rather than taking one bilinear sample: the palm detector scores a hand in a 720p
        /// frame at 0.5–0.7 from point samples and at 0.8 from averaged ones.
        public var averagesFootprint = false
        /// Regressor values per anchor: the box (4) and the keypoints' x and y.
        public var valuesPerAnchor: Int { 4 + 2 * keypoints }

        /// `face_detection_short_range.tflite`: faces within about 2 m, 128×128, 896 anchors.
        public static let shortRange = Variant(inputSize: 128, strides: [8, 16, 16, 16], anchorsPerLayer: 2,
                                               minScore: 0.5, suppressionIoU: 0.3)
        /// `face_detection_full_range_sparse.tflite`: faces up to about 5 m, 192×192, 2304 anchors.
        public static let fullRange = Variant(inputSize: 192, strides: [4], anchorsPerLayer: 1, minScore: 0.6,
                                              suppressionIoU: 0.3)
        /// `pose_detection.tflite` (BlazePose's detector): a person found by their head, with the
        /// hips' centre, a point a body's radius away, the shoulders' centre and a point above
        /// the head; 224×224, 2254 anchors.
        public static let pose = Variant(inputSize: 224, strides: [8, 16, 32, 32, 32], anchorsPerLayer: 2,
                                         minScore: 0.5, suppressionIoU: 0.3, keypoints: 4)
        /// `palm_detection_lite.tflite` (MediaPipe Hands' palm detector): a palm's box, with the
        /// wrist, the knuckles of the index, middle, ring and little fingers and two points of the
        /// thumb; 192×192, RGB in 0…1, 2016 anchors.
        public static let palm = Variant(inputSize: 192, strides: [8, 16, 16, 16], anchorsPerLayer: 2,
                                         minScore: 0.5, suppressionIoU: 0.3, keypoints: 7, unitInput: true,
                                         averagesFootprint: true)
    }

    /// Where an anchor sits in the model's input, normalised.
    public struct Anchor: Sendable, Hashable {
        public var x: Float
        public var y: Float
    }

    /// The model's constants.
    public let variant: Variant
    /// The anchors, in the order of the model's outputs.
    public let anchors: [Anchor]

    /// Sets the family member up; anchors are generated once.
    public init(_ variant: Variant) {
        self.variant = variant
        anchors = Self.anchors(for: variant)
    }

    /// SSD anchors as MediaPipe's `SsdAnchorsCalculator` makes them with a fixed anchor size:
    /// for each run of layers with one stride, a grid of `inputSize / stride` cells, each with
    /// `anchorsPerLayer` anchors per layer at the cell centre (with a fixed size, the
    /// aspect-ratio anchor and the interpolated-scale one are the same point).
    static func anchors(for v: Variant) -> [Anchor] {
        var out: [Anchor] = []
        var layer = 0
        while layer < v.strides.count {
            var last = layer
            while last + 1 < v.strides.count && v.strides[last + 1] == v.strides[layer] { last += 1 }
            let perCell = (last - layer + 1) * v.anchorsPerLayer
            let grid = (v.inputSize + v.strides[layer] - 1) / v.strides[layer]
            for y in 0..<grid {
                for x in 0..<grid {
                    let a = Anchor(x: (Float(x) + 0.5) / Float(grid), y: (Float(y) + 0.5) / Float(grid))
                    for _ in 0..<perCell { out.append(a) }
                }
            }
            layer = last + 1
        }
        return out
    }

    // MARK: - Input

    /// How a frame maps into the model's square input: scaled to fit, centred, zero bands.
    public struct Letterbox: Sendable, Hashable {
        /// Fraction of the input the frame's width and height cover (≤ 1; one of them is 1).
        public var contentWidth: Double
        public var contentHeight: Double

        /// The letterbox for a frame of `width`×`height`.
        public init(width: Int, height: Int) {
            let aspect = Double(width) / Double(max(1, height))
            contentWidth = aspect >= 1 ? 1 : aspect
            contentHeight = aspect >= 1 ? 1 / aspect : 1
        }

        /// A point of the model's input (normalised) in the frame's normalised coordinates.
        public func frame(x: Double, y: Double) -> (x: Double, y: Double) {
            ((x - (1 - contentWidth) / 2) / contentWidth, (y - (1 - contentHeight) / 2) / contentHeight)
        }
    }

    /// Fills `input` (inputSize² × 3 floats, RGB in −1…1 or 0…1 by ``Variant/unitInput``,
    /// row-major) with `image` letterboxed:
    /// bilinear resampling of I420/NV12 (converted with BT.601 full-swing coefficients, as a
    /// camera's JPEG-range video), RGBA or gray8. Returns the letterbox to map results back.
    /// Cost: one bilinear sample per input pixel (16 k for short range; with
    /// ``Variant/averagesFootprint`` up to 16 byte reads a plane instead), no allocation.
    public func prepareInput(_ image: Image, into input: UnsafeMutableBufferPointer<Float>) -> Letterbox {
        let n = variant.inputSize
        precondition(input.count >= n * n * 3, "input holds \(input.count) floats, needs \(n * n * 3)")
        let box = Letterbox(width: image.width, height: image.height)
        let cw = box.contentWidth * Double(n), ch = box.contentHeight * Double(n)
        let x0 = (Double(n) - cw) / 2, y0 = (Double(n) - ch) / 2
        let sx = Double(image.width) / cw, sy = Double(image.height) / ch
        let sampler = RGBSampler(image)
        // −1…1: v / 127.5 − 1; 0…1: v / 255. The letterbox band is 0 either way (mid grey for
        // the face models, black for the palm detector, as MediaPipe pads them).
        let scale: Float = variant.unitInput ? 1 / 255 : 1 / 127.5, offset: Float = variant.unitInput ? 0 : -1
        let low: Float = variant.unitInput ? 0 : -1
        // Footprint averaging: taps × taps pixels spread over the input pixel's footprint.
        let taps = variant.averagesFootprint ? max(1, min(4, Int(max(sx, sy).rounded(.up)))) : 1
        let stepX = sx / Double(taps), stepY = sy / Double(taps)
        for oy in 0..<n {
            let fy = (Double(oy) + 0.5 - y0) * sy - 0.5
            for ox in 0..<n {
                let o = (oy * n + ox) * 3
                let fx = (Double(ox) + 0.5 - x0) * sx - 0.5
                guard fx > -1, fy > -1, fx < Double(image.width), fy < Double(image.height) else {
                    input[o] = 0; input[o + 1] = 0; input[o + 2] = 0  // the letterbox band
                    continue
                }
                // The footprint's corner: the pixel centre (fx + 0.5) less half a footprint.
                let (r, g, b) = taps > 1
                    ? sampler.meanRGB(x0: fx + 0.5 - 0.5 * sx, y0: fy + 0.5 - 0.5 * sy, stepX: stepX, stepY: stepY, taps: taps)
                    : sampler.rgb(fx, fy)
                input[o] = max(low, min(1, r * scale + offset))
                input[o + 1] = max(low, min(1, g * scale + offset))
                input[o + 2] = max(low, min(1, b * scale + offset))
            }
        }
        return box
    }

    // MARK: - Output

    /// Decodes the model's outputs — `regressors` (anchors × ``Variant/valuesPerAnchor``: box
    /// centre x, y, width, height, then the keypoints' x, y, in input pixels relative to the anchor) and `scores` (one logit
    /// per anchor) — keeps candidates above ``Variant/minScore``, merges overlapping ones by
    /// MediaPipe's weighted suppression, and maps them through `letterbox` into the frame.
    /// Cost: one pass over the anchors, then O(k²) over the k candidates kept.
    public func decode(regressors: UnsafeBufferPointer<Float>, scores: UnsafeBufferPointer<Float>,
                       letterbox: Letterbox) -> [BlazeFaceDetection] {
        let n = variant.valuesPerAnchor, kp = variant.keypoints
        let count = min(anchors.count, scores.count, regressors.count / n)
        let scale = Float(variant.inputSize)
        var candidates: [(score: Float, values: [Float])] = []
        let logitThreshold = Float(log(variant.minScore / (1 - variant.minScore)))
        for i in 0..<count {
            let logit = max(-100, min(100, scores[i]))
            guard logit >= logitThreshold else { continue }
            let a = anchors[i]
            let r = regressors.baseAddress! + n * i
            var values = [Float](repeating: 0, count: n)
            values[0] = r[0] / scale + a.x
            values[1] = r[1] / scale + a.y
            values[2] = r[2] / scale
            values[3] = r[3] / scale
            for k in 0..<kp {
                values[4 + 2 * k] = r[4 + 2 * k] / scale + a.x
                values[5 + 2 * k] = r[5 + 2 * k] / scale + a.y
            }
            candidates.append((1 / (1 + exp(-logit)), values))
        }
        candidates.sort { $0.score > $1.score }
        var out: [BlazeFaceDetection] = []
        var remaining = candidates
        while let top = remaining.first {
            let topBox = Self.box(top.values)
            var merged = [Float](repeating: 0, count: n)
            var weight: Float = 0
            var rest: [(score: Float, values: [Float])] = []
            for c in remaining {
                if Self.iou(topBox, Self.box(c.values)) > Float(variant.suppressionIoU) {
                    for j in 0..<n { merged[j] += c.values[j] * c.score }
                    weight += c.score
                } else {
                    rest.append(c)
                }
            }
            for j in 0..<n { merged[j] /= weight }
            remaining = rest
            let (x0, y0) = letterbox.frame(x: Double(merged[0] - merged[2] / 2), y: Double(merged[1] - merged[3] / 2))
            let (x1, y1) = letterbox.frame(x: Double(merged[0] + merged[2] / 2), y: Double(merged[1] + merged[3] / 2))
            let points = (0..<kp).map { k -> NormalizedPoint in
                let p = letterbox.frame(x: Double(merged[4 + 2 * k]), y: Double(merged[5 + 2 * k]))
                return NormalizedPoint(x: p.x, y: p.y)
            }
            let cx0 = max(0, min(1, x0)), cy0 = max(0, min(1, y0)), cx1 = max(0, min(1, x1)), cy1 = max(0, min(1, y1))
            guard cx1 > cx0, cy1 > cy0 else { continue }
            out.append(BlazeFaceDetection(
                bounds: NormalizedRect(x: cx0, y: cy0, width: cx1 - cx0, height: cy1 - cy0),
                score: Double(top.score), keypoints: points))
        }
        return out
    }

    /// Faces found twice (overlapping tiles) merged: best first, a face overlapping a kept one
    /// by more than `iou` (or lying mostly inside it) is dropped.
    public static func suppress(_ faces: [BlazeFaceDetection], iou threshold: Double) -> [BlazeFaceDetection] {
        var kept: [BlazeFaceDetection] = []
        for f in faces.sorted(by: { $0.score > $1.score }) {
            let a = (Float(f.bounds.x), Float(f.bounds.y), Float(f.bounds.x + f.bounds.width), Float(f.bounds.y + f.bounds.height))
            let overlaps = kept.contains { k in
                let b = (Float(k.bounds.x), Float(k.bounds.y), Float(k.bounds.x + k.bounds.width), Float(k.bounds.y + k.bounds.height))
                let iw = max(0, min(a.2, b.2) - max(a.0, b.0)), ih = max(0, min(a.3, b.3) - max(a.1, b.1))
                let smaller = min((a.2 - a.0) * (a.3 - a.1), (b.2 - b.0) * (b.3 - b.1))
                return iou(a, b) > Float(threshold) || (smaller > 0 && iw * ih / smaller > 0.6)
            }
            if !overlaps { kept.append(f) }
        }
        return kept
    }

    private static func box(_ v: [Float]) -> (Float, Float, Float, Float) {
        (v[0] - v[2] / 2, v[1] - v[3] / 2, v[0] + v[2] / 2, v[1] + v[3] / 2)
    }

    private static func iou(_ a: (Float, Float, Float, Float), _ b: (Float, Float, Float, Float)) -> Float {
        let iw = max(0, min(a.2, b.2) - max(a.0, b.0)), ih = max(0, min(a.3, b.3) - max(a.1, b.1))
        let inter = iw * ih
        let union = (a.2 - a.0) * (a.3 - a.1) + (b.2 - b.0) * (b.3 - b.1) - inter
        return union > 0 ? inter / union : 0
    }
}
