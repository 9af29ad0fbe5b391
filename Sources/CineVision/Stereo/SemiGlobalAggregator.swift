// SemiGlobalAggregator: the heart of the matcher — census Hamming costs, semi-global path
// aggregation with SIMD across disparities (32 UInt8 lanes), winner-take-all with uniqueness,
// equiangular sub-pixel, and the left-right check — one row at a time, so the cost volume never
// exists beyond one row.

/// Thirty-two disparities of path cost in bytes: one AVX2 register.
///
/// Bytes are enough: a census cost is at most 62 and a path value at most cost + P2 (P2 ≤ 192),
/// so every path value stays below the pad value 255.
typealias PathVector = SIMD32<UInt8>

/// Sixteen aggregated sums (UInt16 lanes).
typealias CostVector = SIMD16<UInt16>

// The helpers below are lane loops over 16-lane halves: LLVM turns each into one 256-bit
// instruction (`vpminub`, `vpermt2b`, `vpmovzxbw` …) even inside large loops, which it does not
// reliably do for 32-lane loops.

/// Lane-wise minimum (one `vpminub`).
@_transparent func minimum(_ a: PathVector, _ b: PathVector) -> PathVector {
    var l = a.lowHalf, h = a.highHalf
    for i in 0..<16 { l[i] = Swift.min(a.lowHalf[i], b.lowHalf[i]) }
    for i in 0..<16 { h[i] = Swift.min(a.highHalf[i], b.highHalf[i]) }
    return PathVector(lowHalf: l, highHalf: h)
}

/// The state one disparity lower: lane i holds `v[i − 1]`, lane 0 the last lane of `below`.
@_transparent func shiftedDown(_ v: PathVector, _ below: PathVector) -> PathVector {
    var l = v.lowHalf, h = v.highHalf
    l[0] = below.highHalf[15]
    for i in 1..<16 { l[i] = v.lowHalf[i - 1] }
    h[0] = v.lowHalf[15]
    for i in 1..<16 { h[i] = v.highHalf[i - 1] }
    return PathVector(lowHalf: l, highHalf: h)
}

/// The state one disparity higher: lane i holds `v[i + 1]`, lane 31 the first lane of `above`.
@_transparent func shiftedUp(_ v: PathVector, _ above: PathVector) -> PathVector {
    var l = v.lowHalf, h = v.highHalf
    for i in 0..<15 { l[i] = v.lowHalf[i + 1] }
    l[15] = v.highHalf[0]
    for i in 0..<15 { h[i] = v.highHalf[i + 1] }
    h[15] = above.lowHalf[0]
    return PathVector(lowHalf: l, highHalf: h)
}

/// Lanes 0 … 15 widened to UInt16 (one `vpmovzxbw`).
@_transparent func widenedLow(_ v: PathVector) -> CostVector {
    var r = CostVector()
    for i in 0..<16 { r[i] = UInt16(v.lowHalf[i]) }
    return r
}

/// Lanes 16 … 31 widened to UInt16.
@_transparent func widenedHigh(_ v: PathVector) -> CostVector {
    var r = CostVector()
    for i in 0..<16 { r[i] = UInt16(v.highHalf[i]) }
    return r
}

/// The smallest lane in every lane: the halves' minimum, then four shuffle-and-minimum steps.
/// Written as whole-vector steps, because LLVM turns a reduction to one scalar into a chain of
/// lane extracts.
@_transparent func allMinimum(_ v: PathVector) -> PathVector {
    var m = v.lowHalf
    for i in 0..<16 { m[i] = Swift.min(v.lowHalf[i], v.highHalf[i]) }
    var t = m
    for i in 0..<16 { t[i] = m[i ^ 8] }
    for i in 0..<16 { m[i] = Swift.min(m[i], t[i]) }
    for i in 0..<16 { t[i] = m[i ^ 4] }
    for i in 0..<16 { m[i] = Swift.min(m[i], t[i]) }
    for i in 0..<16 { t[i] = m[i ^ 2] }
    for i in 0..<16 { m[i] = Swift.min(m[i], t[i]) }
    for i in 0..<16 { t[i] = m[i ^ 1] }
    for i in 0..<16 { m[i] = Swift.min(m[i], t[i]) }
    return PathVector(lowHalf: m, highHalf: m)
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

/// Keys one lane up: lane i holds `v[i − 1]`, lane 0 the last lane of `below` (one `valignd`).
@_transparent func shiftedDown(_ v: KeyVector, _ below: KeyVector) -> KeyVector {
    KeyVector(below[7], v[0], v[1], v[2], v[3], v[4], v[5], v[6])
}

/// Lane-wise maximum of keys (one `vpmaxud`).
@_transparent func maximum(_ a: KeyVector, _ b: KeyVector) -> KeyVector {
    var r = a
    for i in 0..<8 { r[i] = Swift.max(a[i], b[i]) }
    return r
}

/// Keys for eight sums starting at disparity `first`: `(sum << 8) | (first + lane)`.
@_transparent func keys(_ sums: SIMD8<UInt16>, first: KeyVector) -> KeyVector {
    var r = first
    for i in 0..<8 { r[i] = UInt32(sums[i]) << 8 | first[i] }
    return r
}

/// Eight census signatures.
typealias SignatureVector = SIMD8<UInt64>

/// Hamming distances of `signature` to eight signatures (`vpxorq` + `vpopcntq` + `vpmovqb` with
/// AVX-512 VPOPCNTDQ; a nibble-table popcount with AVX2).
@_transparent func hamming(_ signature: SignatureVector, _ others: UnsafePointer<UInt64>) -> SIMD8<UInt8> {
    let x = UnsafeRawPointer(others).loadUnaligned(as: SignatureVector.self) ^ signature
    var r = SIMD8<UInt8>()
    for i in 0..<8 { r[i] = UInt8(truncatingIfNeeded: x[i].nonzeroBitCount) }
    return r
}

@inline(__always) func load(_ p: UnsafePointer<UInt8>) -> PathVector {
    UnsafeRawPointer(p).loadUnaligned(as: PathVector.self)
}

@inline(__always) func store(_ v: PathVector, _ p: UnsafeMutablePointer<UInt8>) {
    UnsafeMutableRawPointer(p).storeBytes(of: v, as: PathVector.self)
}

@inline(__always) func load(_ p: UnsafePointer<UInt16>) -> CostVector {
    UnsafeRawPointer(p).loadUnaligned(as: CostVector.self)
}

@inline(__always) func load(_ p: UnsafePointer<UInt32>) -> KeyVector {
    UnsafeRawPointer(p).loadUnaligned(as: KeyVector.self)
}

@inline(__always) func store(_ v: KeyVector, _ p: UnsafeMutablePointer<UInt32>) {
    UnsafeMutableRawPointer(p).storeBytes(of: v, as: KeyVector.self)
}

@inline(__always) func store(_ v: CostVector, _ p: UnsafeMutablePointer<UInt16>) {
    UnsafeMutableRawPointer(p).storeBytes(of: v, as: CostVector.self)
}

/// One semi-global aggregation step for 32 disparities: the cost plus the cheapest way to
/// arrive from the previous pixel on the path — the same disparity, ±1 with P1 (`down`, `up`:
/// the previous state shifted by one disparity), or any with P2 — minus the previous minimum
/// `prevMin` (m), so that values stay bounded by cost + P2:
///
///     T = min(prev, min(min(down, up), 255 − P1) + P1)
///     L = c + min(T − m, P2)
///
/// which equals the textbook `c + min(prev, down + P1, up + P1, m + P2) − m` but never leaves
/// the byte range (`cap` is 255 − P1: a neighbour above it cannot beat `prev` ≤ 254 anyway).
/// T does not depend on m, so along a horizontal path — where m is the previous step's
/// reduction, the longest link of the chain — only three operations wait for it.
@_transparent func pathStep(
    _ c: PathVector, _ prev: PathVector, _ down: PathVector, _ up: PathVector, _ p1: PathVector,
    _ cap: PathVector, _ p2: PathVector, _ prevMin: PathVector
) -> PathVector {
    let t = minimum(prev, minimum(minimum(down, up), cap) &+ p1)
    return c &+ minimum(t &- prevMin, p2)
}

/// ``pathStep(_:_:_:_:_:_:_:_:)`` along a path whose previous state was stored a pixel
/// earlier (vertical and diagonal paths: the previous row), read with unaligned loads at ±1.
@_transparent func pathStep(
    _ c: PathVector, _ prev: UnsafePointer<UInt8>, _ p1: PathVector, _ cap: PathVector, _ p2: PathVector,
    _ prevMin: PathVector
) -> PathVector {
    pathStep(c, load(prev), load(prev - 1), load(prev + 1), p1, cap, p2, prevMin)
}

/// Semi-global matching over a band of rows of census signatures.
struct SemiGlobalAggregator {
    /// Processing width and height.
    let width: Int
    let height: Int
    /// Disparities searched (a multiple of 32).
    let disparities: Int
    /// Small-step penalty.
    let p1: UInt8
    /// Large-jump penalty by |ΔI| along the path (`p2 · 8 / (8 + |ΔI|)`, at least p1 + 1).
    let p2Table: [UInt8]
    /// Include the diagonal paths.
    let diagonals: Bool
    /// Equiangular sub-pixel fit.
    let subpixel: Bool
    /// Left-right consistency.
    let leftRightCheck: Bool
    /// Uniqueness margin in percent.
    let uniqueness: Int

    /// Cost given to disparities that fall outside the right view (d > x).
    static let outsideCost = UInt8(CensusTransform.bitCount / 2)

    /// The largest P2 that keeps path values in a byte below the pad (cost + P2 < 255).
    static let largestP2 = 254 - CensusTransform.bitCount

    /// An aggregator; `p2Table` holds P2 by |ΔI| (each in p1 + 1 … ``largestP2``).
    init(
        width: Int, height: Int, disparities: Int, p1: Int, p2Table: [UInt8], diagonals: Bool, subpixel: Bool,
        leftRightCheck: Bool, uniqueness: Int
    ) {
        precondition(disparities % 32 == 0 && p2Table.allSatisfy { Int($0) > p1 && Int($0) <= Self.largestP2 })
        self.width = width
        self.height = height
        self.disparities = disparities
        self.p1 = UInt8(p1)
        self.p2Table = p2Table
        self.diagonals = diagonals
        self.subpixel = subpixel
        self.leftRightCheck = leftRightCheck
        self.uniqueness = uniqueness
    }

    /// Matches `rows` in order (`rows` may run upwards, then the vertical paths come from
    /// below), writing the disparity in processing pixels (negative = invalid) and the
    /// confidence (0–255) of each pixel.
    ///
    /// Each row takes three passes, so that no pass waits on a long chain of dependent
    /// instructions:
    /// 1. Costs: D Hamming distances per pixel, eight per vector (`vpxorq` + `vpopcntq`).
    /// 2. Paths: pixel x's forward paths (left→right, vertical, diagonals) and pixel w − 1 − x's
    ///    right→left path in the same iteration. The two horizontal paths are chains from
    ///    pixel to pixel; interleaved, each hides the other's latency. Their previous state is
    ///    reloaded whole (store-to-load forwarding works) and the ±1-disparity neighbours come
    ///    from register shuffles, not from unaligned reloads of a just-written vector.
    /// 3. Decisions: sums, winner-take-all with the runner-up for uniqueness (the two smallest
    ///    keys per lane, then 8 pixels at a time), the right-view keys for the left-right check,
    ///    sub-pixel and confidence in a branch-free vector loop.
    ///
    /// Each pass is its own `@inline(never)` function on purpose: with all three inlined into
    /// one loop nest, LLVM stopped turning the lane loops into vector instructions and the
    /// matcher ran 35–100× slower.
    ///
    /// Cost per pixel and 32 disparities: 4 popcount vectors; per path ≈ 7 vector ops and a
    /// minimum; the forward sums ≈ 3 per path; decisions ≈ 40. Memory: the byte costs and backward path, the
    /// forward sums (4 × W × D bytes) and the path rows, all in L2.
    func run(
        rows: StrideTo<Int>, left: UnsafePointer<UInt64>, right: UnsafePointer<UInt64>,
        luma: UnsafePointer<UInt8>, workspace ws: SemiGlobalWorkspace,
        disparity out: UnsafeMutablePointer<Float>, confidence conf: UnsafeMutablePointer<UInt8>
    ) {
        ws.resetPaths(row: 0)
        ws.resetPaths(row: 1)
        var prevRow = 0
        var previousY = -1
        p2Table.withUnsafeBufferPointer { p2t in
            for y in rows {
                let curRow = 1 - prevRow
                costs(left: left + y &* width, right: right + y &* width, ws: ws)
                paths(
                    luma: luma + y &* width, previous: luma + (previousY >= 0 ? previousY : y) &* width,
                    prevRow: prevRow, curRow: curRow, p2Table: p2t.baseAddress!, ws: ws)
                decisions(y: y, ws: ws, out: out, conf: conf)
                prevRow = curRow
                previousY = y
            }
        }
    }

    /// Pass 1 of a row: the costs of every pixel and disparity.
    @inline(never) func costs(left cl: UnsafePointer<UInt64>, right cr: UnsafePointer<UInt64>, ws: SemiGlobalWorkspace) {
        let w = width, D = disparities, cost = ws.cost
        // 1. Costs: the right view reversed makes pixel x's candidates x, x − 1, …
        // consecutive, eight Hamming distances per vector.
        let reversed = ws.reversedRight
        for k in 0..<w { reversed[k] = cr[w &- 1 &- k] }
        for x in 0..<w {
            let c = cost + x &* D
            let sig = SignatureVector(repeating: cl[x])
            let candidates = reversed + (w &- 1 &- x)
            for o in stride(from: 0, to: D, by: 8) {
                UnsafeMutableRawPointer(c + o).storeBytes(of: hamming(sig, candidates + o), as: SIMD8<UInt8>.self)
            }
            if x < D &- 1 { (c + (x &+ 1)).update(repeating: Self.outsideCost, count: D &- 1 &- x) }
        }

    }

    /// Pass 2 of a row: every path; `luma` and `previous` are the row's and the previous row's
    /// luma (for P2), `prevRow`/`curRow` the path-state buffers.
    @inline(never) func paths(
        luma g: UnsafePointer<UInt8>, previous gp: UnsafePointer<UInt8>, prevRow: Int, curRow: Int,
        p2Table p2t: UnsafePointer<UInt8>, ws: SemiGlobalWorkspace
    ) {
        let w = width, D = disparities, vectors = D / 32, slot = ws.slot
        let cost = ws.cost, total = ws.total, back = ws.back
        let p1 = self.p1, p1v = PathVector(repeating: p1), padV = PathVector(repeating: SemiGlobalWorkspace.pad)
        let cap = PathVector(repeating: 255 &- p1)
        // P2 by |ΔI|.
        func jump(_ a: UInt8, _ b: UInt8) -> PathVector {
            PathVector(repeating: p2t[Int(a > b ? a &- b : b &- a)])
        }
        // 2. Paths: forward at x, right→left at w − 1 − x. Path states of pixel x sit
        // in slot x + 1 of their row buffer (slots 0 and w + 1 stay zero: the diagonal
        // paths start afresh at the borders).
        let vPrev = ws.state(row: prevRow, path: 0), vCur = ws.state(row: curRow, path: 0)
        let aPrev = ws.state(row: prevRow, path: 1), aCur = ws.state(row: curRow, path: 1)
        let bPrev = ws.state(row: prevRow, path: 2), bCur = ws.state(row: curRow, path: 2)
        let vMinPrev = ws.stateMin(row: prevRow, path: 0), vMinCur = ws.stateMin(row: curRow, path: 0)
        let aMinPrev = ws.stateMin(row: prevRow, path: 1), aMinCur = ws.stateMin(row: curRow, path: 1)
        let bMinPrev = ws.stateMin(row: prevRow, path: 2), bMinCur = ws.stateMin(row: curRow, path: 2)
        var fPrev = ws.horizontal(0), fCur = ws.horizontal(1)
        var rPrev = ws.horizontal(2), rCur = ws.horizontal(3)
        fPrev.update(repeating: 0, count: D)
        rPrev.update(repeating: 0, count: D)
        var mh = PathVector(), mr = PathVector()
        for x in 0..<w {
            let c = cost + x &* D
            let gx = g[x]
            let jh = jump(gx, g[Swift.max(0, x &- 1)]), jv = jump(gx, gp[x])
            let mv = PathVector(repeating: vMinPrev[x &+ 1])
            var accH = padV, accV = padV
            let s = total + x &* D
            let vp = vPrev + (x &+ 1) &* slot, vc = vCur + (x &+ 1) &* slot
            var hl = padV, hc = load(fPrev)
            if diagonals {
                let ja = jump(gx, gp[Swift.max(0, x &- 1)]), jb = jump(gx, gp[Swift.min(w &- 1, x &+ 1)])
                let ap = aPrev + x &* slot, ac = aCur + (x &+ 1) &* slot
                let bp = bPrev + (x &+ 2) &* slot, bc = bCur + (x &+ 1) &* slot
                let ma = PathVector(repeating: aMinPrev[x]), mb = PathVector(repeating: bMinPrev[x &+ 2])
                var accA = padV, accB = padV
                for v in 0..<vectors {
                    let o = v &* 32
                    let cv = load(c + o)
                    let hr = load(fPrev + o + 32)
                    let lh = pathStep(cv, hc, shiftedDown(hc, hl), shiftedUp(hc, hr), p1v, cap, jh, mh)
                    hl = hc; hc = hr
                    let lv = pathStep(cv, vp + o, p1v, cap, jv, mv)
                    let la = pathStep(cv, ap + o, p1v, cap, ja, ma)
                    let lb = pathStep(cv, bp + o, p1v, cap, jb, mb)
                    store(lh, fCur + o); store(lv, vc + o); store(la, ac + o); store(lb, bc + o)
                    store(widenedLow(lh) &+ widenedLow(lv) &+ widenedLow(la) &+ widenedLow(lb), s + o)
                    store(widenedHigh(lh) &+ widenedHigh(lv) &+ widenedHigh(la) &+ widenedHigh(lb), s + o + 16)
                    accH = minimum(accH, lh); accV = minimum(accV, lv)
                    accA = minimum(accA, la); accB = minimum(accB, lb)
                }
                aMinCur[x &+ 1] = allMinimum(accA)[0]
                bMinCur[x &+ 1] = allMinimum(accB)[0]
            } else {
                for v in 0..<vectors {
                    let o = v &* 32
                    let cv = load(c + o)
                    let hr = load(fPrev + o + 32)
                    let lh = pathStep(cv, hc, shiftedDown(hc, hl), shiftedUp(hc, hr), p1v, cap, jh, mh)
                    hl = hc; hc = hr
                    let lv = pathStep(cv, vp + o, p1v, cap, jv, mv)
                    store(lh, fCur + o); store(lv, vc + o)
                    store(widenedLow(lh) &+ widenedLow(lv), s + o)
                    store(widenedHigh(lh) &+ widenedHigh(lv), s + o + 16)
                    accH = minimum(accH, lh); accV = minimum(accV, lv)
                }
            }
            mh = allMinimum(accH)
            vMinCur[x &+ 1] = allMinimum(accV)[0]
            swap(&fPrev, &fCur)

            // The right→left path at xr.
            let xr = w &- 1 &- x
            let cb = cost + xr &* D
            let gr = g[xr]
            let jr = jump(gr, g[Swift.min(w &- 1, xr &+ 1)])
            var accR = padV
            var rl = padV, rc = load(rPrev)
            let sr = back + xr &* D
            for v in 0..<vectors {
                let o = v &* 32
                let rr = load(rPrev + o + 32)
                let lr = pathStep(load(cb + o), rc, shiftedDown(rc, rl), shiftedUp(rc, rr), p1v, cap, jr, mr)
                rl = rc; rc = rr
                store(lr, rCur + o)
                store(lr, sr + o)
                accR = minimum(accR, lr)
            }
            mr = allMinimum(accR)
            swap(&rPrev, &rCur)
        }

    }

    /// Pass 3 of a row: the decisions and the right-view keys, in three loops.
    ///
    /// 1. Per pixel, in vectors: the two smallest keys of each lane (lane i sees disparities
    ///    i, i + 8, …) and the right-view keys for the left-right check.
    /// 2. Per group of 8 pixels: the winners as one vector (lane j: pixel j's smallest key, by
    ///    a transposing minimum of the 8 pixels' lane minima, see ``laneMinima(_:)``), then each
    ///    pixel's runner-up offers (see ``offers(_:_:_:)``) and their transposing minimum.
    /// 3. Per pixel, without branches (see ``finish(ws:row:confidence:)``): uniqueness, the
    ///    left-right check, sub-pixel and confidence.
    ///
    /// No step reduces a vector to one scalar: LLVM turns such reductions into chains of lane
    /// extracts, and per-pixel branches mispredict on every invalid pixel.
    @inline(never) func decisions(
        y: Int, ws: SemiGlobalWorkspace, out: UnsafeMutablePointer<Float>, conf: UnsafeMutablePointer<UInt8>
    ) {
        let w = width, D = disparities, vectors = D / 32
        let total = ws.total, back = ws.back
        // Right-view winners: right pixel xr = x − d sees cost S[x][d]. Indexed by
        // k = w − 1 − xr, pixel x's keys go to k = w − 1 − x + d. A window of D keys follows
        // the pixels: lane j holds k = w − 1 − x + j, so pixel x's key for d goes to lane d,
        // and moving on a pixel shifts the window up by one lane. Its top lane is then final
        // and is stored (with the 7 lanes below it, which later pixels overwrite); the
        // window itself stays at one address, so no load waits on a half-overlapping store.
        let rightKeys = ws.rightKeys, window = ws.rightWindow
        let bests = ws.bestKeys, seconds = ws.secondKeys, winners = ws.winnerKeys
        let lr = leftRightCheck
        if lr { window.update(repeating: .max, count: D) }
        let lanes = KeyVector(0, 1, 2, 3, 4, 5, 6, 7)
        for x in 0..<w {
            let s = total + x &* D, sb = back + x &* D
            var best = KeyVector(repeating: .max), second = best
            var first = lanes, carry = best
            for v in 0..<vectors {
                let o = v &* 32
                let rb = load(sb + o)
                Self.collect(load(s + o) &+ widenedLow(rb), window + o, lr, &carry, &first, &best, &second)
                Self.collect(load(s + o + 16) &+ widenedHigh(rb), window + o + 16, lr, &carry, &first, &best, &second)
            }
            if lr {
                let top: KeyVector = load(window + (D &- 8))
                store(top, rightKeys + (w &- 1 &- x &+ D &- 8))
            }
            store(best, bests + x &* 8)
            store(second, seconds + x &* 8)
        }
        if lr { rightKeys.update(from: window, count: D) }

        let runnersUp = ws.runnerUpKeys
        for x0 in stride(from: 0, to: w, by: 8) {
            let b = bests + x0 &* 8, s = seconds + x0 &* 8
            let winner = Self.laneMinima(b)
            store(winner, winners + x0)
            for j in 0..<8 {
                let o = j &* 8
                store(Self.offers(load(b + o), load(s + o), KeyVector(repeating: winners[x0 &+ j])), s + o)
            }
            store(Self.laneMinima(s), runnersUp + x0)
        }
        finish(ws: ws, row: out + y &* w, confidence: conf + y &* w)
    }

    /// The decisions of one row from every pixel's winner and runner-up keys: invalid (−1,
    /// confidence 0) when the runner-up is not `uniqueness` percent dearer or the right view's
    /// winner at x − d is more than one disparity away; else the disparity with the
    /// equiangular sub-pixel offset, and the confidence from the runner-up's margin.
    ///
    /// Two loops: the first gathers what each pixel's winner points at (the sums at d ± 1,
    /// the right view's winner at x − d); the second reads only contiguous arrays and has no
    /// branches (every test is a select), so the loop vectorizer runs it 8 pixels at a time
    /// and an invalid pixel costs no misprediction.
    @inline(never) func finish(ws: SemiGlobalWorkspace, row: UnsafeMutablePointer<Float>, confidence crow: UnsafeMutablePointer<UInt8>) {
        let w = width, D = disparities, total = ws.total, back = ws.back, rightKeys = ws.rightKeys
        let winners = ws.winnerKeys, runnersUp = ws.runnerUpKeys
        let below = ws.belowSums, above = ws.aboveSums, rightWinners = ws.rightWinners
        let last = D &- 1
        for x in 0..<w {
            let d = Int(winners[x] & 0xFF), o = x &* D &+ Swift.min(Swift.max(d, 1), last &- 1)
            below[x] = Int32(total[o &- 1]) &+ Int32(back[o &- 1])
            above[x] = Int32(total[o &+ 1]) &+ Int32(back[o &+ 1])
            rightWinners[x] = Int32(truncatingIfNeeded: rightKeys[w &- 1 &- x &+ d] & 0xFF)
        }
        let u = Int32(uniqueness), top = Int32(last)
        let lr: Int32 = leftRightCheck ? 1 : 0, fitting: Int32 = subpixel ? 1 : 0
        // Tests are 0/1 integers combined with & and |: `&&` and `||` would branch.
        for x in 0..<w {
            let key = winners[x]
            let d = Int32(truncatingIfNeeded: key & 0xFF), b = Int32(truncatingIfNeeded: key &>> 8)
            let r = Int32(truncatingIfNeeded: runnersUp[x] &>> 8)
            // Uniqueness: the runner-up must cost `uniqueness` percent more than the winner
            // (never true at 0: the runner-up costs at least as much as the winner).
            let notUnique: Int32 = r &* 100 < b &* (100 &+ u) ? 1 : 0
            // The left-right check: the right view's winner at x − d within one disparity.
            let difference = rightWinners[x] &- d
            let outside: Int32 = Int32(truncatingIfNeeded: x) &- d < 0 ? 1 : 0
            let inconsistent: Int32 = difference > 1 || difference < -1 ? 1 : 0
            let bad = (notUnique | (lr & (outside | inconsistent))) != 0
            // Equiangular (V-shaped) sub-pixel fit: aggregated census costs are L1-like, and a
            // parabola pulls results towards whole pixels (pixel locking) far more.
            let c0 = below[x], c2 = above[x]
            let denominator = Swift.max(c0, c2) &- b
            let inside: Int32 = d > 0 ? 1 : 0, under: Int32 = d < top ? 1 : 0, sloped: Int32 = denominator > 0 ? 1 : 0
            let fit = (fitting & inside & under & sloped) != 0
            let offset = Float(c0 &- c2) * 0.5 * (1 / Float(fit ? denominator : 1))
            let value = Float(d) + (fit ? Swift.max(-0.5, Swift.min(0.5, offset)) : 0)
            // Confidence: the runner-up's relative margin, 0 … 25 % mapped to 1 … 255, truncated
            // via the bits of 2²³ + value (exact below 2²³, no checked conversion).
            let margin = Float(r &- b) * (1 / Float(Swift.max(1, b)))
            let whole = Swift.max(0, Swift.min(255, margin * 4 * 255)).rounded(.towardZero) + 8_388_608
            let level = Swift.max(1, UInt8(truncatingIfNeeded: whole.bitPattern))
            row[x] = bad ? -1 : value
            crow[x] = bad ? 0 : level
        }
    }

    /// Lane j of the result: the smallest of the 8 lanes of the j-th of the 8 key vectors at
    /// `p` — a transposing reduction of 7 minima and 14 shuffles for 8 pixels, where a
    /// reduction per pixel takes 3 minima and a broadcast each.
    @_transparent static func laneMinima(_ p: UnsafePointer<UInt32>) -> KeyVector {
        // Pairs of lanes, then quads, then halves; each step halves the lanes per vector
        // and doubles the vectors per result.
        func pairs(_ a: KeyVector, _ b: KeyVector) -> KeyVector {
            minimum(
                KeyVector(a[0], b[0], a[2], b[2], a[4], b[4], a[6], b[6]),
                KeyVector(a[1], b[1], a[3], b[3], a[5], b[5], a[7], b[7]))
        }
        func quads(_ p: KeyVector, _ q: KeyVector) -> KeyVector {
            minimum(
                KeyVector(p[0], p[1], q[0], q[1], p[4], p[5], q[4], q[5]),
                KeyVector(p[2], p[3], q[2], q[3], p[6], p[7], q[6], q[7]))
        }
        func halves(_ s: KeyVector, _ t: KeyVector) -> KeyVector {
            minimum(
                KeyVector(s[0], s[1], s[2], s[3], t[0], t[1], t[2], t[3]),
                KeyVector(s[4], s[5], s[6], s[7], t[4], t[5], t[6], t[7]))
        }
        return halves(
            quads(pairs(load(p), load(p + 8)), pairs(load(p + 16), load(p + 24))),
            quads(pairs(load(p + 32), load(p + 40)), pairs(load(p + 48), load(p + 56))))
    }

    /// What each lane offers for the runner-up: the cheapest disparity that is not the winner
    /// or its neighbour. The three excluded disparities fall in three different lanes
    /// (lane = d mod 8), so a lane whose best key is excluded offers its second key, which is
    /// not. `winner` holds the winner's key in every lane.
    @_transparent static func offers(_ best: KeyVector, _ second: KeyVector, _ winner: KeyVector) -> KeyVector {
        // Lanes whose best disparity e has e − d + 1 in 0 … 2 offer their second key; the mask
        // is the sign of (δ − 3) & ~δ, spread by an arithmetic shift (no select).
        var offer = best
        for i in 0..<8 {
            let delta = Int32(bitPattern: (best[i] & 0xFF) &- (winner[i] & 0xFF) &+ 1)
            let mask = UInt32(bitPattern: ((delta &- 3) & ~delta) >> 31)
            offer[i] = best[i] ^ ((best[i] ^ second[i]) & mask)
        }
        return offer
    }

    /// Takes 16 sums of disparities `first`, `first + 1`, … into the two smallest keys per
    /// lane (`best`, `second`) and, with the left-right check, into the right-view window at
    /// `window` (shifted up by one lane on the way; `carry` is the window vector below).
    @_transparent static func collect(
        _ t: CostVector, _ window: UnsafeMutablePointer<UInt32>, _ lr: Bool, _ carry: inout KeyVector,
        _ first: inout KeyVector, _ best: inout KeyVector, _ second: inout KeyVector
    ) {
        let low = keys(t.lowHalf, first: first), high = keys(t.highHalf, first: first &+ KeyVector(repeating: 8))
        let m = minimum(low, high), M = maximum(low, high)
        second = minimum(maximum(best, m), minimum(second, M))
        best = minimum(best, m)
        if lr {
            let a = load(window), b = load(window + 8)
            store(minimum(shiftedDown(a, carry), low), window)
            store(minimum(shiftedDown(b, a), high), window + 8)
            carry = b
        }
        first &+= KeyVector(repeating: 16)
    }
}
