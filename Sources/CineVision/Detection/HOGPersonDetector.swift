// HOGPersonDetector: people standing or walking, from about 48 pixels tall, by Dalal and
// Triggs' HOG features and the linear SVM OpenCV publishes for them (its default people
// detector), over an image pyramid.
import CineInference
import CineMedia
import Foundation

/// A person the HOG detector found, in the frame's normalised coordinates.
public struct HOGPerson: Sendable, Hashable {
    /// The person, head to feet: the middle of the detection window (the window has a margin
    /// of a sixth of its height above and below the person, and is about 1.7 times as wide).
    public var bounds: NormalizedRect
    /// The best window's SVM score (above the threshold; 1 is a clear person).
    public var score: Double
}

/// Finds people with a 64 × 128 HOG window and a linear SVM read from a coefficient file
/// (3781 little-endian float32: 3780 weights in OpenCV's descriptor order, then the bias;
/// `scripts/fetch-models.sh` writes OpenCV's default people detector as
/// `hog_people_default.f32`).
///
/// The frame's luma is scanned at scales from the one where a person ``Parameters/smallest``
/// pixels tall fills the window's 96-pixel person down to the whole frame in one window, a
/// step of ``Parameters/scaleStep`` apart, on an 8-pixel grid; windows scoring over the
/// threshold are grouped as OpenCV's `groupRectangles` does.
/// Cost: about 3800 multiply-adds per window (vectorised) and a ``HOGFeatureMap`` per scale —
/// about 45 ms for a 768 × 576 frame with people from 48 px on two cores (`CineBench bodies`).
public final class HOGPersonDetector: Sendable {
    /// Settings of one scan.
    public struct Parameters: Sendable, Hashable {
        /// The smallest person, head to feet, in the frame's pixels.
        public var smallest: Int = 48
        /// Ratio between consecutive scales.
        public var scaleStep: Double = 1.1
        /// SVM score a window needs (OpenCV's hitThreshold).
        public var threshold: Double = 0
        /// Windows a person needs beyond the first (OpenCV's groupThreshold is 2).
        public var minNeighbors: Int = 2
        /// Whether a window is dropped when another window 0.4 to 1 window above or below it, at
        /// the same scale, scores over the threshold too: people stand on the floor, and nobody
        /// stands on a person's head at their own distance, but poles, pillars and door frames
        /// look alike all along their length.
        public var rejectsStacked = true
        /// Windows at least this sure are a person's peak: a group of windows with two runs of
        /// peaks side by side (``peakGap``) is two people, split between them (``splitSideBySide``).
        public var peakScore: Double = 1
        /// How far apart across (in a person's widths) two runs of peaks in one group are two
        /// people. 0 = groups are never split.
        public var peakGap: Double = 0.5
        /// Cores to use.
        public var threads: Int = 1
        /// Creates the defaults (OpenCV's detectMultiScale defaults, people from 48 px).
        public init() {}
    }

    /// Default coefficient file name in `.models/`.
    public static let defaultFile = "hog_people_default.f32"
    /// The window, pixels.
    static let windowWidth = 64, windowHeight = 128
    /// The person's height inside the window, pixels.
    static let personHeight = 96.0
    /// Blocks across and down a window.
    static let windowBlocksWide = 7, windowBlocksHigh = 15

    /// The file the coefficients came from.
    public let file: String
    /// Weights by window block, row by row (block y major), ``HOGFeatureMap/stride`` floats each.
    private let weights: [Float]
    private let bias: Float

    /// Loads `file` (a name in `.models/` or a path). Throws ``InferenceError`` naming the file
    /// when it is missing or is not 3781 float32 values.
    public init(file: String = HOGPersonDetector.defaultFile) throws {
        let path = try ModelFiles.resolve(file)
        self.file = path
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InferenceError(file: path, message: "cannot be read")
        }
        let n = Self.windowBlocksWide * Self.windowBlocksHigh * 36
        guard data.count == (n + 1) * 4 else {
            throw InferenceError(file: path, message: "not a 64×128 HOG people detector: \(data.count) bytes, expected \((n + 1) * 4) (3781 float32)")
        }
        let raw: [Float] = data.withUnsafeBytes { bytes in
            (0...n).map { Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self))) }
        }
        guard raw.allSatisfy(\.isFinite) else { throw InferenceError(file: path, message: "holds values that are not finite") }
        // OpenCV orders a window's blocks x major (block (j, i) at (j·15 + i)·36); the scan reads
        // them y major, padded like the feature map.
        var w = [Float](repeating: 0, count: Self.windowBlocksWide * Self.windowBlocksHigh * HOGFeatureMap.stride)
        for i in 0..<Self.windowBlocksHigh {
            for j in 0..<Self.windowBlocksWide {
                for k in 0..<36 {
                    w[(i * Self.windowBlocksWide + j) * HOGFeatureMap.stride + k] = raw[(j * Self.windowBlocksHigh + i) * 36 + k]
                }
            }
        }
        weights = w
        bias = raw[n]
    }

    /// The people in `image` (I420, NV12 or RGBA: colour, as the coefficients were trained;
    /// gray8: luma alone), best first.
    public func detect(_ image: Image, parameters p: Parameters = Parameters()) -> [HOGPerson] {
        var round = begin(image, parameters: p, parts: 1)
        scan(image, into: &round)
        return finish(round)
    }

    /// A scan shared out over several frames (each scans every `parts`-th scale of its own
    /// frame), so no frame pays for the whole pyramid.
    public struct Round: Sendable {
        let parameters: Parameters
        let parts: Int
        let width: Int, height: Int
        /// The pyramid's scales, largest first.
        let scales: [Double]
        /// Parts scanned so far.
        public internal(set) var done = 0
        var hits: [(rect: CascadeRect, score: Float)] = []
        /// Whether every part has been scanned.
        public var isComplete: Bool { done >= parts }
    }

    /// A round over frames the size of `image`, in `parts` parts (1 ... the number of scales).
    public func begin(_ image: Image, parameters p: Parameters = Parameters(), parts: Int = 1) -> Round {
        var scales: [Double] = []
        var scale = Self.personHeight / Double(max(8, p.smallest))
        while Int((Double(image.width) * scale).rounded()) >= Self.windowWidth
                && Int((Double(image.height) * scale).rounded()) >= Self.windowHeight {
            scales.append(scale)
            scale /= p.scaleStep
        }
        return Round(parameters: p, parts: max(1, min(parts, scales.count)), width: image.width, height: image.height,
                     scales: scales)
    }

    /// Scans the next part of `round` (scales `done`, `done + parts`, …: each part has large and
    /// small ones, so the parts cost about the same) on `image`, a frame of the round's size.
    public func scan(_ image: Image, into round: inout Round) {
        guard !round.isComplete else { return }
        precondition(image.width == round.width && image.height == round.height, "HOG round: the frame changed size")
        let p = round.parameters, width = image.width, height = image.height
        let source = Self.planes(of: image)
        defer { if source.count > 1 { source.forEach { $0.deallocate() } } }
        let sourceStride = source.count > 1 ? width : image.plane(0).stride
        for scale in stride(from: round.done, to: round.scales.count, by: round.parts).map({ round.scales[$0] }) {
            let lw = Int((Double(width) * scale).rounded()), lh = Int((Double(height) * scale).rounded())
            let levels = source.map { plane in
                let level = UnsafeMutablePointer<UInt8>.allocate(capacity: lw * lh)
                CascadeScaler.resize(plane, width: width, height: height, stride: sourceStride,
                                     into: level, width: lw, height: lh, stride: lw)
                return level
            }
            defer { levels.forEach { $0.deallocate() } }
            let map = HOGFeatureMap(levels.map { UnsafePointer($0) }, width: lw, height: lh, stride: lw, threads: p.threads)
            let sx = Double(width) / Double(lw), sy = Double(height) / Double(lh)
            for hit in scan(map, threshold: Float(p.threshold), rejectStacked: p.rejectsStacked, threads: p.threads) {
                round.hits.append((CascadeRect(x: Int((Double(hit.x * 8) * sx).rounded()), y: Int((Double(hit.y * 8) * sy).rounded()),
                                               width: Int((Double(Self.windowWidth) * sx).rounded()),
                                               height: Int((Double(Self.windowHeight) * sy).rounded())), hit.score))
            }
        }
        round.done += 1
    }

    /// The people a complete round found, best first. With `keep`, a window whose person box
    /// it refuses is dropped before the windows are grouped (``StandingHeights/allows(_:)``: a
    /// window over a walker and the sign above them then cannot join the walker's windows to
    /// the sign's).
    public func finish(_ round: Round, keeping keep: ((NormalizedRect) -> Bool)? = nil) -> [HOGPerson] {
        let p = round.parameters, width = round.width, height = round.height
        let hits = keep.map { k in round.hits.filter { k(Self.person(in: $0.rect, width: width, height: height)) } } ?? round.hits
        let rects = hits.map(\.rect)
        let grouped: (rects: [CascadeRect], neighbors: [Int])
        if p.minNeighbors > 0, p.peakGap > 0, !hits.isEmpty {
            var (classOf, classes) = RectangleGrouping.partition(rects)
            Self.splitSideBySide(hits, classOf: &classOf, classes: &classes, peakScore: Float(p.peakScore), gap: p.peakGap)
            grouped = RectangleGrouping.average(rects, classOf: classOf, classes: classes, minNeighbors: p.minNeighbors)
        } else {
            grouped = RectangleGrouping.group(rects, minNeighbors: p.minNeighbors)
        }
        var people: [HOGPerson] = grouped.rects.map { r in
            let best = hits.filter { RectangleGrouping.similar($0.rect, r, eps: 0.2) }.map(\.score).max() ?? Float(p.threshold)
            return HOGPerson(bounds: Self.person(in: r, width: width, height: height), score: Double(best))
        }
        people.sort { $0.score > $1.score }
        return people.filter { p in !people.contains { Self.isPart(p.bounds, of: $0.bounds) } }
    }

    /// Splits each group of windows (`classOf`, `classes`: ``RectangleGrouping/partition(_:eps:)``)
    /// that holds two runs or more of peaks (windows scoring `peakScore` or more, at least two a
    /// run) lying more than `gap` of a person's width apart across: each window goes to the run
    /// whose mean centre is nearest. Two people side by side chain their windows into one group
    /// through the weak windows between them (half on one, half on the other), and the group's
    /// average is a box on neither; each person's sure windows stay on them.
    static func splitSideBySide(_ hits: [(rect: CascadeRect, score: Float)], classOf: inout [Int], classes: inout Int,
                                peakScore: Float, gap: Double) {
        @inline(__always) func centre(_ i: Int) -> Double { Double(hits[i].rect.x) + Double(hits[i].rect.width) / 2 }
        var members = [[Int]](repeating: [], count: classes)
        for (i, c) in classOf.enumerated() { members[c].append(i) }
        for group in members {
            let peaks = group.filter { hits[$0].score >= peakScore }.sorted { centre($0) < centre($1) }
            guard peaks.count >= 4 else { continue }
            var runs: [[Int]] = [[peaks[0]]]
            for (a, b) in zip(peaks, peaks.dropFirst()) {
                let width = personShare * Double(min(hits[a].rect.width, hits[b].rect.width))
                if centre(b) - centre(a) > gap * width { runs.append([b]) } else { runs[runs.count - 1].append(b) }
            }
            let means = runs.filter { $0.count >= 2 }.map { $0.map(centre).reduce(0, +) / Double($0.count) }
            guard means.count >= 2 else { continue }
            // The first run keeps the group's number; the others get new ones.
            for i in group {
                let k = means.indices.min { abs(centre(i) - means[$0]) < abs(centre(i) - means[$1]) } ?? 0
                if k > 0 { classOf[i] = classes + k - 1 }
            }
            classes += means.count - 1
        }
    }

    /// A person's width as a share of their window's (the window's middle 53 %).
    static let personShare = 0.53

    /// The person inside window `r` (pixels of a `width`×`height` frame), normalised: the
    /// window's middle 53 % across, and its height less the margin the window keeps above the
    /// head and below the feet.
    static func person(in r: CascadeRect, width: Int, height: Int) -> NormalizedRect {
        let margin = Double(r.height) * (1 - personHeight / Double(windowHeight)) / 2
        let personWidth = Double(r.width) * personShare
        let x = Double(r.x) + (Double(r.width) - personWidth) / 2
        return NormalizedRect(x: x / Double(width), y: (Double(r.y) + margin) / Double(height),
                              width: personWidth / Double(width), height: (Double(r.height) - 2 * margin) / Double(height))
    }

    /// `image`'s red, green and blue planes (`width` bytes per row; the caller deallocates
    /// them), or its luma plane alone for gray8 (not to be deallocated).
    static func planes(of image: Image) -> [UnsafeMutablePointer<UInt8>] {
        let w = image.width, h = image.height
        guard image.format == .i420 || image.format == .nv12 || image.format == .rgba8 else {
            return [image.plane(0).row(0, as: UInt8.self)]
        }
        let rgb = (0..<3).map { _ in UnsafeMutablePointer<UInt8>.allocate(capacity: w * h) }
        let r = rgb[0], g = rgb[1], b = rgb[2]
        @inline(__always) func clamp(_ v: Int32) -> UInt8 { UInt8(max(0, min(255, v))) }
        for y in 0..<h {
            let o = y * w
            if image.format == .rgba8 {
                let src = image.plane(0).row(y, as: UInt8.self)
                for x in 0..<w { r[o + x] = src[4 * x]; g[o + x] = src[4 * x + 1]; b[o + x] = src[4 * x + 2] }
                continue
            }
            // BT.601 full range in 8.8 fixed point, chroma from the 2 × 2 block above the pixel.
            let luma = image.plane(0).row(y, as: UInt8.self), chroma = image.plane(1).row(y / 2, as: UInt8.self)
            let cr = image.format == .i420 ? image.plane(2).row(y / 2, as: UInt8.self) : chroma
            for x in 0..<w {
                let yy = Int32(luma[x]) << 8
                let u = image.format == .i420 ? Int32(chroma[x / 2]) - 128 : Int32(chroma[(x / 2) * 2]) - 128
                let v = image.format == .i420 ? Int32(cr[x / 2]) - 128 : Int32(chroma[(x / 2) * 2 + 1]) - 128
                r[o + x] = clamp((yy + 359 * v) >> 8)
                g[o + x] = clamp((yy - 88 * u - 183 * v) >> 8)
                b[o + x] = clamp((yy + 454 * u) >> 8)
            }
        }
        return rgb
    }

    /// Whether `box` is likely a part of the person in `body`: a tall person's legs, or the
    /// folds of a near person's clothes, look like a small person. True when 60 % of `box` lies
    /// inside `body` and `body` is more than 1.25 times as tall.
    static func isPart(_ box: NormalizedRect, of body: NormalizedRect) -> Bool {
        body.height > 1.25 * box.height && box.share(inside: body) >= 0.6
    }

    /// The people of `found` that none of `bodies` (another detector's) already holds: those
    /// overlapping no body by 30 % of their union or more, and not part of one (``isPart(_:of:)``).
    public static func unseen(_ found: [HOGPerson], by bodies: [NormalizedRect]) -> [HOGPerson] {
        found.filter { p in !bodies.contains { ObjectTracker.iou($0, p.bounds) >= 0.3 || isPart(p.bounds, of: $0) } }
    }

    /// The windows (top-left block) of `map` scoring over `threshold`.
    private func scan(_ map: borrowing HOGFeatureMap, threshold: Float, rejectStacked: Bool, threads: Int) -> [(x: Int, y: Int, score: Float)] {
        let ww = Self.windowBlocksWide, wh = Self.windowBlocksHigh
        let nx = map.blocksWide - ww + 1, ny = map.blocksHigh - wh + 1
        guard nx > 0 && ny > 0 else { return [] }
        let scores = UnsafeMutablePointer<Float>.allocate(capacity: nx * ny)
        defer { scores.deallocate() }
        let values = map.values, bw = map.blocksWide, bias = bias
        weights.withUnsafeBufferPointer { wp in
            let w = wp.baseAddress!
            RowBands.run(0..<ny, bands: threads) { _, rows in
                for y in rows {
                    for x in 0..<nx {
                        var acc = SIMD8<Float>()
                        for i in 0..<wh {
                            let f = UnsafeRawPointer(values + ((y + i) * bw + x) * HOGFeatureMap.stride)
                            let k = UnsafeRawPointer(w + i * ww * HOGFeatureMap.stride)
                            // 7 blocks × 40 floats = 35 vectors, contiguous in both.
                            for v in 0..<(ww * HOGFeatureMap.stride / 8) {
                                acc += f.loadUnaligned(fromByteOffset: 32 * v, as: SIMD8<Float>.self)
                                    * k.loadUnaligned(fromByteOffset: 32 * v, as: SIMD8<Float>.self)
                            }
                        }
                        scores[y * nx + x] = acc.sum() + bias
                    }
                }
            }
        }
        let stackedOffsets = Array(-16 ... -6) + Array(6...16)
        // Nobody stands on a person's head: at one scale (one distance) a person standing on the
        // floor has no other window from 0.4 to 1 window above or below them that looks like a person,
        // while a pole or a pillar does all along its length.
        @inline(__always) func stacked(_ x: Int, _ y: Int) -> Bool {
            for dy in stackedOffsets where y + dy >= 0 && y + dy < ny {
                for dx in -1...1 where x + dx >= 0 && x + dx < nx && scores[(y + dy) * nx + x + dx] > threshold { return true }
            }
            return false
        }
        var out: [(x: Int, y: Int, score: Float)] = []
        for y in 0..<ny {
            for x in 0..<nx where scores[y * nx + x] > threshold && !(rejectStacked && stacked(x, y)) {
                out.append((x, y, scores[y * nx + x]))
            }
        }
        return out
    }
}
