// StereoMatcherConfiguration: every setting of the census + semi-global stereo matcher, with
// the defaults chosen for live 1080p30 and a check that names the first bad field.

extension StereoMatcher {
    /// Which aggregation paths reach each pixel. Both are computed in one pass over the rows, so
    /// only one row of the cost volume lives in memory at a time (see ``StereoMatcher``).
    public enum Paths: Int, Sendable, CaseIterable {
        /// Left→right, right→left and the vertical path (like OpenCV's `MODE_SGBM_3WAY`).
        case three = 3
        /// The three above plus the two diagonals (like OpenCV's `MODE_SGBM`).
        case five = 5
    }

    /// How the map at processing resolution becomes the output map.
    public enum Upsampling: String, Sendable, CaseIterable {
        /// Keep the processing resolution (consumers sample it; values are still full-resolution pixels).
        case none
        /// Bilinear interpolation to the output size.
        case bilinear
        /// Joint bilateral upsampling guided by the full-resolution reference luma: depth edges
        /// snap to image edges.
        case edgeAware = "edge-aware"
    }

    /// Settings of a ``StereoMatcher``.
    public struct Configuration: Sendable, Equatable {
        /// Processing scale: the views are box-filtered down to `scale` × their size before
        /// matching (0.25 turns 1920×1080 into 480×270).
        public var scale: Double
        /// The largest disparity searched, in pixels of the full-resolution views. At processing
        /// resolution it becomes `ceil(maxDisparity × scale)` rounded up to a multiple of 32.
        public var maxDisparity: Int
        /// Aggregation paths.
        public var paths: Paths
        /// Penalty for a disparity change of one processing pixel between neighbours (census
        /// cost units: one differing bit of a 9×7 census costs 1).
        public var p1: Int
        /// Penalty for a larger disparity jump; must exceed `p1` and be at most 192 (path costs
        /// are bytes: a census cost of up to 62 plus P2 must stay below 255). It is divided by
        /// `1 + |ΔI| / 8` along each path, so jumps are cheaper across image edges.
        public var p2: Int
        /// Equiangular (V) fit on the aggregated costs around the winner for sub-pixel disparities.
        public var subpixel: Bool
        /// Left-right consistency: a pixel whose right-view match points back more than one
        /// processing pixel away is invalid (occlusions, mismatches).
        public var leftRightCheck: Bool
        /// Uniqueness margin in percent: a pixel is invalid when another disparity (not a
        /// neighbour of the best) costs less than `best × (1 + uniqueness/100)`. 0 disables.
        public var uniqueness: Int
        /// Connected regions of valid pixels smaller than this many processing pixels (with
        /// disparity steps ≤ 1 inside) are removed as speckles. 0 disables.
        public var speckleSize: Int
        /// Fill invalid pixels with the farther (smaller) of the nearest valid disparities on
        /// their row — occluded pixels belong to the background. Filled pixels get confidence 0.
        public var fillHoles: Bool
        /// How the output map is produced from the processing-resolution map.
        public var upsampling: Upsampling
        /// Output size when `upsampling` is not `.none`; `nil` means the reference view's size.
        public var outputWidth: Int?
        /// Output height; see ``outputWidth``.
        public var outputHeight: Int?
        /// Temporal smoothing for video, 0 … 0.95: the weight of the previous map where the
        /// image and the disparity barely changed. Pixels that moved take the new value at once
        /// (no lag on motion). 0 disables.
        public var temporalSmoothing: Double
        /// Worker threads for the kernels (1 or 2 on this class of machine).
        public var threads: Int

        /// The live defaults: a 1920×1080 pair matched at 480×270 over 64 processing disparities
        /// (256 full-resolution pixels), 5 paths, sub-pixel, LR check, holes filled, the map
        /// kept at processing resolution.
        public init(
            scale: Double = 0.25, maxDisparity: Int = 256, paths: Paths = .five, p1: Int = 10, p2: Int = 120,
            subpixel: Bool = true, leftRightCheck: Bool = true, uniqueness: Int = 5, speckleSize: Int = 40,
            fillHoles: Bool = true, upsampling: Upsampling = .none, outputWidth: Int? = nil,
            outputHeight: Int? = nil, temporalSmoothing: Double = 0, threads: Int = 2
        ) {
            self.scale = scale
            self.maxDisparity = maxDisparity
            self.paths = paths
            self.p1 = p1
            self.p2 = p2
            self.subpixel = subpixel
            self.leftRightCheck = leftRightCheck
            self.uniqueness = uniqueness
            self.speckleSize = speckleSize
            self.fillHoles = fillHoles
            self.upsampling = upsampling
            self.outputWidth = outputWidth
            self.outputHeight = outputHeight
            self.temporalSmoothing = temporalSmoothing
            self.threads = threads
        }

        /// Checks the values that do not depend on the image size; throws the first bad one.
        public func validate() throws(StereoMatchError) {
            func check(_ ok: Bool, _ field: String, _ message: String) throws(StereoMatchError) {
                if !ok { throw .invalidSetting(field: field, message: message) }
            }
            try check(scale.isFinite && scale >= 0.05 && scale <= 1, "scale", "must be in 0.05 ... 1, got \(scale)")
            try check(maxDisparity >= 1, "max-disparity", "must be at least 1, got \(maxDisparity)")
            let largest = SemiGlobalAggregator.largestP2
            try check(p1 >= 0 && p1 < largest, "p1", "must be in 0 ... \(largest - 1), got \(p1)")
            try check(
                p2 > p1 && p2 <= largest, "p2", "must be greater than p1 (\(p1)) and at most \(largest), got \(p2)")
            try check(
                uniqueness >= 0 && uniqueness <= 100, "uniqueness", "must be 0 ... 100 percent, got \(uniqueness)")
            try check(speckleSize >= 0, "speckle-size", "must not be negative, got \(speckleSize)")
            try check(
                temporalSmoothing >= 0 && temporalSmoothing <= 0.95, "temporal",
                "must be in 0 ... 0.95, got \(temporalSmoothing)")
            try check(threads >= 1 && threads <= 64, "threads", "must be 1 ... 64, got \(threads)")
            if let w = outputWidth { try check(w >= 1, "output-width", "must be positive, got \(w)") }
            if let h = outputHeight { try check(h >= 1, "output-height", "must be positive, got \(h)") }
        }
    }
}
