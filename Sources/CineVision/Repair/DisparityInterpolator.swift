// DisparityInterpolator: a disparity map for a frame whose map was carried forward live, made
// after the take from the computed maps on either side, each moved with the picture (block motion
// on the recorded video at the map's resolution), chosen pixel by pixel by which one's picture
// matches this frame's there.
import CineMedia

/// A luma picture at a disparity map's resolution: the frame's luma averaged over each map cell.
public struct LumaGrid: Sendable {
    public let width: Int
    public let height: Int
    /// Row-major luma, 0…255.
    public var values: [Float]

    /// The luma of `image` (plane 0) averaged down to `width` × `height`.
    public init(_ image: Image, width: Int, height: Int) {
        self.width = width
        self.height = height
        var out = [Float](repeating: 0, count: width * height)
        let plane = image.plane(0)
        let sw = image.width, sh = image.height
        for y in 0..<height {
            let y0 = y * sh / height, y1 = max(y0 + 1, (y + 1) * sh / height)
            for x in 0..<width {
                let x0 = x * sw / width, x1 = max(x0 + 1, (x + 1) * sw / width)
                var sum = 0
                for yy in y0..<y1 {
                    let r = plane.row(yy, as: UInt8.self)
                    for xx in x0..<x1 { sum += Int(r[xx]) }
                }
                out[y * width + x] = Float(sum) / Float((y1 - y0) * (x1 - x0))
            }
        }
        values = out
    }
}

/// Fills the maps of frames whose disparity was carried forward live (a weak machine computed
/// one map in several) from the computed maps before and after them.
///
/// A carried map shows where things stood when it was computed: a person who walked on since
/// is rendered at the wrong depth where they are now. After the take the next computed map is
/// known too. For each carried frame, every 8×8 block of the map's grid is matched (sum of
/// absolute luma differences) against the frame before's and the frame after's picture at the
/// map's resolution, starting from the last frame's motion carried on (a walk goes on), a coarse
/// grid ±12 cells around it and the neighbouring blocks' motions, refined ±2 cells; then each cell
/// takes the value of the map whose moved picture matches this frame's best in a 3×3 window
/// among its own block's and the neighbouring blocks' motions, the nearer map winning ties.
/// Where nothing moved, that is the nearer map itself.
public struct DisparityInterpolator: Sendable {
    /// The block size, in map cells.
    public var block = 8
    /// Cells searched around each candidate motion.
    public var refine = 2
    /// Cells a coarse search (every 4th cell) reaches around the predicted motion.
    public var coarse = 12

    public init() {}

    /// One computed map and its picture.
    public struct Key: Sendable {
        public var luma: LumaGrid
        public var map: DisparityMap
        public init(luma: LumaGrid, map: DisparityMap) {
            self.luma = luma
            self.map = map
        }
    }

    /// The maps of the carried frames `between` (in order, their pictures), from the computed
    /// `before` and, when the take goes on, `after`. Each result has `before`'s size and reference.
    public func fill(between frames: [LumaGrid], before: Key, after: Key?) -> [DisparityMap] {
        guard !frames.isEmpty else { return [] }
        let w = before.luma.width, h = before.luma.height
        let bw = (w + block - 1) / block, bh = (h + block - 1) / block
        // Block motions frame by frame, each run starting from its neighbour's motion.
        let zero = [SIMD2<Int32>](repeating: .zero, count: bw * bh)
        var forward = [[SIMD2<Int32>]](repeating: [], count: frames.count)
        var last = (zero, zero)
        for (i, f) in frames.enumerated() {
            forward[i] = motion(of: f, in: before.luma, last: last.0, beforeLast: last.1, bw: bw, bh: bh)
            last = (forward[i], last.0)
        }
        var backward = [[SIMD2<Int32>]](repeating: [], count: frames.count)
        if let after {
            last = (zero, zero)
            for i in frames.indices.reversed() {
                backward[i] = motion(of: frames[i], in: after.luma, last: last.0, beforeLast: last.1, bw: bw, bh: bh)
                last = (backward[i], last.0)
            }
        }
        return frames.indices.map { i in
            // The nearer map wins ties: a small bias against the farther one.
            let nearAfter = Double(frames.count - i) < Double(i + 1)
            return compose(frames[i], before: before, forward: forward[i], after: after,
                           backward: after == nil ? nil : backward[i], preferAfter: nearAfter, bw: bw, bh: bh)
        }
    }

    /// Sum of absolute differences between `a`'s block at (x0, y0) and `b` moved by `v`; cells of
    /// `b` outside the grid cost as much as the largest difference.
    @inline(__always)
    private func sad(_ a: UnsafeBufferPointer<Float>, _ b: UnsafeBufferPointer<Float>, w: Int, h: Int,
                     x0: Int, y0: Int, x1: Int, y1: Int, v: SIMD2<Int32>) -> Float {
        let dx = Int(v.x), dy = Int(v.y)
        var s: Float = 0
        for y in y0..<y1 {
            let by = y + dy
            guard by >= 0 && by < h else { s += 255 * Float(x1 - x0); continue }
            let ra = y * w, rb = by * w
            for x in x0..<x1 {
                let bx = x + dx
                s += bx >= 0 && bx < w ? abs(a[ra + x] - b[rb + bx]) : 255
            }
        }
        return s
    }

    /// Each block's motion from `frame` into `key` (where its content is in `key`), starting from
    /// the motions of the frame next to it (`last`) and the one beyond (`beforeLast`): a subject
    /// walking on moves about as far again each frame.
    private func motion(of frame: LumaGrid, in key: LumaGrid, last predicted: [SIMD2<Int32>],
                        beforeLast older: [SIMD2<Int32>], bw: Int, bh: Int) -> [SIMD2<Int32>]
    {
        let w = frame.width, h = frame.height
        var out = [SIMD2<Int32>](repeating: .zero, count: bw * bh)
        frame.values.withUnsafeBufferPointer { a in
            key.values.withUnsafeBufferPointer { b in
                for by in 0..<bh {
                    for bx in 0..<bw {
                        let x0 = bx * block, y0 = by * block
                        let x1 = min(w, x0 + block), y1 = min(h, y0 + block)
                        let p = predicted[by * bw + bx]
                        var candidates: [SIMD2<Int32>] = [.zero, p, p &+ p &- older[by * bw + bx]]
                        // A coarse grid around the prediction catches a fast walk the chain missed.
                        for gy in stride(from: -coarse, through: coarse, by: 4) {
                            for gx in stride(from: -coarse, through: coarse, by: 4) where gx != 0 || gy != 0 {
                                candidates.append(p &+ SIMD2(Int32(gx), Int32(gy)))
                            }
                        }
                        if bx > 0 { candidates.append(out[by * bw + bx - 1]) }
                        if by > 0 { candidates.append(out[(by - 1) * bw + bx]) }
                        if bx + 1 < bw { candidates.append(predicted[by * bw + bx + 1]) }
                        if by + 1 < bh { candidates.append(predicted[(by + 1) * bw + bx]) }
                        var best = SIMD2<Int32>.zero
                        var bestCost = sad(a, b, w: w, h: h, x0: x0, y0: y0, x1: x1, y1: y1, v: .zero) * 0.98
                        for c in candidates.dropFirst() {
                            let cost = sad(a, b, w: w, h: h, x0: x0, y0: y0, x1: x1, y1: y1, v: c)
                            if cost < bestCost { best = c; bestCost = cost }
                        }
                        // Refine around the best candidate, twice if it moved.
                        for _ in 0..<2 {
                            let centre = best
                            for dy in -refine...refine {
                                for dx in -refine...refine where dx != 0 || dy != 0 {
                                    let c = centre &+ SIMD2(Int32(dx), Int32(dy))
                                    let cost = sad(a, b, w: w, h: h, x0: x0, y0: y0, x1: x1, y1: y1, v: c)
                                    if cost < bestCost { best = c; bestCost = cost }
                                }
                            }
                            if best == centre { break }
                        }
                        out[by * bw + bx] = best
                    }
                }
            }
        }
        return out
    }

    /// A block and the four next to it.
    private static let neighbours = [(0, 0), (-1, 0), (1, 0), (0, -1), (0, 1)]

    /// The map of `frame`: each cell from whichever key and motion (of its block and the four
    /// next to it; a neighbour's motion costs a little more) matches its 3×3 neighbourhood best,
    /// then a 3×3 median against lone wrong matches.
    private func compose(_ frame: LumaGrid, before: Key, forward: [SIMD2<Int32>], after: Key?,
                         backward: [SIMD2<Int32>]?, preferAfter: Bool, bw: Int, bh: Int) -> DisparityMap {
        let w = frame.width, h = frame.height
        var chosen = [Float](repeating: .infinity, count: w * h)
        var costs = [Float](repeating: .infinity, count: w * h)
        func pass(_ key: Key, _ vectors: [SIMD2<Int32>], bias: Float) {
            let map = key.map.values
            frame.values.withUnsafeBufferPointer { t in
                key.luma.values.withUnsafeBufferPointer { l in
                    vectors.withUnsafeBufferPointer { v in
                        for y in 0..<h {
                            let by = y / block
                            for x in 0..<w {
                                let bx = x / block
                                var best = costs[y * w + x], value = chosen[y * w + x]
                                for n in 0..<5 {
                                    let nx = bx + Self.neighbours[n].0, ny = by + Self.neighbours[n].1
                                    guard nx >= 0 && nx < bw && ny >= 0 && ny < bh else { continue }
                                    let m = v[ny * bw + nx]
                                    let sx = x + Int(m.x), sy = y + Int(m.y)
                                    guard sx >= 0 && sx < w && sy >= 0 && sy < h else { continue }
                                    let cost = sad(t, l, w: w, h: h, x0: max(0, x - 1), y0: max(0, y - 1),
                                                   x1: min(w, x + 2), y1: min(h, y + 2), v: m) * bias * (n == 0 ? 1 : 1.15)
                                    if cost < best {
                                        best = cost
                                        value = map.plane(0).row(sy, as: Float.self)[sx]
                                    }
                                }
                                costs[y * w + x] = best
                                chosen[y * w + x] = value
                            }
                        }
                    }
                }
            }
        }
        pass(before, forward, bias: preferAfter ? 1.06 : 1)
        if let after, let backward { pass(after, backward, bias: preferAfter ? 1 : 1.06) }
        let out = Image(width: w, height: h, format: .float32)
        var window = [Float](repeating: 0, count: 9)
        for y in 0..<h {
            let o = out.plane(0).row(y, as: Float.self)
            for x in 0..<w {
                var n = 0
                for yy in max(0, y - 1)...min(h - 1, y + 1) {
                    for xx in max(0, x - 1)...min(w - 1, x + 1) where chosen[yy * w + xx].isFinite {
                        window[n] = chosen[yy * w + xx]
                        n += 1
                    }
                }
                if n < 5 || !chosen[y * w + x].isFinite {
                    o[x] = chosen[y * w + x]
                } else {
                    window[0..<n].sort()
                    o[x] = window[n / 2]
                }
            }
        }
        return DisparityMap(values: out, referenceWidth: before.map.referenceWidth,
                            referenceHeight: before.map.referenceHeight)
    }
}
