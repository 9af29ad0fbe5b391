// CascadeDetector: OpenCV's CascadeClassifier::detectMultiScale in Swift — the scale list,
// a bit-exact resized pyramid, integral images, the sliding window with OpenCV's steps and
// early rejection, and groupRectangles; scales spread over the cores.
import CineMedia
import Dispatch

/// Finds objects with a ``CascadeClassifier`` at every scale, with the semantics of OpenCV's
/// `CascadeClassifier::detectMultiScale(image, scaleFactor, minNeighbors, 0, minSize, maxSize)`.
///
/// The same XML with the same parameters gives the same rectangles as OpenCV (up to rare
/// floating-point ties). Scales are processed in parallel; results do not depend on the
/// number of threads.
public struct CascadeDetector: Sendable {
    /// The knobs of `detectMultiScale`.
    public struct Parameters: Sendable, Hashable {
        /// Ratio between successive scales (> 1). OpenCV's default 1.1.
        public var scaleFactor: Double
        /// A group needs more than this many raw windows to count; 0 returns raw windows.
        public var minNeighbors: Int
        /// Smallest object (width, height) in pixels; 0 = no limit.
        public var minWidth: Int
        /// Smallest object height; 0 = no limit.
        public var minHeight: Int
        /// Largest object width in pixels; 0 = the image width.
        public var maxWidth: Int
        /// Largest object height; 0 = the image height.
        public var maxHeight: Int
        /// Threads: 1 runs on the caller's thread; more spreads scales over all cores.
        public var threads: Int

        /// Creates parameters; the defaults are OpenCV's.
        public init(scaleFactor: Double = 1.1, minNeighbors: Int = 3, minWidth: Int = 0, minHeight: Int = 0,
                    maxWidth: Int = 0, maxHeight: Int = 0, threads: Int = 2) {
            self.scaleFactor = scaleFactor
            self.minNeighbors = minNeighbors
            self.minWidth = minWidth
            self.minHeight = minHeight
            self.maxWidth = maxWidth
            self.maxHeight = maxHeight
            self.threads = threads
        }
    }

    /// The cascade this detector runs.
    public let classifier: CascadeClassifier

    /// The model's arrays pinned for the inner loop.
    let buffers: CascadeModelBuffers

    /// Creates a detector for `classifier`.
    public init(_ classifier: CascadeClassifier) {
        self.classifier = classifier
        buffers = CascadeModelBuffers(classifier)
    }

    /// Detects objects in the luma plane of `image` (gray8, I420 or NV12).
    /// - Throws: ``CascadeError`` for other formats or bad parameters.
    public func detect(in image: Image, parameters: Parameters = Parameters()) throws -> [CascadeRect] {
        let p = try lumaPlane(image)
        return try detect(pixels: UnsafePointer(p.base.assumingMemoryBound(to: UInt8.self)), width: p.width,
                          height: p.height, rowStride: p.stride, parameters: parameters)
    }

    /// Detects objects in an 8-bit plane given by its first row, size and stride (bytes per row).
    public func detect(pixels: UnsafePointer<UInt8>, width: Int, height: Int, rowStride: Int,
                       parameters: Parameters = Parameters()) throws -> [CascadeRect] {
        let raw = try candidates(pixels: pixels, width: width, height: height, rowStride: rowStride, parameters: parameters)
        return RectangleGrouping.group(raw, minNeighbors: parameters.minNeighbors, eps: 0.2).rects
    }

    /// The raw windows accepted by the cascade at every scale, before grouping, in scale order.
    ///
    /// With `parts` > 1 only the scales whose index is `part` modulo `parts` are scanned: the
    /// parts of one detection together are the whole scan (interleaved, so they cost about the
    /// same), which spreads a whole-frame scan over several frames.
    public func candidates(pixels: UnsafePointer<UInt8>, width: Int, height: Int, rowStride: Int,
                           parameters: Parameters, part: Int = 0, of parts: Int = 1) throws -> [CascadeRect] {
        guard width > 0, height > 0 else {
            throw CascadeError(file: classifier.source, "cannot detect in an image of size \(width)x\(height)")
        }
        guard parameters.scaleFactor > 1, parameters.scaleFactor.isFinite else {
            throw CascadeError(file: classifier.source, "scaleFactor must be > 1, got \(parameters.scaleFactor)")
        }
        guard parameters.minNeighbors >= 0 else {
            throw CascadeError(file: classifier.source, "minNeighbors must be ≥ 0, got \(parameters.minNeighbors)")
        }
        let all = scaleList(width: width, height: height, parameters: parameters)
        let scales = parts <= 1 ? all : all.indices.filter { $0 % parts == part }.map { all[$0] }
        if scales.isEmpty { return [] }
        let slots = ScaleResults(count: scales.count)
        let source = SendablePixels(pointer: pixels)
        let work: @Sendable (Int) -> Void = { i in
            slots.store(i, self.scan(source.pointer, width: width, height: height, rowStride: rowStride, scale: scales[i]))
        }
        if parameters.threads <= 1 || scales.count == 1 {
            for i in 0..<scales.count { work(i) }
        } else {
            DispatchQueue.concurrentPerform(iterations: scales.count, execute: work)
        }
        return slots.joined()
    }

    /// OpenCV's scale list: factor 1, ×scaleFactor while the window fits the image and maxSize,
    /// skipping windows under minSize. Stored as Float, as OpenCV does.
    public func scaleList(width: Int, height: Int, parameters: Parameters) -> [Float] {
        let maxW = parameters.maxWidth > 0 ? parameters.maxWidth : width
        let maxH = parameters.maxHeight > 0 ? parameters.maxHeight : height
        var scales: [Float] = []
        var factor = 1.0
        while scales.count < 4096 {
            let ww = Int((Double(classifier.windowWidth) * factor).rounded(.toNearestOrEven))
            let wh = Int((Double(classifier.windowHeight) * factor).rounded(.toNearestOrEven))
            if ww > maxW || wh > maxH || ww > width || wh > height { break }
            if ww >= parameters.minWidth && wh >= parameters.minHeight { scales.append(Float(factor)) }
            factor *= parameters.scaleFactor
        }
        return scales
    }

    /// The luma plane of an image, or an error naming the format.
    func lumaPlane(_ image: Image) throws -> Plane {
        switch image.format {
        case .gray8, .i420, .nv12: return image.plane(0)
        default:
            throw CascadeError(file: classifier.source, "the detector needs gray8, I420 or NV12 images, got \(image.format)")
        }
    }

    /// One pyramid level: resize, integral images, sliding window.
    func scan(_ src: UnsafePointer<UInt8>, width: Int, height: Int, rowStride: Int, scale: Float) -> [CascadeRect] {
        let c = classifier
        let sw = Int((Float(width) / scale).rounded(.toNearestOrEven))
        let sh = Int((Float(height) / scale).rounded(.toNearestOrEven))
        let xEnd = sw + 1 - c.windowWidth, yEnd = sh + 1 - c.windowHeight
        guard sw > 0, sh > 0, xEnd > 0, yEnd > 0 else { return [] }
        let level: UnsafePointer<UInt8>
        let levelStride: Int
        var owned: UnsafeMutablePointer<UInt8>?
        if sw == width && sh == height {
            level = src
            levelStride = rowStride
        } else {
            let buf = UnsafeMutablePointer<UInt8>.allocate(capacity: sw * sh)
            CascadeScaler.resize(src, width: width, height: height, stride: rowStride, into: buf, width: sw, height: sh, stride: sw)
            owned = buf
            level = UnsafePointer(buf)
            levelStride = sw
        }
        defer { owned?.deallocate() }
        let integral = IntegralImage(pixels: level, width: sw, height: sh, rowStride: levelStride,
                                     squares: c.featureKind == .haar, tilted: c.hasTiltedFeatures)
        let step = scale >= 2 ? 1 : 2
        let outW = Int((Float(c.windowWidth) * scale).rounded(.toNearestOrEven))
        let outH = Int((Float(c.windowHeight) * scale).rounded(.toNearestOrEven))
        var found: [CascadeRect] = []
        /// Records the window at (x, y), clipped to the image as OpenCV does (a window can round
        /// past the border).
        func accept(_ x: Int, _ y: Int) {
            let rx = Int((Float(x) * scale).rounded(.toNearestOrEven))
            let ry = Int((Float(y) * scale).rounded(.toNearestOrEven))
            found.append(CascadeRect(x: rx, y: ry, width: min(outW, width - rx), height: min(outH, height - ry)))
        }
        let evaluator = CascadeWindowEvaluator(classifier: c, model: buffers, integral: integral)
        defer { evaluator.release() }
        // LBP stump cascades: the first stages for 8 positions at once, then OpenCV's walk over
        // them (a position rejected by stage 0 skips the next one), the later stages one by one.
        let vectorEnd = evaluator.hasVectorStages ? xEnd : 0
        let stages = c.stageCount
        for y in Swift.stride(from: 0, to: yEnd, by: step) {
            var x = 0
            while x < vectorEnd {
                // Stages 8 windows at a time while at least 3 of them are still in.
                let first = evaluator.stage8(0, x: x, y: y, step: step)
                var passed = first, next = 1
                while next < stages && passed.nonzeroBitCount >= 3 {
                    passed &= evaluator.stage8(next, x: x, y: y, step: step)
                    next += 1
                }
                var i = 0
                while i < 8 && x + i * step < xEnd {
                    let bit: UInt8 = 1 << UInt8(i)
                    guard first & bit != 0 else {
                        i += 2  // rejected by stage 0: the next position is skipped
                        continue
                    }
                    let px = x + i * step
                    if passed & bit != 0 && (next == stages || evaluator.run(x: px, y: y, fromStage: next) > 0) {
                        accept(px, y)
                    }
                    i += 1
                }
                x += i * step
            }
            while x < xEnd {
                let r = evaluator.run(x: x, y: y)
                if r > 0 { accept(x, y) }
                x += r == 0 ? 2 * step : step
            }
        }
        return found
    }
}

/// A read-only pixel pointer handed to worker threads (the caller keeps the pixels alive).
private struct SendablePixels: @unchecked Sendable {
    let pointer: UnsafePointer<UInt8>
}

/// One slot per scale, written by exactly one worker each.
private final class ScaleResults: @unchecked Sendable {
    private let slots: UnsafeMutableBufferPointer<[CascadeRect]>
    init(count: Int) {
        slots = .allocate(capacity: count)
        slots.initialize(repeating: [])
    }
    deinit {
        slots.baseAddress!.deinitialize(count: slots.count)
        slots.deallocate()
    }
    func store(_ i: Int, _ rects: [CascadeRect]) { slots[i] = rects }
    func joined() -> [CascadeRect] { Array(slots.joined()) }
}
