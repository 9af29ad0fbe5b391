// StereoMatcher: disparity from a rectified stereo pair — downscale, 9×7 census, semi-global
// matching (row-wise, SIMD across disparities, two bands on two cores), LR check, uniqueness,
// sub-pixel, speckle removal, hole filling, optional temporal smoothing and edge-aware upsampling.
import CineMedia
import Dispatch

/// A census + semi-global stereo matcher for rectified pairs, with the scratch memory it
/// reuses from frame to frame.
///
/// **Pipeline.** Both views' luma is area-averaged to the processing resolution
/// (`scale` × size), census-transformed (9×7, 62 bits), and matched with semi-global
/// aggregation over 3 or 5 paths. Costs are Hamming distances of census signatures; path
/// costs live in `UInt16` lanes, 16 disparities per AVX2 register.
///
/// **Memory.** The image is split into two bands: the top band is swept downwards and the
/// bottom band upwards, so every pixel gets a full vertical path from its image border while
/// each band needs only one row of the cost volume and the previous row's path states
/// (≈ 0.5 MB at 480×270×64) — never a W×H×D volume. The bands run on two cores.
///
/// **Output.** A ``DisparityMap`` whose values are in pixels of the full-resolution left view
/// (a left pixel at x matches the right view at `x − d`), invalid samples `+inf` (only when
/// hole filling is off), and a confidence plane (0 = invalid or filled, 1 … 255 = the
/// runner-up cost margin). The map is at processing resolution, or upsampled (bilinear or
/// edge-aware) to the output size.
///
/// A matcher is not thread-safe: use one per stream (a node owns one).
public final class StereoMatcher {
    /// The settings this matcher uses.
    public let configuration: Configuration

    private var geometry: Geometry?
    private var buffers: Buffers?
    private var hasHistory = false

    /// Sizes derived from the input size and the configuration.
    public struct Geometry: Sendable, Equatable {
        /// Input (reference) size.
        public var width: Int
        /// Input height.
        public var height: Int
        /// Processing width.
        public var processingWidth: Int
        /// Processing height.
        public var processingHeight: Int
        /// Disparities searched at processing resolution (a multiple of 32).
        public var disparities: Int
        /// Full-resolution pixels per processing pixel, horizontally (what disparities are multiplied by).
        public var disparityScale: Float { Float(width) / Float(processingWidth) }
    }

    /// Creates a matcher; throws if a setting is out of range.
    public init(_ configuration: Configuration = Configuration()) throws(StereoMatchError) {
        try configuration.validate()
        self.configuration = configuration
    }

    /// The processing geometry for views of `width` × `height`, or the reason they cannot be matched.
    public func geometry(width: Int, height: Int) throws(StereoMatchError) -> Geometry {
        let c = configuration
        if c.maxDisparity >= width { throw .maxDisparityTooLarge(maxDisparity: c.maxDisparity, width: width) }
        let pw = Int((Double(width) * c.scale).rounded()), ph = Int((Double(height) * c.scale).rounded())
        if pw < 16 || ph < 8 { throw .imageTooSmall(width: pw, height: ph) }
        let raw = (Double(c.maxDisparity) * Double(pw) / Double(width)).rounded(.up)
        let d = max(32, (Int(raw) + 31) / 32 * 32)
        if d > 256 {
            throw .invalidSetting(
                field: "max-disparity",
                message: "\(c.maxDisparity) is \(Int(raw)) disparities at processing resolution \(pw)x\(ph); "
                    + "at most 256 are supported — lower scale or max-disparity")
        }
        return Geometry(width: width, height: height, processingWidth: pw, processingHeight: ph, disparities: d)
    }

    /// Forgets the previous frame (temporal smoothing starts afresh), e.g. after a cut.
    public func reset() { hasHistory = false }

    /// Matches a stereo frame. See ``match(left:right:pool:)``.
    public func match(_ frame: StereoFrame, pool: ImagePool? = nil) throws(StereoMatchError) -> DisparityMap {
        try match(left: frame.left, right: frame.right, pool: pool)
    }

    /// Matches a rectified pair (`gray8`, `i420` or `nv12`; luma is used) and returns the left
    /// view's disparity map, with images from `pool` when given.
    ///
    /// - Throws: ``StereoMatchError`` for views of different sizes or formats, a format without
    ///   luma, or a disparity range that does not fit.
    public func match(left: Image, right: Image, pool: ImagePool? = nil) throws(StereoMatchError) -> DisparityMap {
        guard left.width == right.width && left.height == right.height else {
            throw .sizeMismatch(
                leftWidth: left.width, leftHeight: left.height, rightWidth: right.width,
                rightHeight: right.height)
        }
        guard left.format == right.format else {
            throw .formatMismatch(left: "\(left.format)", right: "\(right.format)")
        }
        guard [.gray8, .i420, .nv12].contains(left.format) else { throw .unsupportedFormat("\(left.format)") }
        let g = try geometry(width: left.width, height: left.height)
        if g != geometry {
            geometry = g
            buffers = Buffers(g)
            hasHistory = false
        }
        let b = buffers!
        let c = configuration
        let threads = c.threads
        let pw = g.processingWidth, ph = g.processingHeight
        let leftLuma = left.plane(0), rightLuma = right.plane(0)

        // 1. Downscale both views' luma, 2. census — two jobs each (one per view).
        run(2, threads) { view in
            AreaDownscaler.downscale(
                view == 0 ? leftLuma : rightLuma, rows: 0..<ph, width: pw, height: ph,
                into: view == 0 ? b.leftLuma : b.rightLuma, stride: pw,
                accumulator: view == 0 ? b.accumulatorL : b.accumulatorR)
            CensusTransform.transform(
                view == 0 ? b.leftLuma : b.rightLuma, width: pw, height: ph, rows: 0..<ph,
                into: view == 0 ? b.leftCensus : b.rightCensus)
        }

        // 3. Semi-global matching: top band downwards, bottom band upwards.
        let aggregator = SemiGlobalAggregator(
            width: pw, height: ph, disparities: g.disparities, p1: c.p1, p2Table: b.p2Table(c),
            diagonals: c.paths == .five, subpixel: c.subpixel, leftRightCheck: c.leftRightCheck,
            uniqueness: c.uniqueness)
        let mid = ph / 2
        run(2, threads) { band in
            aggregator.run(
                rows: band == 0 ? stride(from: 0, to: mid, by: 1) : stride(from: ph - 1, to: mid - 1, by: -1),
                left: b.leftCensus, right: b.rightCensus, luma: b.leftLuma, workspace: b.workspaces[band],
                disparity: b.disparity, confidence: b.confidence)
        }

        // 4. Clean-up at processing resolution.
        if c.speckleSize > 0 {
            b.speckles.apply(b.disparity, confidence: b.confidence, maxSize: c.speckleSize, range: 1)
        }
        if c.fillHoles {
            run(2, threads) { band in
                DisparityRefinement.fillHoles(b.disparity, width: pw, rows: (band * ph / 2)..<((band + 1) * ph / 2))
            }
            DisparityRefinement.fillEmptyRows(b.disparity, width: pw, height: ph)
        }
        if c.temporalSmoothing > 0 {
            if hasHistory {
                DisparityRefinement.smooth(
                    b.disparity, luma: b.leftLuma, previous: b.history, previousLuma: b.historyLuma, count: pw * ph,
                    strength: Float(c.temporalSmoothing))
            } else {
                b.history.update(from: b.disparity, count: pw * ph)
                b.historyLuma.update(from: b.leftLuma, count: pw * ph)
                hasHistory = true
            }
        }

        // 5. Output in full-resolution pixels: at processing resolution, or upsampled.
        let scale = g.disparityScale
        if c.upsampling == .none {
            let values =
                pool?.makeImage(width: pw, height: ph, format: .float32)
                ?? Image(width: pw, height: ph, format: .float32)
            let conf =
                pool?.makeImage(width: pw, height: ph, format: .gray8) ?? Image(width: pw, height: ph, format: .gray8)
            let vp = values.plane(0), cp = conf.plane(0)
            for y in 0..<ph {
                let src = b.disparity + y * pw, dst = vp.row(y, as: Float.self)
                for x in 0..<pw { dst[x] = src[x] >= 0 ? src[x] * scale : .infinity }
                cp.row(y).copyMemory(from: b.confidence + y * pw, byteCount: pw)
            }
            return DisparityMap(values: values, confidence: conf, referenceWidth: g.width, referenceHeight: g.height)
        }
        for i in 0..<(pw * ph) { b.scaled[i] = b.disparity[i] >= 0 ? b.disparity[i] * scale : .infinity }
        let ow = c.outputWidth ?? g.width, oh = c.outputHeight ?? g.height
        let values =
            pool?.makeImage(width: ow, height: oh, format: .float32) ?? Image(width: ow, height: oh, format: .float32)
        let conf =
            pool?.makeImage(width: ow, height: oh, format: .gray8) ?? Image(width: ow, height: oh, format: .gray8)
        let edgeAware = c.upsampling == .edgeAware
        DisparityUpsampler.upsample(
            b.scaled, width: pw, height: ph, lowGuide: edgeAware ? UnsafePointer(b.leftLuma) : nil,
            guide: edgeAware ? leftLuma : nil, into: values.plane(0), confidenceLow: b.confidence,
            confidenceOut: conf.plane(0), threads: threads)
        return DisparityMap(values: values, confidence: conf, referenceWidth: g.width, referenceHeight: g.height)
    }

    /// Runs `jobs` jobs on up to `threads` cores.
    private func run(_ jobs: Int, _ threads: Int, _ body: @Sendable (Int) -> Void) {
        if threads <= 1 {
            for j in 0..<jobs { body(j) }
        } else {
            DispatchQueue.concurrentPerform(iterations: jobs, execute: body)
        }
    }
}

extension StereoMatcher {
    /// Every per-size buffer of a matcher, allocated when the input size changes.
    final class Buffers: @unchecked Sendable {
        let leftLuma, rightLuma, historyLuma: UnsafeMutablePointer<UInt8>
        let leftCensus, rightCensus: UnsafeMutablePointer<UInt64>
        let accumulatorL, accumulatorR: UnsafeMutablePointer<UInt32>
        let disparity, scaled, history: UnsafeMutablePointer<Float>
        let confidence: UnsafeMutablePointer<UInt8>
        let speckles: SpeckleFilter
        let workspaces: [SemiGlobalWorkspace]
        private var table: (p1: Int, p2: Int, values: [UInt8])?

        init(_ g: Geometry) {
            let n = g.processingWidth * g.processingHeight
            leftLuma = .allocate(capacity: n)
            rightLuma = .allocate(capacity: n)
            historyLuma = .allocate(capacity: n)
            leftCensus = .allocate(capacity: n)
            rightCensus = .allocate(capacity: n)
            accumulatorL = .allocate(capacity: g.width)
            accumulatorR = .allocate(capacity: g.width)
            disparity = .allocate(capacity: n)
            scaled = .allocate(capacity: n)
            history = .allocate(capacity: n)
            confidence = .allocate(capacity: n)
            speckles = SpeckleFilter(width: g.processingWidth, height: g.processingHeight)
            workspaces = (0..<2).map { _ in SemiGlobalWorkspace(width: g.processingWidth, disparities: g.disparities) }
        }

        deinit {
            for p in [leftLuma, rightLuma, historyLuma, confidence] { p.deallocate() }
            leftCensus.deallocate()
            rightCensus.deallocate()
            accumulatorL.deallocate()
            accumulatorR.deallocate()
            disparity.deallocate()
            scaled.deallocate()
            history.deallocate()
        }

        /// The P2 penalty by intensity step |ΔI|: `p2 · 8 / (8 + |ΔI|)`, at least `p1 + 1`.
        func p2Table(_ c: Configuration) -> [UInt8] {
            if let t = table, t.p1 == c.p1, t.p2 == c.p2 { return t.values }
            let values = (0..<256).map { i in UInt8(max(c.p1 + 1, c.p2 * 8 / (8 + i))) }
            table = (c.p1, c.p2, values)
            return values
        }
    }
}
