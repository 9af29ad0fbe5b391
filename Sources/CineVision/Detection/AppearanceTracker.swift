// AppearanceTracker: follows one object a user tapped, by its look — normalised
// cross-correlation of a small luma template plus its mean colour, over a window around where
// its motion says it will be; reports honestly when it is occluded or has left the frame.
import CineMedia

/// Follows one object through frames by its appearance alone (no disparity needed).
///
/// **Model.** The object's box is sampled onto a working grid whose longer side is
/// ``Configuration/templateSide`` cells (each cell the mean of the luma under it, so a large
/// object costs what a small one does), giving a template; its mean chroma is kept beside it.
///
/// **Each frame.** The box is predicted on its velocity; every placement within
/// ``Configuration/searchRadius`` cells of the prediction is scored by the zero-mean normalised
/// cross-correlation of the template with the image under it, less a penalty for a different
/// mean colour (``Configuration/colourWeight``). The best placement is then tried at
/// ``Configuration/scaleStep`` larger and smaller (the object nearing or receding). A score of at
/// least ``Configuration/lostScore`` moves the box there; a score of at least
/// ``Configuration/learnScore`` also blends the template toward what was seen (appearance that
/// changes slowly is followed; an occluder is not learnt).
///
/// **Lost.** ``Configuration/missesToLose`` frames in a row under ``Configuration/lostScore``
/// report the object ``Status/lost(_:)`` — ``LossReason/leftFrame`` when the predicted box is
/// mostly outside the frame, ``LossReason/occluded`` otherwise — and the box stops moving. While
/// lost, a wider window around the last place is searched each frame; a placement scoring at least
/// ``Configuration/reacquireScore`` brings the object back (same track). After
/// ``Configuration/giveUpFrames`` lost frames the tracker gives up (``isFinished``).
///
/// **Cost.** One pass over the search window's pixels to build the working grid, then
/// `(2r+1)²` correlations of a template of at most `templateSide²` cells (eight at a time):
/// about 1 ms a frame for a 32-cell template and a 12-cell radius.
public struct AppearanceTracker: Sendable {
    /// The tuning.
    public struct Configuration: Sendable, Hashable {
        /// Cells along the template's longer side.
        public var templateSide = 32
        /// Search radius around the prediction, in cells (while tracking).
        public var searchRadius = 10
        /// Search radius while lost, in cells.
        public var reacquireRadius = 24
        /// A match under this score is a miss.
        public var lostScore = 0.55
        /// A match at or above this score updates the template.
        public var learnScore = 0.8
        /// How much of the new look a learning frame blends in.
        public var learningRate = 0.08
        /// A lost object is found again at or above this score.
        public var reacquireScore = 0.68
        /// Misses in a row before the object is reported lost.
        public var missesToLose = 3
        /// Lost frames before the tracker gives up.
        public var giveUpFrames = 150
        /// Penalty per 64 levels of mean chroma difference (U and V summed).
        public var colourWeight = 0.5
        /// Relative size step tried each frame around the best placement.
        public var scaleStep = 0.04

        /// The defaults.
        public init() {}
    }

    /// Why an object is no longer followed.
    public enum LossReason: String, Sendable, Hashable {
        /// Something nearer covers it (or it changed beyond recognition).
        case occluded
        /// It went out of the frame.
        case leftFrame
    }

    /// Where the tracker stands.
    public enum Status: Sendable, Hashable {
        /// Following the object.
        case tracking
        /// Not seen for ``Configuration/missesToLose`` frames: searching to find it again.
        case lost(LossReason)
    }

    /// One frame's answer.
    public struct Observation: Sendable, Hashable {
        /// The object's box (its last known box while lost), normalised.
        public var bounds: NormalizedRect
        /// The best match's score this frame (−1 … 1; higher is surer).
        public var score: Double
        /// Tracking, or lost and why.
        public var status: Status
    }

    /// The tuning in use.
    public let configuration: Configuration
    /// The current box in pixels (x, y, width, height) of the frames' full resolution.
    private var box: (x: Double, y: Double, w: Double, h: Double)
    private var velocity: (x: Double, y: Double) = (0, 0)
    /// Where the box was when it was last seen, and its velocity then (for finding it again).
    private var lastSeen: (x: Double, y: Double) = (0, 0)
    private var lostVelocity: (x: Double, y: Double) = (0, 0)
    /// Template cells (row-major, `cols × rows`), zero mean, unit norm.
    private var template: [Float]
    private var cols: Int
    private var rows: Int
    private var meanChroma: (u: Double, v: Double)
    private var misses = 0
    private var lostFrames = 0
    /// The current status.
    public private(set) var status: Status = .tracking
    private var frameSize: (w: Int, h: Int)

    /// Starts following the object inside `bounds` of `image` (I420, NV12 or gray8; chroma is
    /// used when there is some). `nil` when the box is too small to follow (under 6 × 6 pixels)
    /// or shows no structure at all (a flat patch: nothing to correlate).
    public init?(image: Image, bounds: NormalizedRect, configuration: Configuration = Configuration()) {
        self.configuration = configuration
        let W = Double(image.width), H = Double(image.height)
        let x = max(0, bounds.x * W), y = max(0, bounds.y * H)
        let w = min(W - x, bounds.width * W), h = min(H - y, bounds.height * H)
        guard w >= 6, h >= 6 else { return nil }
        box = (x, y, w, h)
        frameSize = (image.width, image.height)
        let cell = max(w, h) / Double(configuration.templateSide)
        cols = max(4, Int((w / max(1, cell)).rounded()))
        rows = max(4, Int((h / max(1, cell)).rounded()))
        let patch = Self.sample(image, x: x, y: y, w: w, h: h, cols: cols, rows: rows)
        guard let t = Self.normalised(patch) else { return nil }
        template = t
        meanChroma = Self.meanChroma(image, x: x, y: y, w: w, h: h)
    }

    /// The object's box, normalised to the frame.
    public var bounds: NormalizedRect {
        let W = Double(frameSize.w), H = Double(frameSize.h)
        let l = min(W, max(0, box.x)), t = min(H, max(0, box.y))
        let r = min(W, max(l, box.x + box.w)), b = min(H, max(t, box.y + box.h))
        return NormalizedRect(x: l / W, y: t / H, width: (r - l) / W, height: (b - t) / H)
    }

    /// Whether the tracker has given up (lost for ``Configuration/giveUpFrames`` frames).
    public var isFinished: Bool { lostFrames >= configuration.giveUpFrames }

    /// Follows the object into the next frame (the same size and format as the first).
    public mutating func update(_ image: Image) -> Observation {
        let c = configuration
        let lost: Bool = if case .lost = status { true } else { false }
        // Where it should be: moved on its velocity while tracked.
        let px = box.x + velocity.x, py = box.y + velocity.y
        let cellW = box.w / Double(cols), cellH = box.h / Double(rows)
        let best = lost
            ? reacquire(image, cellW: cellW, cellH: cellH)
            : search(image, x: px, y: py, w: box.w, h: box.h, cellW: cellW, cellH: cellH, radius: c.searchRadius)
        var found = best
        // Nearer or farther: the same centre at a step larger and smaller, ±1 cell around it.
        if best.score >= c.lostScore {
            for f in [1 + c.scaleStep, 1 / (1 + c.scaleStep)] {
                let w = box.w * f, h = box.h * f
                let cx = best.x + box.w / 2, cy = best.y + box.h / 2
                let s = search(image, x: cx - w / 2, y: cy - h / 2, w: w, h: h, cellW: w / Double(cols),
                               cellH: h / Double(rows), radius: 1)
                if s.score > found.score + 0.005 { found = s }
            }
        }
        let threshold = lost ? c.reacquireScore : c.lostScore
        if found.score >= threshold {
            let nv = (x: found.x - box.x, y: found.y - box.y)
            velocity = lost ? (0, 0) : (0.6 * nv.x + 0.4 * velocity.x, 0.6 * nv.y + 0.4 * velocity.y)
            box = (found.x, found.y, found.w, found.h)
            misses = 0
            lostFrames = 0
            status = .tracking
            if found.score >= c.learnScore,
               let seen = Self.normalised(Self.sample(image, x: box.x, y: box.y, w: box.w, h: box.h, cols: cols, rows: rows)) {
                let a = Float(c.learningRate)
                template = Self.normalised(zip(template, seen).map { (1 - a) * $0 + a * $1 }, flat: 0) ?? template
                let m = Self.meanChroma(image, x: box.x, y: box.y, w: box.w, h: box.h)
                meanChroma = (meanChroma.u + (m.u - meanChroma.u) * c.learningRate,
                              meanChroma.v + (m.v - meanChroma.v) * c.learningRate)
            }
        } else if lost {
            lostFrames += 1
        } else {
            misses += 1
            // Coast on the motion while it may only be a bad frame.
            box.x = px
            box.y = py
            if misses >= c.missesToLose {
                let W = Double(image.width), H = Double(image.height)
                let inX = max(0, min(W, box.x + box.w) - max(0, box.x)), inY = max(0, min(H, box.y + box.h) - max(0, box.y))
                let inside = inX * inY / max(1, box.w * box.h)
                status = .lost(inside < 0.5 ? .leftFrame : .occluded)
                // Where it was last seen, and how it was moving: it may go on behind what hides it.
                lastSeen = (box.x - velocity.x * Double(misses), box.y - velocity.y * Double(misses))
                lostVelocity = velocity
                lostFrames = 1
            }
        }
        return Observation(bounds: bounds, score: found.score, status: status)
    }

    /// Where the template is best placed in `image` within `radius` cells of `near` (a box of
    /// the template's shape; its size is kept), with the placement's score. Changes nothing: for
    /// a caller that predicts the object's place itself and uses the look only to confirm it
    /// (``BodyFollower``).
    public func locate(in image: Image, near: NormalizedRect, radius: Int) -> (bounds: NormalizedRect, score: Double) {
        let W = Double(image.width), H = Double(image.height)
        let w = near.width * W, h = near.height * H
        let m = search(image, x: near.x * W, y: near.y * H, w: w, h: h, cellW: w / Double(cols), cellH: h / Double(rows),
                       radius: radius)
        return (NormalizedRect(x: m.x / W, y: m.y / H, width: w / W, height: h / H), m.score)
    }

    /// The best placement while lost: around where the object was last seen and where its
    /// motion would have taken it since, over a radius that grows with the time lost, searched on
    /// a coarser grid (a block-averaged template) and then refined at the template's own cells.
    private func reacquire(_ image: Image, cellW: Double, cellH: Double) -> Match {
        let c = configuration
        let elapsed = Double(lostFrames + c.missesToLose)
        let speed = (lostVelocity.x * lostVelocity.x + lostVelocity.y * lostVelocity.y).squareRoot()
        // A hidden object may have moved on: at its last speed, or at least a sixth of its size a
        // frame (a ball at rest when hidden may be rolled on), up to half the frame.
        let cell = max(cellW, cellH)
        let reach = min(elapsed * max(speed, max(box.w, box.h) / 6), Double(max(image.width, image.height)) / 2)
        let radius = c.reacquireRadius + Int(reach / cell)
        let k = max(1, radius / c.reacquireRadius)
        let coarseCols = max(4, cols / k), coarseRows = max(4, rows / k)
        let kx = Double(cols) / Double(coarseCols), ky = Double(rows) / Double(coarseRows)
        var coarse = [Float](repeating: 0, count: coarseCols * coarseRows)
        for j in 0..<rows {
            for i in 0..<cols {
                coarse[min(coarseRows - 1, Int(Double(j) / ky)) * coarseCols + min(coarseCols - 1, Int(Double(i) / kx))] += template[j * cols + i]
            }
        }
        let none = Match(x: box.x, y: box.y, w: box.w, h: box.h, score: -2)
        guard let t = Self.normalised(coarse, flat: 0) else { return none }
        var centres = [(lastSeen.x, lastSeen.y)]
        let ahead = (lastSeen.x + lostVelocity.x * elapsed, lastSeen.y + lostVelocity.y * elapsed)
        if abs(ahead.0 - lastSeen.x) > cellW * Double(radius) || abs(ahead.1 - lastSeen.y) > cellH * Double(radius) {
            centres.append(ahead)
        }
        // The best few coarse placements, each refined on the template's own cells.
        var candidates: [Match] = []
        for (x, y) in centres {
            candidates += search(image, template: t, cols: coarseCols, rows: coarseRows, x: x, y: y, w: box.w, h: box.h,
                                 cellW: cellW * kx, cellH: cellH * ky, radius: radius / k, keep: 4)
        }
        var best = none
        for m in candidates.sorted(by: { $0.score > $1.score }).prefix(4) {
            let r = search(image, x: m.x, y: m.y, w: box.w, h: box.h, cellW: cellW, cellH: cellH, radius: k + 1)
            if r.score > best.score { best = r }
        }
        return best
    }

    // MARK: Matching

    private struct Match {
        var x: Double, y: Double, w: Double, h: Double, score: Double
    }

    /// The best placement of the template within `radius` cells of (`x`, `y`), boxes `w` × `h`.
    private func search(_ image: Image, x: Double, y: Double, w: Double, h: Double, cellW: Double, cellH: Double,
                        radius: Int) -> Match {
        search(image, template: template, cols: cols, rows: rows, x: x, y: y, w: w, h: h, cellW: cellW, cellH: cellH,
               radius: radius, keep: 1)[0]
    }

    /// The best placement of `template` (`cols × rows` cells) within `radius` cells of (`x`, `y`).
    /// Returns the `keep` best placements, best first, each at least a template apart (at least one, score −2 when none).
    private func search(_ image: Image, template: [Float], cols: Int, rows: Int, x: Double, y: Double, w: Double,
                        h: Double, cellW: Double, cellH: Double, radius: Int, keep: Int) -> [Match] {
        // The working grid covers the box plus the radius on every side.
        let gw = cols + 2 * radius, gh = rows + 2 * radius
        let gx = x - Double(radius) * cellW, gy = y - Double(radius) * cellH
        let grid = Self.sample(image, x: gx, y: gy, w: Double(gw) * cellW, h: Double(gh) * cellH, cols: gw, rows: gh)
        let chroma = Self.chromaGrid(image, x: gx, y: gy, w: Double(gw) * cellW, h: Double(gh) * cellH, cols: gw, rows: gh)
        // Integral images of the grid and its square (for each placement's mean and variance),
        // and of the chroma (for its mean colour).
        let iw = gw + 1
        var sum = [Double](repeating: 0, count: iw * (gh + 1)), sq = sum, su = sum, sv = sum
        for j in 0..<gh {
            var rs = 0.0, rq = 0.0, ru = 0.0, rv = 0.0
            for i in 0..<gw {
                let v = Double(grid[j * gw + i])
                rs += v
                rq += v * v
                ru += chroma.u[j * gw + i]
                rv += chroma.v[j * gw + i]
                let k = (j + 1) * iw + i + 1
                sum[k] = sum[k - iw] + rs
                sq[k] = sq[k - iw] + rq
                su[k] = su[k - iw] + ru
                sv[k] = sv[k - iw] + rv
            }
        }
        func rect(_ a: [Double], _ i: Int, _ j: Int) -> Double {
            a[(j + rows) * iw + i + cols] - a[j * iw + i + cols] - a[(j + rows) * iw + i] + a[j * iw + i]
        }
        let n = Double(cols * rows)
        var best = [Match(x: x, y: y, w: w, h: h, score: -2)]
        grid.withUnsafeBufferPointer { g in
            template.withUnsafeBufferPointer { t in
                for dj in 0...(2 * radius) {
                    for di in 0...(2 * radius) {
                        let s = rect(sum, di, dj), q = rect(sq, di, dj)
                        let variance = q - s * s / n
                        guard variance > n * 4 else { continue }  // a flat placement: nothing to match
                        var dot: Float = 0
                        for r in 0..<rows {
                            dot += Self.dot(t.baseAddress! + r * cols, g.baseAddress! + (dj + r) * gw + di, cols)
                        }
                        // The template has zero mean: Σ t·(g − mean) = Σ t·g.
                        var score = Double(dot) / variance.squareRoot()
                        let du = rect(su, di, dj) / n - meanChroma.u, dv = rect(sv, di, dj) / n - meanChroma.v
                        score -= configuration.colourWeight * (abs(du) + abs(dv)) / 64
                        // A small preference for the prediction breaks ties on repeated texture.
                        let off = Double((di - radius) * (di - radius) + (dj - radius) * (dj - radius))
                        score -= 0.0005 * off / Double(max(1, radius))
                        if best.count < keep || score > best[best.count - 1].score {
                            let m = Match(x: gx + Double(di) * cellW, y: gy + Double(dj) * cellH, w: w, h: h, score: score)
                            if keep == 1 { best[0] = m; continue }
                            // Keep placements a template apart: a better one replaces its neighbours.
                            let near = best.indices.filter { abs(best[$0].x - m.x) < w && abs(best[$0].y - m.y) < h }
                            if near.contains(where: { best[$0].score >= score }) { continue }
                            for i in near.reversed() { best.remove(at: i) }
                            let at = best.firstIndex { $0.score < score } ?? best.count
                            best.insert(m, at: at)
                            if best.count > keep { best.removeLast() }
                        }
                    }
                }
            }
        }
        return best
    }

    /// Σ a[i]·b[i] over `n` floats, eight at a time.
    @inline(__always)
    private static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ n: Int) -> Float {
        var acc = SIMD8<Float>()
        var i = 0
        let ra = UnsafeRawPointer(a), rb = UnsafeRawPointer(b)
        while i + 8 <= n {
            acc += ra.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
                * rb.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
            i += 8
        }
        var s = acc.sum()
        while i < n {
            s += a[i] * b[i]
            i += 1
        }
        return s
    }

    // MARK: Sampling

    /// The mean luma of each of `cols × rows` cells over the box (x, y, w, h); cells outside the
    /// frame repeat its edge. Each cell averages a grid of up to 3 × 3 pixels inside it.
    static func sample(_ image: Image, x: Double, y: Double, w: Double, h: Double, cols: Int, rows: Int) -> [Float] {
        let plane = image.plane(0)
        let W = image.width, H = image.height
        let cw = w / Double(cols), ch = h / Double(rows)
        let taps = max(1, min(3, Int(cw.rounded())))
        let tapsY = max(1, min(3, Int(ch.rounded())))
        var out = [Float](repeating: 0, count: cols * rows)
        var xs = [Int](repeating: 0, count: cols * taps)
        for i in 0..<cols {
            for k in 0..<taps {
                let fx = x + (Double(i) + (Double(k) + 0.5) / Double(taps)) * cw
                xs[i * taps + k] = min(W - 1, max(0, Int(fx)))
            }
        }
        let scale = 1 / Float(taps * tapsY)
        for j in 0..<rows {
            for k in 0..<tapsY {
                let fy = y + (Double(j) + (Double(k) + 0.5) / Double(tapsY)) * ch
                let row = plane.row(min(H - 1, max(0, Int(fy))), as: UInt8.self)
                for i in 0..<cols {
                    var s: UInt32 = 0
                    for m in 0..<taps { s += UInt32(row[xs[i * taps + m]]) }
                    out[j * cols + i] += Float(s)
                }
            }
        }
        for i in out.indices { out[i] *= scale }
        return out
    }

    /// The chroma (U, V) of each cell's centre, or 128 for images without chroma.
    static func chromaGrid(_ image: Image, x: Double, y: Double, w: Double, h: Double, cols: Int, rows: Int)
        -> (u: [Double], v: [Double]) {
        var u = [Double](repeating: 128, count: cols * rows), v = u
        guard image.format == .i420 || image.format == .nv12 else { return (u, v) }
        let cw = w / Double(cols), ch = h / Double(rows)
        let CW = (image.width + 1) / 2, CH = (image.height + 1) / 2
        for j in 0..<rows {
            let cy = min(CH - 1, max(0, Int((y + (Double(j) + 0.5) * ch) / 2)))
            for i in 0..<cols {
                let cx = min(CW - 1, max(0, Int((x + (Double(i) + 0.5) * cw) / 2)))
                let (a, b) = chromaAt(image, cx, cy)
                u[j * cols + i] = a
                v[j * cols + i] = b
            }
        }
        return (u, v)
    }

    /// The chroma sample at chroma position (`cx`, `cy`).
    @inline(__always)
    private static func chromaAt(_ image: Image, _ cx: Int, _ cy: Int) -> (Double, Double) {
        if image.format == .i420 {
            return (Double(image.plane(1).row(cy, as: UInt8.self)[cx]), Double(image.plane(2).row(cy, as: UInt8.self)[cx]))
        }
        let row = image.plane(1).row(cy, as: UInt8.self)
        return (Double(row[2 * cx]), Double(row[2 * cx + 1]))
    }

    /// The mean chroma over the box's central part (8 × 8 samples).
    static func meanChroma(_ image: Image, x: Double, y: Double, w: Double, h: Double) -> (u: Double, v: Double) {
        let g = chromaGrid(image, x: x, y: y, w: w, h: h, cols: 8, rows: 8)
        return (g.u.reduce(0, +) / 64, g.v.reduce(0, +) / 64)
    }

    /// `patch` less its mean, scaled to unit length; `nil` when it is flat (its cells' standard
    /// deviation under `flat` levels; 0 for a template that is already normalised).
    static func normalised(_ patch: [Float], flat: Float = 2) -> [Float]? {
        let mean = patch.reduce(0, +) / Float(patch.count)
        var out = patch.map { $0 - mean }
        let norm = out.reduce(0) { $0 + $1 * $1 }.squareRoot()
        guard norm > max(1e-6, Float(patch.count).squareRoot() * flat) else { return nil }
        for i in out.indices { out[i] /= norm }
        return out
    }
}
