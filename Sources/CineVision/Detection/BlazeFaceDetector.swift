// BlazeFaceDetector: MediaPipe's face detector run by LiteRT — letterbox, inference, decode and
// weighted suppression — on any frame (I420, NV12, RGBA, gray). One per node: not thread-safe.
import CineInference
import CineMedia
import Foundation
import Synchronization

/// Finds faces with a BlazeFace model file (short or full range, told apart by the input size).
public final class BlazeFaceDetector: @unchecked Sendable {
    /// The model file in use.
    public let file: String
    /// Pre- and post-processing of the model's family member.
    public let blazeFace: BlazeFace
    private let model: InferenceModel
    private let regressorsIndex: Int
    private let scoresIndex: Int

    /// Default model file names in `.models/`.
    public static let shortRangeFile = "face_detection_short_range.tflite"
    public static let fullRangeFile = "face_detection_full_range_sparse.tflite"

    /// Loads `file` (a name in `.models/` or a path). Throws ``InferenceError`` naming the file
    /// when it is missing, LiteRT is not installed, or the model is not a BlazeFace (input
    /// 1×N×N×3 with N 128 or 192; outputs anchors×16 and anchors×1).
    public init(file: String = BlazeFaceDetector.shortRangeFile, threads: Int = 1) throws {
        let path = try ModelFiles.resolve(file)
        self.file = path
        model = try InferenceModel(file: path, threads: threads)
        guard model.inputShapes.count == 1, model.inputShapes[0].count == 4, model.inputShapes[0][3] == 3,
              model.inputShapes[0][1] == model.inputShapes[0][2], model.outputShapes.count == 2
        else {
            throw InferenceError(file: path, message: "not a BlazeFace face detector: inputs \(model.inputShapes), outputs \(model.outputShapes)")
        }
        let size = model.inputShapes[0][1]
        let variant: BlazeFace.Variant
        switch size {
        case 128: variant = .shortRange
        case 192: variant = .fullRange
        default: throw InferenceError(file: path, message: "not a BlazeFace face detector: input \(size)×\(size), expected 128 or 192")
        }
        blazeFace = BlazeFace(variant)
        let n = blazeFace.anchors.count
        guard let r = model.outputShapes.firstIndex(where: { $0.last == 16 && $0.reduce(1, *) == 16 * n }),
              let s = model.outputShapes.firstIndex(where: { $0.last == 1 && $0.reduce(1, *) == n })
        else {
            throw InferenceError(file: path, message: "not a BlazeFace face detector: outputs \(model.outputShapes), expected \(n)×16 and \(n)×1")
        }
        regressorsIndex = r
        scoresIndex = s
    }

    /// The faces in `image`, in its normalised coordinates, best first. With `tiles` > 0 the
    /// frame is cut into overlapping squares `tiles` to its short side (so small faces in a
    /// wide shot are large enough for the model) and the tiles' faces are merged; 0 letterboxes
    /// the whole frame into one input. A face cut by a tile's inner edge is dropped when another
    /// tile holds its box whole (that tile saw the whole face).
    /// Cost: per input, one bilinear sample per input pixel + one inference (≈ 1 ms short range).
    public func detect(_ image: Image, tiles: Int = 0) throws -> [BlazeFaceDetection] {
        guard tiles > 0 else { return try detectWhole(image) }
        let side = (min(image.width, image.height) / tiles) & ~1
        return BlazeFace.suppress(try detectTiles(image, side: side), iou: blazeFace.variant.suppressionIoU)
    }

    /// The faces of every size in a photo, down to about `smallestFace` pixels: the whole image,
    /// then overlapping squares of its short side, and of that divided by √2, 2, 2√2… down to
    /// three times `smallestFace` (a face fills a quarter to a third of some square, where the
    /// model sees it well; squares smaller than the model's input are enlarged), merged. A face
    /// cut by a square's inner edge is dropped when a neighbouring square holds it whole.
    /// With a `partner` (another detector on the same model) the squares are shared between two
    /// threads. Cost: 1 + Σ (squares per level) inferences, growing with the image's area over
    /// `smallestFace`² — ≈ 600 on 1280×720 down to 24 px faces (≈ 1 s on two cores).
    public func detectAtEveryScale(_ image: Image, smallestFace: Int = 24, partner: BlazeFaceDetector? = nil) throws
        -> [BlazeFaceDetection]
    {
        var all = try detectWhole(image)
        let short = Double(min(image.width, image.height))
        let smallest = Double(max(3 * smallestFace, 16))
        var side = short
        while side >= smallest - 0.5 {
            if Int(side) < max(image.width, image.height) { all += try detectTiles(image, side: Int(side) & ~1, partner: partner) }
            side /= 2.0.squareRoot()
        }
        return BlazeFace.suppress(all, iou: blazeFace.variant.suppressionIoU)
    }

    /// Squares of `side` pixels overlapping by at least a fifth, each letterboxed into the model;
    /// faces in the image's normalised coordinates, those cut by a square's inner edge dropped
    /// when a neighbouring square holds them whole. A `partner` takes every other square on a
    /// second thread.
    private func detectTiles(_ image: Image, side: Int, partner: BlazeFaceDetector? = nil) throws -> [BlazeFaceDetection] {
        func starts(_ length: Int) -> [Int] {
            let n = max(1, Int((Double(length) / Double(side) * 1.25).rounded(.up)))
            return n == 1 ? [0] : (0..<n).map { (($0 * (length - side)) / (n - 1)) & ~1 }
        }
        let W = Double(image.width), H = Double(image.height)
        // Each square in pixels (to crop) and normalised (to map its faces back and compare).
        var squares: [TileSquare] = []
        for y in starts(image.height) {
            for x in starts(image.width) {
                let w = min(side, image.width - x), h = min(side, image.height - y)
                squares.append(TileSquare(x: x, y: y, width: w, height: h,
                                          rect: NormalizedRect(x: Double(x) / W, y: Double(y) / H, width: Double(w) / W, height: Double(h) / H)))
            }
        }
        guard let partner, squares.count > 1 else { return try detect(squares, every: 1, from: 0, in: image) }
        let level = squares
        let found = Mutex<[Result<[BlazeFaceDetection], any Error>?]>([nil, nil])
        DispatchQueue.concurrentPerform(iterations: 2) { k in
            let result = Result { try (k == 0 ? self : partner).detect(level, every: 2, from: k, in: image) }
            found.withLock { $0[k] = result }
        }
        let halves = found.withLock { $0 }
        return try halves[0]!.get() + halves[1]!.get()
    }

    /// The faces of squares `from`, `from + every`, … of one level (the level's other squares
    /// decide which cut faces another square holds whole).
    private func detect(_ squares: [TileSquare], every: Int, from first: Int, in image: Image) throws -> [BlazeFaceDetection] {
        var all: [BlazeFaceDetection] = []
        for i in Swift.stride(from: first, to: squares.count, by: every) {
            let square = squares[i]
            let tile = image.cropped(x: square.x, y: square.y, width: square.width, height: square.height)
            let sq = square.rect
            for var f in try detectWhole(tile) {
                let b = f.bounds
                f.bounds = NormalizedRect(x: sq.x + b.x * sq.width, y: sq.y + b.y * sq.height,
                                          width: b.width * sq.width, height: b.height * sq.height)
                f.keypoints = f.keypoints.map { NormalizedPoint(x: sq.x + $0.x * sq.width, y: sq.y + $0.y * sq.height) }
                let cut = Self.cutByInnerEdge(b, square: sq)
                if cut && squares.indices.contains(where: { $0 != i && Self.holds(squares[$0].rect, f.bounds) }) { continue }
                all.append(f)
            }
        }
        return all
    }

    /// Whether `box` (in the square's own coordinates) touches an edge of `square` that lies
    /// inside the image: the face may go on beyond it.
    static func cutByInnerEdge(_ box: NormalizedRect, square sq: NormalizedRect) -> Bool {
        let m = 0.01, e = 1e-9
        return (box.x <= m && sq.x > e) || (box.y <= m && sq.y > e)
            || (box.x + box.width >= 1 - m && sq.x + sq.width < 1 - e)
            || (box.y + box.height >= 1 - m && sq.y + sq.height < 1 - e)
    }

    /// Whether `square` contains `box` (both in the image's coordinates) with a small margin.
    static func holds(_ square: NormalizedRect, _ box: NormalizedRect) -> Bool {
        let mx = square.width * 0.02, my = square.height * 0.02
        return box.x >= square.x + mx && box.y >= square.y + my
            && box.x + box.width <= square.x + square.width - mx && box.y + box.height <= square.y + square.height - my
    }

    private func detectWhole(_ image: Image) throws -> [BlazeFaceDetection] {
        let box = blazeFace.prepareInput(image, into: model.input(0))
        try model.run()
        return blazeFace.decode(regressors: model.output(regressorsIndex), scores: model.output(scoresIndex), letterbox: box)
    }
}

/// One square of a tiling: in pixels (to crop) and normalised (to map its faces back and compare).
private struct TileSquare: Sendable {
    let x: Int, y: Int, width: Int, height: Int
    let rect: NormalizedRect
}
