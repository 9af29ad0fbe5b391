// DisparityInterpolator: a disparity map for a frame whose map was carried forward live, made
// after the take from the computed maps on either side, each moved with the picture (block motion
// on the recorded video at the map's resolution), chosen pixel by pixel by which one's picture
// matches this frame's there.
import CineMedia
import Dispatch
import Synchronization

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
        let plane = image.plane(0)
        values = [Float](unsafeUninitializedCapacity: width * height) { out, count in
            let acc = UnsafeMutablePointer<UInt32>.allocate(capacity: plane.width)
            defer { acc.deallocate() }
            AreaDownscaler.downscale(plane, rows: 0..<height, width: width, height: height, into: out.baseAddress!,
                                     stride: width, accumulator: acc)
            count = width * height
        }
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
        // Each key's chain of motions, frame by frame from it: the two chains on two cores.
        let chains = Mutex<[[[SIMD2<Int32>]]]>([[], []])
        DispatchQueue.concurrentPerform(iterations: after == nil ? 1 : 2) { side in
            let key = side == 0 ? before.luma : after!.luma
            let order = side == 0 ? Array(frames.indices) : frames.indices.reversed()
            let zero = [SIMD2<Int32>](repeating: .zero, count: bw * bh)
            var vectors = [[SIMD2<Int32>]](repeating: [], count: frames.count)
            var last = (zero, zero)
            for i in order {
                vectors[i] = motion(of: frames[i], in: key, last: last.0, beforeLast: last.1, bw: bw, bh: bh)
                last = (vectors[i], last.0)
            }
            chains.withLock { $0[side] = vectors }
        }
        let (forward, backward) = chains.withLock { ($0[0], $0[1]) }
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
        if x1 - x0 == 8, x0 + dx >= 0, x1 + dx <= w, y0 + dy >= 0, y1 + dy <= h {
            // Inside on both sides: eight cells a row at once.
            var acc = SIMD8<Float>()
            let pa = UnsafeRawPointer(a.baseAddress!), pb = UnsafeRawPointer(b.baseAddress!)
            for y in y0..<y1 {
                let ra = pa.loadUnaligned(fromByteOffset: (y * w + x0) * 4, as: SIMD8<Float>.self)
                let rb = pb.loadUnaligned(fromByteOffset: ((y + dy) * w + x0 + dx) * 4, as: SIMD8<Float>.self)
                let d = ra - rb
                acc += d.replacing(with: -d, where: d .< 0)
            }
            return acc.sum()
        }
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
                        var best = SIMD2<Int32>.zero
                        var bestCost = sad(a, b, w: w, h: h, x0: x0, y0: y0, x1: x1, y1: y1, v: .zero) * 0.98
                        func consider(_ c: SIMD2<Int32>) {
                            let cost = sad(a, b, w: w, h: h, x0: x0, y0: y0, x1: x1, y1: y1, v: c)
                            if cost < bestCost { best = c; bestCost = cost }
                        }
                        consider(p)
                        consider(p &+ p &- older[by * bw + bx])
                        // A coarse grid around the prediction catches a fast walk the chain missed.
                        for gy in stride(from: -coarse, through: coarse, by: 4) {
                            for gx in stride(from: -coarse, through: coarse, by: 4) where gx != 0 || gy != 0 {
                                consider(p &+ SIMD2(Int32(gx), Int32(gy)))
                            }
                        }
                        if bx > 0 { consider(out[by * bw + bx - 1]) }
                        if by > 0 { consider(out[(by - 1) * bw + bx]) }
                        if bx + 1 < bw { consider(predicted[by * bw + bx + 1]) }
                        if by + 1 < bh { consider(predicted[(by + 1) * bw + bx]) }
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
    /// then a 3×3 median against lone wrong matches. Rows in two bands, on two cores.
    private func compose(_ frame: LumaGrid, before: Key, forward: [SIMD2<Int32>], after: Key?,
                         backward: [SIMD2<Int32>]?, preferAfter: Bool, bw: Int, bh: Int) -> DisparityMap {
        let w = frame.width, h = frame.height
        let first: [(luma: [Float], map: Image, vectors: [SIMD2<Int32>], bias: Float)] =
            [(before.luma.values, before.map.values, forward, preferAfter ? 1.06 : 1)]
        let keys = first + (after.flatMap { a in backward.map { [(a.luma.values, a.map.values, $0, preferAfter ? 1 : 1.06)] } } ?? [])
        let picked = Image(width: w, height: h, format: .float32)
        let costs = Image(width: w, height: h, format: .float32)
        let block = self.block
        let bands = 2
        let luma = frame.values
        DispatchQueue.concurrentPerform(iterations: bands) { band in
            luma.withUnsafeBufferPointer { t in
              for (ki, k) in keys.enumerated() {
                k.luma.withUnsafeBufferPointer { l in
                  k.vectors.withUnsafeBufferPointer { vectors in
                    let mapPlane = k.map.plane(0)
                    for y in (band * h / bands)..<((band + 1) * h / bands) {
                    let chosenRow = picked.plane(0).row(y, as: Float.self)
                    let costRow = costs.plane(0).row(y, as: Float.self)
                    let by = y / block
                    for x in 0..<w {
                        let bx = x / block
                        var best = ki == 0 ? Float.infinity : costRow[x], value = ki == 0 ? Float.infinity : chosenRow[x]
                        do {
                            do {
                                for n in 0..<5 {
                                    let nx = bx + Self.neighbours[n].0, ny = by + Self.neighbours[n].1
                                    guard nx >= 0 && nx < bw && ny >= 0 && ny < bh else { continue }
                                    let m = vectors[ny * bw + nx]
                                    let sx = x + Int(m.x), sy = y + Int(m.y)
                                    guard sx >= 0 && sx < w && sy >= 0 && sy < h else { continue }
                                    let raw: Float
                                    if x > 0 && x < w - 1 && y > 0 && y < h - 1 && sx > 0 && sx < w - 1 && sy > 0 && sy < h - 1 {
                                        var d: Float = 0
                                        for j in -1...1 {
                                            let ta = (y + j) * w + x, la = (sy + j) * w + sx
                                            d += abs(t[ta - 1] - l[la - 1]) + abs(t[ta] - l[la]) + abs(t[ta + 1] - l[la + 1])
                                        }
                                        raw = d
                                    } else {
                                        raw = sad(t, l, w: w, h: h, x0: max(0, x - 1), y0: max(0, y - 1),
                                                  x1: min(w, x + 2), y1: min(h, y + 2), v: m)
                                    }
                                    let cost = raw * k.bias * (n == 0 ? 1 : 1.15)
                                    if cost < best {
                                        best = cost
                                        value = mapPlane.row(sy, as: Float.self)[sx]
                                    }
                                }
                            }
                        }
                        chosenRow[x] = value
                        costRow[x] = best
                    }
                    }
                  }
                }
              }
            }
        }
        let out = Image(width: w, height: h, format: .float32)
        DispatchQueue.concurrentPerform(iterations: bands) { band in
            let pickedPlane = picked.plane(0)
            func chosen(_ x: Int, _ y: Int) -> Float { pickedPlane.row(y, as: Float.self)[x] }
            var window = (Float(0), Float(0), Float(0), Float(0), Float(0), Float(0), Float(0), Float(0), Float(0))
            withUnsafeMutableBytes(of: &window) { raw in
                let win = raw.bindMemory(to: Float.self)
                for y in (band * h / bands)..<((band + 1) * h / bands) {
                    let o = out.plane(0).row(y, as: Float.self)
                    for x in 0..<w {
                        var n = 0
                        for yy in max(0, y - 1)...min(h - 1, y + 1) {
                            for xx in max(0, x - 1)...min(w - 1, x + 1) where chosen(xx, yy).isFinite {
                                win[n] = chosen(xx, yy)
                                n += 1
                            }
                        }
                        if n < 5 || !chosen(x, y).isFinite {
                            o[x] = chosen(x, y)
                        } else {
                            // Insertion sort of at most nine values.
                            for i in 1..<n {
                                let v = win[i]
                                var j = i - 1
                                while j >= 0 && win[j] > v { win[j + 1] = win[j]; j -= 1 }
                                win[j + 1] = v
                            }
                            o[x] = win[n / 2]
                        }
                    }
                }
            }
        }
        return DisparityMap(values: out, referenceWidth: before.map.referenceWidth,
                            referenceHeight: before.map.referenceHeight)
    }
}
