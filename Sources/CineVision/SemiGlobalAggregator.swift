// SemiGlobalAggregator: the heart of the matcher — census Hamming costs, semi-global path
// aggregation with SIMD across disparities (16 UInt16 lanes), winner-take-all with uniqueness,
// equiangular sub-pixel, and the left-right check — one row at a time, so the cost volume never
// exists beyond one row.

/// Sixteen disparities of path cost: one AVX2 register with `-target-cpu haswell`.
typealias CostVector = SIMD16<UInt16>

/// Lane-wise minimum written as a lane loop, which LLVM turns into one `vpminuw`
/// (the standard library's `pointwiseMin` is an out-of-line call).
@_transparent func minimum(_ a: CostVector, _ b: CostVector) -> CostVector {
    var r = a
    for i in 0..<16 { r[i] = Swift.min(a[i], b[i]) }
    return r
}

/// The smallest lane: written so that LLVM emits `vpminuw` of the halves + `vphminposuw`.
@_transparent func smallestLane(_ v: CostVector) -> UInt16 {
    var h = v.lowHalf
    for i in 0..<8 { h[i] = Swift.min(v.lowHalf[i], v.highHalf[i]) }
    var m = h[0]
    for i in 1..<8 { m = Swift.min(m, h[i]) }
    return m
}

/// The smallest lane by halving (16 → 8 → 4 → 2 → 1 lanes, one `vpminuw` each): for minima
/// of values built in a loop, where LLVM does not form `vphminposuw` from ``smallestLane(_:)``
/// and falls back to extracting lanes one by one.
@_transparent func smallestLaneByHalves(_ v: CostVector) -> UInt16 {
    var h = v.lowHalf
    for i in 0..<8 { h[i] = Swift.min(v.lowHalf[i], v.highHalf[i]) }
    var q = h.lowHalf
    for i in 0..<4 { q[i] = Swift.min(h.lowHalf[i], h.highHalf[i]) }
    var p = q.lowHalf
    for i in 0..<2 { p[i] = Swift.min(q.lowHalf[i], q.highHalf[i]) }
    return Swift.min(p[0], p[1])
}

/// Eight packed `(cost << 8) | disparity` keys: the minimum of keys is the cheapest disparity,
/// the smaller one on ties.
typealias KeyVector = SIMD8<UInt32>

/// Lane-wise minimum of keys (one `vpminud`).
@_transparent func minimum(_ a: KeyVector, _ b: KeyVector) -> KeyVector {
    var r = a
    for i in 0..<8 { r[i] = Swift.min(a[i], b[i]) }
    return r
}

/// Keys for eight costs starting at disparity `first`: `(cost << 8) | (first + lane)`.
@_transparent func keys(_ costs: SIMD8<UInt16>, first: KeyVector) -> KeyVector {
    var r = first
    for i in 0..<8 { r[i] = UInt32(costs[i]) << 8 | first[i] }
    return r
}

/// The smallest key.
@_transparent func smallestKey(_ v: KeyVector) -> UInt32 {
    var h = v.lowHalf
    for i in 0..<4 { h[i] = Swift.min(v.lowHalf[i], v.highHalf[i]) }
    return Swift.min(Swift.min(h[0], h[1]), Swift.min(h[2], h[3]))
}

/// Eight census signatures.
typealias SignatureVector = SIMD8<UInt64>

/// Hamming distances of `signature` to eight signatures (`vpxorq` + `vpopcntq` + `vpmovqw` with
/// AVX-512 VPOPCNTDQ; a nibble-table popcount with AVX2).
@_transparent func hamming(_ signature: SignatureVector, _ others: UnsafePointer<UInt64>) -> SIMD8<UInt16> {
    let x = UnsafeRawPointer(others).loadUnaligned(as: SignatureVector.self) ^ signature
    var r = SIMD8<UInt16>()
    for i in 0..<8 { r[i] = UInt16(truncatingIfNeeded: x[i].nonzeroBitCount) }
    return r
}

@inline(__always) func load(_ p: UnsafePointer<UInt16>) -> CostVector {
    UnsafeRawPointer(p).loadUnaligned(as: CostVector.self)
}

@inline(__always) func store(_ v: CostVector, _ p: UnsafeMutablePointer<UInt16>) {
    UnsafeMutableRawPointer(p).storeBytes(of: v, as: CostVector.self)
}

/// One semi-global aggregation step for 16 disparities: the cost plus the cheapest way to
/// arrive from the previous pixel on the path (same disparity, ±1 with `p1`, any with `p2`),
/// minus the previous minimum so values stay bounded by `cost + p2`.
@_transparent func pathStep(
    _ c: CostVector, _ prev: UnsafePointer<UInt16>, _ p1: CostVector, _ jump: CostVector, _ prevMin: CostVector
) -> CostVector {
    let same = load(prev)
    let step = minimum(load(prev - 1), load(prev + 1)) &+ p1
    return c &+ minimum(minimum(same, jump), step) &- prevMin
}

/// Semi-global matching over a band of rows of census signatures.
struct SemiGlobalAggregator {
    /// Processing width and height.
    let width: Int
    let height: Int
    /// Disparities searched (multiple of 16).
    let disparities: Int
    /// Small-step penalty.
    let p1: UInt16
    /// Large-jump penalty by |ΔI| along the path (`p2 · 8 / (8 + |ΔI|)`, at least p1 + 1).
    let p2Table: [UInt16]
    /// Include the diagonal paths.
    let diagonals: Bool
    /// Equiangular sub-pixel fit.
    let subpixel: Bool
    /// Left-right consistency.
    let leftRightCheck: Bool
    /// Uniqueness margin in percent.
    let uniqueness: Int

    /// Cost given to disparities that fall outside the right view (d > x).
    static let outsideCost: UInt16 = UInt16(CensusTransform.bitCount / 2)

    /// Matches `rows` in order (`rows` may run upwards, then the vertical paths come from
    /// below), writing the disparity in processing pixels (negative = invalid) and the
    /// confidence (0–255) of each pixel.
    ///
    /// Cost model per pixel, D disparities: D popcounts for the costs; per path and 16
    /// disparities 3 unaligned loads, 2 adds, 3 mins, 1 add + 1 sub, 1 store (≈ 11 vector ops;
    /// 5 paths ≈ 55 per 16 disparities); WTA ≈ 3 vector ops per 16; the right-view winners
    /// ≈ 6 vector ops per 16. Memory: one row of costs and sums (2 × W × D × 2 bytes) and the
    /// path rows, all in L2.
    func run(
        rows: StrideTo<Int>, left: UnsafePointer<UInt64>, right: UnsafePointer<UInt64>,
        luma: UnsafePointer<UInt8>, workspace ws: SemiGlobalWorkspace,
        disparity out: UnsafeMutablePointer<Float>, confidence conf: UnsafeMutablePointer<UInt8>
    ) {
        let w = width, D = disparities, vectors = D / 16
        ws.resetPaths(row: 0)
        ws.resetPaths(row: 1)
        let p1v = CostVector(repeating: p1)
        var prevRow = 0
        var previousY = -1
        let reciprocalStorage = Self.reciprocalTable
        reciprocalStorage.withUnsafeBufferPointer { r in p2Table.withUnsafeBufferPointer { p2t in
            let reciprocals = r.baseAddress!
            for y in rows {
                let curRow = 1 - prevRow
                let cl = left + y * w, cr = right + y * w
                let g = luma + y * w
                let gp = previousY >= 0 ? luma + previousY * w : g
                let cost = ws.cost, total = ws.total
                let vMinPrev = ws.stateMin(row: prevRow, path: 0), vMinCur = ws.stateMin(row: curRow, path: 0)
                let aMinPrev = ws.stateMin(row: prevRow, path: 1), aMinCur = ws.stateMin(row: curRow, path: 1)
                let bMinPrev = ws.stateMin(row: prevRow, path: 2), bMinCur = ws.stateMin(row: curRow, path: 2)
                var hPrev = ws.horizontal + 8, hCur = ws.horizontal + ws.slot + 8
                hPrev.update(repeating: 0, count: D)
                let reversed = ws.reversedRight
                for k in 0..<w { reversed[k] = cr[w - 1 - k] }
                var hMin: UInt16 = 0

                // Forward pass: costs, then left→right, vertical and diagonal paths.
                for x in 0..<w {
                    let c = cost + x * D
                    // Costs: the right view reversed makes pixel x's candidates x, x − 1, …
                    // consecutive, eight Hamming distances per vector.
                    let sig = SignatureVector(repeating: cl[x])
                    let candidates = reversed + (w - 1 - x)
                    for o in stride(from: 0, to: D, by: 8) {
                        UnsafeMutableRawPointer(c + o).storeBytes(
                            of: hamming(sig, candidates + o), as: SIMD8<UInt16>.self)
                    }
                    if x < D - 1 { for d in (x + 1)..<D { c[d] = Self.outsideCost } }

                    let gx = Int(g[x])
                    let p2h = p2t[abs(gx - Int(g[Swift.max(0, x - 1)]))]
                    let p2v = p2t[abs(gx - Int(gp[x]))]
                    let vPrev = ws.state(row: prevRow, path: 0, slot: x + 1)
                    let vCur = ws.state(row: curRow, path: 0, slot: x + 1)
                    let mh = CostVector(repeating: hMin), mv = CostVector(repeating: vMinPrev[x + 1])
                    let jh = CostVector(repeating: hMin &+ p2h), jv = CostVector(repeating: vMinPrev[x + 1] &+ p2v)
                    var accH = CostVector(repeating: .max), accV = accH
                    let s = total + x * D
                    if diagonals {
                        let p2a = p2t[abs(gx - Int(gp[Swift.max(0, x - 1)]))]
                        let p2b = p2t[abs(gx - Int(gp[Swift.min(w - 1, x + 1)]))]
                        let aPrev = ws.state(row: prevRow, path: 1, slot: x)
                        let aCur = ws.state(row: curRow, path: 1, slot: x + 1)
                        let bPrev = ws.state(row: prevRow, path: 2, slot: x + 2)
                        let bCur = ws.state(row: curRow, path: 2, slot: x + 1)
                        let ma = CostVector(repeating: aMinPrev[x]), mb = CostVector(repeating: bMinPrev[x + 2])
                        let ja = CostVector(repeating: aMinPrev[x] &+ p2a),
                            jb = CostVector(repeating: bMinPrev[x + 2] &+ p2b)
                        var accA = accH, accB = accH
                        for v in 0..<vectors {
                            let o = v * 16
                            let cv = load(c + o)
                            let lh = pathStep(cv, hPrev + o, p1v, jh, mh)
                            let lv = pathStep(cv, vPrev + o, p1v, jv, mv)
                            let la = pathStep(cv, aPrev + o, p1v, ja, ma)
                            let lb = pathStep(cv, bPrev + o, p1v, jb, mb)
                            store(lh, hCur + o); store(lv, vCur + o); store(la, aCur + o); store(lb, bCur + o)
                            store(lh &+ lv &+ la &+ lb, s + o)
                            accH = minimum(accH, lh); accV = minimum(accV, lv)
                            accA = minimum(accA, la); accB = minimum(accB, lb)
                        }
                        aMinCur[x + 1] = smallestLane(accA)
                        bMinCur[x + 1] = smallestLane(accB)
                    } else {
                        for v in 0..<vectors {
                            let o = v * 16
                            let cv = load(c + o)
                            let lh = pathStep(cv, hPrev + o, p1v, jh, mh)
                            let lv = pathStep(cv, vPrev + o, p1v, jv, mv)
                            store(lh, hCur + o); store(lv, vCur + o)
                            store(lh &+ lv, s + o)
                            accH = minimum(accH, lh); accV = minimum(accV, lv)
                        }
                    }
                    hMin = smallestLane(accH)
                    vMinCur[x + 1] = smallestLane(accV)
                    swap(&hPrev, &hCur)
                }

                // Backward pass: right→left path, total cost, winner-take-all.
                hPrev.update(repeating: 0, count: D)
                hMin = 0
                // Right-view winners (see `checkLeftRight`): right pixel xr sees cost S[xr + d][d];
                // indexed by k = w − 1 − xr, pixel x's D sums land on consecutive k = w − 1 − x + d.
                let rightKeys = ws.rightKeys
                let lr = leftRightCheck
                if lr { rightKeys.update(repeating: .max, count: w + D) }
                let lanes = KeyVector(0, 1, 2, 3, 4, 5, 6, 7), eight = KeyVector(repeating: 8)
                for x in stride(from: w - 1, through: 0, by: -1) {
                    let c = cost + x * D, s = total + x * D
                    let gx = Int(g[x])
                    let p2h = p2t[abs(gx - Int(g[Swift.min(w - 1, x + 1)]))]
                    let mh = CostVector(repeating: hMin), jh = CostVector(repeating: hMin &+ p2h)
                    var accH = CostVector(repeating: .max)
                    // Winner-take-all in the same sweep: the smallest `(sum << 8) | d` key.
                    var accK = KeyVector(repeating: .max)
                    var first = lanes
                    let k = rightKeys + (w - 1 - x)
                    for v in 0..<vectors {
                        let o = v * 16
                        let lh = pathStep(load(c + o), hPrev + o, p1v, jh, mh)
                        store(lh, hCur + o)
                        let t = load(s + o) &+ lh
                        store(t, s + o)
                        accH = minimum(accH, lh)
                        let low = keys(t.lowHalf, first: first), high = keys(t.highHalf, first: first &+ eight)
                        accK = minimum(accK, minimum(low, high))
                        if lr {
                            let kl = UnsafeMutableRawPointer(k + o), kh = UnsafeMutableRawPointer(k + o + 8)
                            kl.storeBytes(of: minimum(kl.loadUnaligned(as: KeyVector.self), low), as: KeyVector.self)
                            kh.storeBytes(of: minimum(kh.loadUnaligned(as: KeyVector.self), high), as: KeyVector.self)
                        }
                        first &+= KeyVector(repeating: 16)
                    }
                    hMin = smallestLane(accH)
                    swap(&hPrev, &hCur)
                    let key = smallestKey(accK)
                    decide(
                        x: x, y: y, sums: s, best: UInt16(truncatingIfNeeded: key >> 8), winner: Int(key & 0xFF),
                        ws: ws, reciprocals: reciprocals, out: out, conf: conf)
                }

                if lr { checkLeftRight(y: y, ws: ws, out: out, conf: conf) }
                prevRow = curRow
                previousY = y
            }
        } }
    }

    /// Winner-take-all at one pixel with uniqueness and sub-pixel refinement.
    /// Cost: D/16 compares to find the winner's index, D/16 masked mins for the runner-up.
    @inline(__always) func decide(
        x: Int, y: Int, sums s: UnsafeMutablePointer<UInt16>, best: UInt16, winner d: Int, ws: SemiGlobalWorkspace,
        reciprocals: UnsafePointer<Float>, out: UnsafeMutablePointer<Float>, conf: UnsafeMutablePointer<UInt8>
    ) {
        let D = disparities
        ws.winner[x] = Int32(d)
        // Runner-up among disparities that are not neighbours of the winner, in registers: lanes
        // with |d − winner| ≤ 1 get `(3 − min(d − winner + 1, 3)) · 0x5555` or-ed in (≥ 0x5555,
        // above any aggregated cost), others 0 — five vector ops, no select, no memory round trip.
        let near = CostVector(repeating: UInt16(truncatingIfNeeded: d &- 1))
        let three = CostVector(repeating: 3), spread = CostVector(repeating: 0x5555)
        var lane = CostVector(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
        var second = CostVector(repeating: .max)
        for v in 0..<(D / 16) {
            let hide = (three &- minimum(lane &- near, three)) &* spread
            second = minimum(second, load(s + v * 16) | hide)
            lane &+= CostVector(repeating: 16)
        }
        let runnerUp = Int(smallestLaneByHalves(second))
        let b = Int(best)
        let index = y * width + x
        if uniqueness > 0 && runnerUp * 100 < b * (100 + uniqueness) {
            out[index] = -1
            conf[index] = 0
            return
        }
        var value = Float(d)
        if subpixel && d > 0 && d < D - 1 {
            let c0 = Int(s[d - 1]), c2 = Int(s[d + 1])
            // Equiangular (V-shaped) fit: aggregated census costs are L1-like, and a parabola
            // pulls results towards whole pixels (pixel locking) far more.
            let denominator = Swift.max(c0, c2) - b
            if denominator > 0 {
                let offset = Float(c0 - c2) * 0.5 * Self.reciprocal(denominator, reciprocals)
                value += Swift.max(-0.5, Swift.min(0.5, offset))
            }
        }
        out[index] = value
        // Confidence: the runner-up's relative margin, 0 … 25 % mapped to 1 … 255.
        let margin = Float(runnerUp - b) * Self.reciprocal(Swift.max(1, b), reciprocals)
        conf[index] = UInt8(Swift.max(1, Int(Swift.min(255, margin * 4 * 255))))
    }

    /// 1 / k for k < 4096 (0 at k = 0): a multiply instead of a divide per pixel for the
    /// sub-pixel fit and the confidence (aggregated costs are rarely larger).
    static let reciprocalTable: [Float] = (0..<4096).map { $0 == 0 ? 0 : 1 / Float($0) }

    /// 1 / k from `table` when it is there, else by division.
    @inline(__always) static func reciprocal(_ k: Int, _ table: UnsafePointer<Float>) -> Float {
        k < 4096 ? table[k] : 1 / Float(k)
    }

    /// Marks pixels whose right-view winner disagrees by more than one disparity.
    ///
    /// Right-view winners come from the same sums: right pixel xr sees cost `S[xr + d][d]`.
    /// Indexing by `k = w − 1 − xr`, pixel x's D sums land on consecutive `k = w − 1 − x + d`,
    /// so one vector min per 8 disparities of packed `(cost << 8) | d` keys finds them all; the
    /// backward sweep of ``run`` fills those keys (`ws.rightKeys`) with the same keys it uses for
    /// the left winner, and this pass only compares. W + D keys of scratch.
    func checkLeftRight(
        y: Int, ws: SemiGlobalWorkspace, out: UnsafeMutablePointer<Float>, conf: UnsafeMutablePointer<UInt8>
    ) {
        let w = width
        let keys = ws.rightKeys
        let row = out + y * w, crow = conf + y * w
        for x in 0..<w where row[x] >= 0 {
            let d = Int(ws.winner[x])
            let xr = x - d
            if xr < 0 {
                row[x] = -1; crow[x] = 0
                continue
            }
            let dr = Int(keys[w - 1 - xr] & 0xFF)
            if abs(dr - d) > 1 { row[x] = -1; crow[x] = 0 }
        }
    }
}
