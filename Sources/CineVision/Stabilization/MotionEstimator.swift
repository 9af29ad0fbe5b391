// MotionEstimator: measures the camera's motion between consecutive frames — corners on a
// downscaled grey image, pyramidal Lucas-Kanade tracking, a RANSAC similarity fit — and reports
// it in full-resolution pixels about the frame centre.

import CineMedia

/// Estimates the similarity motion between consecutive frames from their luma.
///
/// Pipeline per frame pair: the luma is area-averaged to ``Configuration-swift.struct/analysisWidth``
/// (320 px by default) and built into a pyramid; Shi-Tomasi corners are picked, one per cell of a
/// grid (at most `gridColumns × gridRows` points); pyramidal Lucas-Kanade follows them into the
/// next frame; RANSAC with a fixed seed fits a ``SimilarityTransform`` that ignores moving objects
/// and lost tracks. Results are deterministic.
///
/// Use ``estimate(from:to:)`` for a single pair, or ``push(_:)`` on a stream: it keeps the previous
/// frame's pyramid so each frame is downscaled once.
///
/// When too few points agree (a flat or black frame, a cut), the motion is reported as
/// ``SimilarityTransform/identity`` and ``lastInlierCount`` says how many agreed.
public struct MotionEstimator: Sendable {
    /// The estimator's settings.
    public struct Configuration: Sendable, Equatable {
        /// Width in pixels of the grey image the analysis runs on (frames narrower are used as is).
        public var analysisWidth: Int = 320
        /// Columns of the corner grid.
        public var gridColumns: Int = 16
        /// Rows of the corner grid.
        public var gridRows: Int = 9
        /// Pyramid levels for tracking (each level doubles the largest trackable motion).
        public var pyramidLevels: Int = 3
        /// Half-size of the Lucas-Kanade window, in analysis pixels (window is `2r + 1` square).
        public var trackingRadius: Int = 4
        /// Gauss-Newton iterations per pyramid level at most.
        public var trackingIterations: Int = 12
        /// RANSAC hypotheses tried.
        public var ransacIterations: Int = 200
        /// Largest reprojection error of an inlier, in analysis pixels.
        public var inlierThreshold: Double = 1.0
        /// Fewest agreeing points to trust a fit.
        public var minimumInliers: Int = 6
        /// RANSAC seed.
        public var seed: UInt64 = 0x57AB_1115

        /// The default settings.
        public init() {}

        /// Throws ``StabilizationError/invalidSetting(field:message:)`` for out-of-range values.
        public func validate() throws {
            func check(_ ok: Bool, _ field: String, _ message: String) throws {
                if !ok { throw StabilizationError.invalidSetting(field: field, message: message) }
            }
            try check(analysisWidth >= 32, "analysisWidth", "is \(analysisWidth); needs at least 32")
            try check(gridColumns >= 1 && gridRows >= 1, "grid", "needs at least 1 × 1 cells")
            try check((1...6).contains(pyramidLevels), "pyramidLevels", "is \(pyramidLevels); use 1 … 6")
            try check((1...15).contains(trackingRadius), "trackingRadius", "is \(trackingRadius); use 1 … 15")
            try check(trackingIterations >= 1, "trackingIterations", "needs at least 1")
            try check(ransacIterations >= 1, "ransacIterations", "needs at least 1")
            try check(inlierThreshold > 0, "inlierThreshold", "must be positive")
            try check(minimumInliers >= 2, "minimumInliers", "needs at least 2")
        }
    }

    /// The settings in use.
    public let configuration: Configuration
    private var previous: StabilizationLumaPyramid?
    private var previousFormat: PixelFormat?
    /// How many tracked points agreed with the last estimated motion.
    public private(set) var lastInlierCount = 0

    /// Creates an estimator; throws if `configuration` is out of range.
    public init(configuration: Configuration = Configuration()) throws {
        try configuration.validate()
        self.configuration = configuration
    }

    /// The motion carrying scene points from `previous` to `current`, in full-resolution pixels
    /// about the frame centre. Both frames must have the same size and a luma plane
    /// (gray8, i420, nv12).
    public func estimate(from previous: Image, to current: Image) throws -> SimilarityTransform {
        try checkPair(previous, current)
        let a = try pyramid(previous), b = try pyramid(current)
        return motion(a, b).transform
    }

    /// Feeds the next frame of a stream; returns the motion from the previous frame, or nil for
    /// the first frame (or the first after ``reset()``).
    public mutating func push(_ frame: Image) throws -> SimilarityTransform? {
        if let prev = previous {
            guard frame.width == prev.frameWidth, frame.height == prev.frameHeight else {
                throw StabilizationError.sizeMismatch(
                    expectedWidth: prev.frameWidth, expectedHeight: prev.frameHeight,
                    width: frame.width, height: frame.height)
            }
            if let f = previousFormat, f != frame.format {
                throw StabilizationError.formatMismatch(expected: f.rawValue, got: frame.format.rawValue)
            }
        }
        let next = try pyramid(frame)
        defer {
            previous = next
            previousFormat = frame.format
        }
        guard let prev = previous else { return nil }
        let result = motion(prev, next)
        lastInlierCount = result.inliers
        return result.transform
    }

    /// Forgets the previous frame (after a cut or a seek).
    public mutating func reset() {
        previous = nil
        previousFormat = nil
        lastInlierCount = 0
    }

    private func checkPair(_ a: Image, _ b: Image) throws {
        for f in [a, b] where f.width <= 0 || f.height <= 0 {
            throw StabilizationError.emptyFrame(width: f.width, height: f.height)
        }
        guard a.width == b.width, a.height == b.height else {
            throw StabilizationError.sizeMismatch(
                expectedWidth: a.width, expectedHeight: a.height, width: b.width, height: b.height)
        }
        guard a.format == b.format else {
            throw StabilizationError.formatMismatch(expected: a.format.rawValue, got: b.format.rawValue)
        }
    }

    private func pyramid(_ image: Image) throws -> StabilizationLumaPyramid {
        try StabilizationLumaPyramid(
            image: image, analysisWidth: configuration.analysisWidth,
            maxLevels: configuration.pyramidLevels)
    }

    /// Corners → tracks → robust fit, converted to full-resolution centred coordinates.
    private func motion(_ a: StabilizationLumaPyramid, _ b: StabilizationLumaPyramid) -> (
        transform: SimilarityTransform, inliers: Int
    ) {
        let c = configuration
        let corners = StabilizationCornerDetector.corners(
            in: a.levels[0], columns: c.gridColumns, rows: c.gridRows,
            margin: c.trackingRadius + 1)
        let tracked = StabilizationFeatureTracker.track(
            corners, from: a, to: b, radius: c.trackingRadius,
            iterations: c.trackingIterations)
        let halfW = Double(a.frameWidth) / 2, halfH = Double(a.frameHeight) / 2
        func full(_ p: SIMD2<Float>) -> SIMD2<Double> {
            SIMD2((Double(p.x) + 0.5) * a.scaleX - halfW, (Double(p.y) + 0.5) * a.scaleY - halfH)
        }
        var from: [SIMD2<Double>] = [], to: [SIMD2<Double>] = []
        from.reserveCapacity(corners.count)
        to.reserveCapacity(corners.count)
        for (i, end) in tracked.enumerated() {
            guard let end else { continue }
            from.append(full(corners[i]))
            to.append(full(end))
        }
        guard
            let fit = StabilizationRobustFit.similarity(
                from: from, to: to, threshold: c.inlierThreshold * a.scaleX,
                iterations: c.ransacIterations, seed: c.seed),
            fit.inliers >= c.minimumInliers
        else {
            return (.identity, 0)
        }
        return fit
    }
}
