// StereoEdgeRefiner: a coarse disparity map brought to the frame's resolution with its depth
// edges redrawn where the two full-resolution views say they are — each pixel near a depth step
// takes the nearer or the farther side by which of the two matches its own neighbourhood.
import CineMedia

/// Brings a coarse disparity map to the stereo pair's resolution, drawing its depth edges from
/// the pair itself.
///
/// A map matched at a quarter of the frame's size cannot place an outline closer than its
/// grid: a person's edge is off by up to four pixels, and a render blurs the background
/// against the sharp subject there (or the reverse). Near a depth step, though, there are only
/// two candidates for a pixel's disparity — the near side's and the far side's — and the
/// full-resolution views can tell them apart:
/// 1. At the map's resolution, each sample whose `(2·reach+1)²` neighbourhood splits into two
///    clusters with a gap of at least ``Settings/minimumStep`` (an edge, not a slope) gets the two
///    clusters' means `near` and `far`; every other sample is smooth.
/// 2. Each full-resolution pixel of a sample with an edge is matched under both: the mean absolute
///    luma difference over a `(2·window+1)²` block between the left view and the right view
///    shifted by `near`, and by `far`.
/// 3. Along each row, a two-state Viterbi pass chooses near or far for each pixel: the matching
///    costs, a penalty per change (``Settings/changePenalty``), and a pixel that matches neither
///    (cost above ``Settings/occludedCost``) counts as background the nearer side hides from the
///    right camera — in the left view the only pixels without a match.
/// 4. Smooth pixels take the map bilinearly upsampled.
///
/// ```swift
/// var edges = StereoEdgeRefiner()
/// let sharp = edges.refine(map, left: leftFrame, right: rightFrame)   // the frame's size
/// ```
/// The views must be rectified and of the map's reference size (the stereo frame the map was
/// matched from). The returned map is a new image each call. Use one refiner from one thread;
/// it spreads its rows over ``Settings/threads`` cores.
public struct StereoEdgeRefiner: Sendable {
    /// The knobs of the refiner.
    public struct Settings: Sendable, Hashable {
        /// Map samples on each side of a sample searched for the two sides of a depth edge.
        public var reach = 2
        /// The smallest gap (full-resolution pixels of disparity) between the two sides that
        /// counts as a depth edge.
        public var minimumStep: Float = 2
        /// Radius of the block matched at full resolution (2 = 5×5).
        public var window = 2
        /// Cost (mean absolute luma difference) from which a pixel matches neither side: it is
        /// taken as background hidden from the right camera.
        public var occludedCost: Float = 12
        /// Cost of changing side between neighbouring pixels of a row.
        public var changePenalty: Float = 6
        /// Cost added to the side the coarse map leans away from (by its bilinear value between
        /// the two sides): decides where the views cannot (flat on both sides).
        public var prior: Float = 4
        /// Cores to use.
        public var threads = 2
        /// The default settings.
        public init() {}
    }

    /// The settings of the next call.
    public var settings: Settings
    private var filled: [Float] = [], near: [Float] = [], far: [Float] = []

    /// Creates a refiner.
    public init(settings: Settings = Settings()) { self.settings = settings }

    /// `map` at the size of `left` and `right` (luma planes of rectified views, `gray8`, I420 or
    /// NV12, the map's reference size), its depth edges chosen pixel by pixel from the views.
    /// A map without a finite sample is returned as it is. Non-finite samples are filled from
    /// their row's farther neighbour first, so the result holds no infinity or NaN.
    ///
    /// Cost: two passes at the map's size; per full-resolution pixel a bilinear tap, and near a
    /// depth edge two block matches (2 × 25 absolute differences) and a Viterbi step.
    public mutating func refine(_ map: DisparityMap, left: Image, right: Image) -> DisparityMap {
        precondition(map.values.format == .float32, "a disparity map is float32")
        precondition(left.width == right.width && left.height == right.height, "the two views have one size")
        let plane = map.values.plane(0), mw = plane.width, mh = plane.height
        let W = left.width, H = left.height
        if filled.count != mw * mh { filled = [Float](repeating: 0, count: mw * mh); near = filled; far = filled }
        let valid = filled.withUnsafeMutableBufferPointer { DisparityHoles.fill(plane, into: $0.baseAddress!) }
        guard valid, W > 0, H > 0 else { return map }
        // Disparity values are in pixels of the reference view; the views may be another size.
        let unit = Float(W) / Float(map.referenceWidth)
        sides(mw, mh)
        let out = Image(width: W, height: H, format: .float32)
        let s = settings, r = max(0, s.window)
        let lumaL = left.plane(0), lumaR = right.plane(0)
        let sx = Float(mw) / Float(W), sy = Float(mh) / Float(H)
        filled.withUnsafeBufferPointer { F in
        near.withUnsafeBufferPointer { N in
        far.withUnsafeBufferPointer { Fa in
            let F = F.baseAddress!, N = N.baseAddress!, Fa = Fa.baseAddress!
            RowBands.run(0..<H, bands: max(1, s.threads)) { _, rows in
                var costN = [Float](repeating: 0, count: W), costF = [Float](repeating: 0, count: W)
                var from = [UInt8](repeating: 0, count: 2 * W)
                for y in rows {
                    let v = min(max(0, (Float(y) + 0.5) * sy - 0.5), Float(mh - 1))
                    let j0 = Int(v), j1 = min(j0 + 1, mh - 1), fy = v - Float(j0)
                    let jn = min(Int((Float(y) + 0.5) * sy), mh - 1)
                    let dst = out.plane(0).row(y, as: Float.self)
                    // Smooth: bilinear.
                    for x in 0..<W {
                        let u = min(max(0, (Float(x) + 0.5) * sx - 0.5), Float(mw - 1))
                        let i0 = Int(u), i1 = min(i0 + 1, mw - 1), fx = u - Float(i0)
                        let top = F[j0 * mw + i0] + fx * (F[j0 * mw + i1] - F[j0 * mw + i0])
                        let bottom = F[j1 * mw + i0] + fx * (F[j1 * mw + i1] - F[j1 * mw + i0])
                        dst[x] = top + fy * (bottom - top)
                    }
                    // Edge pixels: runs of pixels whose nearest sample has two sides.
                    var x = 0
                    while x < W {
                        let i = min(Int((Float(x) + 0.5) * sx), mw - 1)
                        guard N[jn * mw + i] > Fa[jn * mw + i] else { x += 1; continue }
                        var end = x
                        while end < W, N[jn * mw + min(Int((Float(end) + 0.5) * sx), mw - 1)] > Fa[jn * mw + min(Int((Float(end) + 0.5) * sx), mw - 1)] { end += 1 }
                        for p in x..<end {
                            let k = jn * mw + min(Int((Float(p) + 0.5) * sx), mw - 1)
                            // Where the views cannot tell (flat on both sides), the coarse map's own leaning decides.
                            let t = min(max((dst[p] - Fa[k]) / (N[k] - Fa[k]), 0), 1)
                            let dn = N[k] * unit, df = Fa[k] * unit
                            var cn = Self.blockCost(lumaL, lumaR, x: p, y: y, shift: dn, radius: r)
                            let cf = Self.blockCost(lumaL, lumaR, x: p, y: y, shift: df, radius: r)
                            // One right-view pixel, two claims: this pixel as near, and the pixel
                            // `dn − df` to its left as far. The near claim stands only if it matches
                            // better (beside a nearer object's left edge, the background hidden from
                            // the right camera would otherwise match some other repeat of itself).
                            let rival = p - Int((dn - df).rounded())
                            if rival >= 0, Self.blockCost(lumaL, lumaR, x: rival, y: y, shift: df, radius: r) < cn {
                                cn += s.occludedCost
                            }
                            costN[p] = cn + s.prior * (1 - t)
                            costF[p] = cf + s.prior * t
                        }
                        // Viterbi over the run: state 0 far, 1 near.
                        var accF = min(costF[x], s.occludedCost), accN = costN[x]
                        for p in (x + 1)..<max(x + 1, end) {
                            let uF = min(costF[p], s.occludedCost), uN = costN[p]
                            let stayF = accF, switchF = accN + s.changePenalty
                            let stayN = accN, switchN = accF + s.changePenalty
                            from[2 * p] = stayF <= switchF ? 0 : 1
                            from[2 * p + 1] = stayN <= switchN ? 1 : 0
                            accF = min(stayF, switchF) + uF
                            accN = min(stayN, switchN) + uN
                        }
                        var state = accN < accF ? 1 : 0
                        var p = end - 1
                        while p >= x {
                            let k = jn * mw + min(Int((Float(p) + 0.5) * sx), mw - 1)
                            dst[p] = state == 1 ? N[k] : Fa[k]
                            if p > x { state = Int(from[2 * p + state]) }
                            p -= 1
                        }
                        x = end
                    }
                }
            }
        }}}
        return DisparityMap(values: out, confidence: nil, referenceWidth: map.referenceWidth, referenceHeight: map.referenceHeight)
    }

    /// Mean absolute luma difference between `left` and `right` shifted left by `shift`
    /// (rounded), over the best of the `(2r+1)²` blocks that hold `(x, y)` (shiftable windows: a
    /// pixel beside an edge is judged by the block on its own side, so the edge is not moved by
    /// the block's radius); columns clamped to the image.
    @inline(__always)
    static func blockCost(_ left: Plane, _ right: Plane, x: Int, y: Int, shift: Float, radius r: Int) -> Float {
        let W = left.width, H = left.height, d = Int(shift.rounded())
        // Column sums over the block's rows, for the 4r+1 columns around x.
        var columns = (Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0))
        let span = min(4 * r + 1, 9), half = span / 2
        let y0 = max(0, y - r), y1 = min(H - 1, y + r)
        withUnsafeMutableBytes(of: &columns) { raw in
            let c = raw.bindMemory(to: Int32.self)
            for yy in y0...y1 {
                let a = left.row(yy, as: UInt8.self), b = right.row(yy, as: UInt8.self)
                for k in 0..<span {
                    let xx = min(max(x - half + k, 0), W - 1), xr = min(max(xx - d, 0), W - 1)
                    c[k] += Int32(abs(Int(a[xx]) - Int(b[xr])))
                }
            }
        }
        return withUnsafeBytes(of: &columns) { raw in
            let c = raw.bindMemory(to: Int32.self)
            let width = span - half
            var best = Int32.max
            for start in 0...(span - width) {
                var sum: Int32 = 0
                for k in start..<(start + width) { sum += c[k] }
                best = min(best, sum)
            }
            return Float(best) / Float(width * (y1 - y0 + 1))
        }
    }

    /// For each map sample: when its neighbourhood holds two sides of a depth edge, their
    /// means in `near` and `far` (near > far); otherwise near = far = the sample's own value.
    private mutating func sides(_ mw: Int, _ mh: Int) {
        let R = max(1, settings.reach), step = settings.minimumStep
        for j in 0..<mh {
            for i in 0..<mw {
                var lo = Float.infinity, hi = -Float.infinity
                let y0 = max(0, j - R), y1 = min(mh - 1, j + R), x0 = max(0, i - R), x1 = min(mw - 1, i + R)
                for y in y0...y1 { for x in x0...x1 { let v = filled[y * mw + x]; lo = min(lo, v); hi = max(hi, v) } }
                let own = filled[j * mw + i]
                near[j * mw + i] = own; far[j * mw + i] = own
                guard hi - lo >= step else { continue }
                // Two sides: the samples near the top and near the bottom of the range (what an
                // averaging or a fattening put between them takes no part). A slope fills the gap
                // between the halves; an edge leaves one.
                let mid = (lo + hi) / 2, tolerance = step / 2
                var sumN: Float = 0, nN: Float = 0, sumF: Float = 0, nF: Float = 0
                var topOfFar = -Float.infinity, bottomOfNear = Float.infinity
                for y in y0...y1 {
                    for x in x0...x1 {
                        let v = filled[y * mw + x]
                        if v >= mid { bottomOfNear = min(bottomOfNear, v) } else { topOfFar = max(topOfFar, v) }
                        if v >= hi - tolerance { sumN += v; nN += 1 }
                        if v <= lo + tolerance { sumF += v; nF += 1 }
                    }
                }
                guard bottomOfNear - topOfFar >= step else { continue }
                near[j * mw + i] = sumN / nN; far[j * mw + i] = sumF / nF
            }
        }
    }
}
