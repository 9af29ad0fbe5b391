// CascadeWindowEvaluator: runs a cascade on one window of one pyramid level — OpenCV's
// setWindow (variance normalisation) and predictOrdered / predictCategorical, over
// precomputed integral-image offsets.

/// Evaluates the stages of a cascade at window positions of one pyramid level.
///
/// Holds per-level offset tables (allocated once per level, freed by ``release()``); the inner
/// loop does no allocation and no bounds checks.
struct CascadeWindowEvaluator {
    let kind: CascadeClassifier.FeatureKind
    let winW: Int32, winH: Int32
    let sum: UnsafePointer<Int32>
    let sq: UnsafePointer<UInt32>
    let stride: Int
    /// Haar: 12 offsets per feature (3 rects × 4 corners), relative to the window's top-left entry
    /// in `sum` (tilted rects are offset into the tilted table that follows it). LBP: 16 grid corners.
    let offsets: UnsafeMutablePointer<Int>
    let weights: UnsafePointer<Float>
    let normOffsets: (Int, Int, Int, Int)
    /// Haar stump cascades: per weak classifier its 12 rectangle offsets, contiguous in
    /// evaluation order (empty otherwise).
    let stumpOffsets: UnsafeMutablePointer<Int32>
    /// Per weak classifier: weight×3, threshold, left leaf, right leaf.
    let stumpValues: UnsafeMutablePointer<Float>
    /// Exclusive end (weak index) of each stage.
    let stageEnd: UnsafeMutablePointer<Int32>
    let useStumps: Bool
    let area: Double
    let stages: Int
    let stageThreshold: UnsafePointer<Float>
    let stageFirstWeak: UnsafePointer<Int32>
    let stageWeakCount: UnsafePointer<Int32>
    let weakFirstNode: UnsafePointer<Int32>
    let weakFirstLeaf: UnsafePointer<Int32>
    let nodeFeature: UnsafePointer<Int32>
    let nodeThreshold: UnsafePointer<Float>
    let nodeLeft: UnsafePointer<Int32>
    let nodeRight: UnsafePointer<Int32>
    let nodeSubset: UnsafePointer<Int32>
    let leaves: UnsafePointer<Float>
    /// Keeps the model arrays (which the pointers above point into) alive.
    private let model: CascadeModelBuffers

    init(classifier c: CascadeClassifier, model: CascadeModelBuffers, integral: IntegralImage) {
        kind = c.featureKind
        winW = Int32(c.windowWidth)
        winH = Int32(c.windowHeight)
        sum = UnsafePointer(integral.sum.baseAddress!)
        sq = integral.squaredSum.isEmpty  // never read for LBP
            ? UnsafeRawPointer(integral.sum.baseAddress!).assumingMemoryBound(to: UInt32.self)
            : UnsafePointer(integral.squaredSum.baseAddress!)
        stride = integral.stride
        let st = integral.stride
        self.model = model
        stageThreshold = UnsafePointer(model.floats[0].baseAddress!)
        nodeThreshold = UnsafePointer(model.floats[1].baseAddress!)
        leaves = UnsafePointer(model.floats[2].baseAddress!)
        weights = UnsafePointer(model.floats[3].baseAddress!)
        stageFirstWeak = UnsafePointer(model.ints[0].baseAddress!)
        stageWeakCount = UnsafePointer(model.ints[1].baseAddress!)
        weakFirstNode = UnsafePointer(model.ints[2].baseAddress!)
        weakFirstLeaf = UnsafePointer(model.ints[3].baseAddress!)
        nodeFeature = UnsafePointer(model.ints[4].baseAddress!)
        nodeLeft = UnsafePointer(model.ints[5].baseAddress!)
        nodeRight = UnsafePointer(model.ints[6].baseAddress!)
        nodeSubset = UnsafePointer(model.ints[7].baseAddress!)
        stages = c.stageCount
        let nf = c.featureCount
        if c.featureKind == .haar {
            offsets = .allocate(capacity: max(1, 12 * nf))
            let tofs = integral.tiltedOffset
            for f in 0..<nf {
                for k in 0..<3 {
                    let x = Int(c.featureRects[12 * f + 4 * k]), y = Int(c.featureRects[12 * f + 4 * k + 1])
                    let w = Int(c.featureRects[12 * f + 4 * k + 2]), h = Int(c.featureRects[12 * f + 4 * k + 3])
                    let o = offsets + 12 * f + 4 * k
                    if c.featureTilted[f] {
                        o[0] = tofs + x + st * y
                        o[1] = tofs + x - h + st * (y + h)
                        o[2] = tofs + x + w + st * (y + w)
                        o[3] = tofs + x + w - h + st * (y + w + h)
                    } else {
                        o[0] = x + st * y
                        o[1] = x + w + st * y
                        o[2] = x + st * (y + h)
                        o[3] = x + w + st * (y + h)
                    }
                }
            }
        } else {
            offsets = .allocate(capacity: max(1, 16 * nf))
            for f in 0..<nf {
                let x = Int(c.featureRects[4 * f]), y = Int(c.featureRects[4 * f + 1])
                let w = Int(c.featureRects[4 * f + 2]), h = Int(c.featureRects[4 * f + 3])
                for i in 0..<4 {
                    for j in 0..<4 { offsets[16 * f + 4 * i + j] = (x + j * w) + st * (y + i * h) }
                }
            }
        }
        useStumps = c.isStumpBased
        let nweak = useStumps ? c.weakFirstNode.count : 0
        // Haar: 12 offsets + 6 floats per stump; LBP: 16 offsets + 8 subset words, 2 leaves.
        let per = c.featureKind == .haar ? 12 : 24
        stumpOffsets = .allocate(capacity: max(1, per * nweak))
        stumpValues = .allocate(capacity: max(1, 6 * nweak))
        stageEnd = .allocate(capacity: max(1, c.stageCount))
        for s in 0..<c.stageCount { stageEnd[s] = c.stageFirstWeak[s] + c.stageWeakCount[s] }
        for w in 0..<nweak where c.featureKind == .lbp {
            let node = Int(c.weakFirstNode[w]), f = Int(c.nodeFeature[node]), leaf = Int(c.weakFirstLeaf[w])
            for k in 0..<16 { stumpOffsets[24 * w + k] = Int32(offsets[16 * f + k]) }
            for k in 0..<8 { stumpOffsets[24 * w + 16 + k] = c.nodeSubset[8 * node + k] }
            stumpValues[6 * w + 4] = c.leaves[leaf - Int(c.nodeLeft[node])]
            stumpValues[6 * w + 5] = c.leaves[leaf - Int(c.nodeRight[node])]
        }
        for w in 0..<nweak where c.featureKind == .haar {
            let node = Int(c.weakFirstNode[w]), f = Int(c.nodeFeature[node]), leaf = Int(c.weakFirstLeaf[w])
            for k in 0..<12 { stumpOffsets[12 * w + k] = Int32(offsets[12 * f + k]) }
            for k in 0..<3 { stumpValues[6 * w + k] = c.featureWeights[3 * f + k] }
            stumpValues[6 * w + 3] = c.nodeThreshold[node]
            // Stumps: left/right children are −leaf indices (0 and −1).
            stumpValues[6 * w + 4] = c.leaves[leaf - Int(c.nodeLeft[node])]
            stumpValues[6 * w + 5] = c.leaves[leaf - Int(c.nodeRight[node])]
        }
        let nx = 1, ny = 1, nw = c.windowWidth - 2, nh = c.windowHeight - 2
        normOffsets = (nx + st * ny, nx + nw + st * ny, nx + st * (ny + nh), nx + nw + st * (ny + nh))
        area = Double(nw * nh)
    }

    /// Frees the per-level tables.
    func release() {
        offsets.deallocate()
        stumpOffsets.deallocate()
        stumpValues.deallocate()
        stageEnd.deallocate()
    }

    /// 1 if every stage accepts the window at (x, y); otherwise −(index of the rejecting stage)
    /// (0 when the first stage rejects, which makes the scan skip a position, as OpenCV does),
    /// or −1 for a flat (low-variance) Haar window.
    /// Cost: per weak classifier ≈ 8–12 random 4-byte loads (2–3 rectangles) + 6 flops.
    @inline(__always)
    func run(x: Int, y: Int) -> Int {
        let p = sum + (x + stride * y)
        if kind == .lbp { return useStumps ? runLBPStumps(p) : runLBP(p) }
        let q = sq + (x + stride * y)
        let (n0, n1, n2, n3) = normOffsets
        let vs = p[n0] &- p[n1] &- p[n2] &+ p[n3]
        let vq = q[n0] &- q[n1] &- q[n2] &+ q[n3]
        var nf = area * Double(vq) - Double(vs) * Double(vs)
        guard nf > 0 else { return -1 }
        nf = nf.squareRoot()
        let norm = Float(1 / nf)
        guard area * Double(norm) < 0.1 else { return -1 }
        if useStumps { return runStumps(p, norm: norm) }
        for s in 0..<stages {
            var total = 0.0
            let first = Int(stageFirstWeak[s]), end = first + Int(stageWeakCount[s])
            for w in first..<end {
                var node = Int(weakFirstNode[w])
                let root = node
                var idx: Int32
                repeat {
                    let f = Int(nodeFeature[node])
                    let o = offsets + 12 * f
                    let wt = weights + 3 * f
                    var v = wt[0] * Float(p[o[0]] &- p[o[1]] &- p[o[2]] &+ p[o[3]])
                        + wt[1] * Float(p[o[4]] &- p[o[5]] &- p[o[6]] &+ p[o[7]])
                    if wt[2] != 0 { v += wt[2] * Float(p[o[8]] &- p[o[9]] &- p[o[10]] &+ p[o[11]]) }
                    v *= norm
                    idx = v < nodeThreshold[node] ? nodeLeft[node] : nodeRight[node]
                    node = root + Int(idx)
                } while idx > 0
                total += Double(leaves[Int(weakFirstLeaf[w]) - Int(idx)])
            }
            if total < Double(stageThreshold[s]) { return -s }
        }
        return 1
    }

    /// Haar stump stages over the contiguous per-level table: one sequential 72-byte record
    /// per weak classifier. Cost: 8–12 random 4-byte integral loads + 6 flops per stump.
    @inline(__always)
    func runStumps(_ p: UnsafePointer<Int32>, norm: Float) -> Int {
        var w = 0
        for s in 0..<stages {
            var total = 0.0
            let end = Int(stageEnd[s])
            while w < end {
                let o = stumpOffsets + 12 * w, f = stumpValues + 6 * w
                var v = f[0] * Float(p[Int(o[0])] &- p[Int(o[1])] &- p[Int(o[2])] &+ p[Int(o[3])])
                    + f[1] * Float(p[Int(o[4])] &- p[Int(o[5])] &- p[Int(o[6])] &+ p[Int(o[7])])
                if f[2] != 0 { v += f[2] * Float(p[Int(o[8])] &- p[Int(o[9])] &- p[Int(o[10])] &+ p[Int(o[11])]) }
                v *= norm
                total += Double(v < f[3] ? f[4] : f[5])
                w += 1
            }
            if total < Double(stageThreshold[s]) { return -s }
        }
        return 1
    }

    /// Whether ``stage8(_:x:y:step:)`` applies (LBP stump cascades).
    var hasVectorStages: Bool { kind == .lbp && useStumps && stages > 0 }

    /// One stage of an LBP stump cascade at 8 window positions x, x + step, …, x + 7·step (step
    /// 1 or 2) at once: bit i of the result is set when position i passes it. Most windows end
    /// in the first stages, so these are most of a scan; the same sums in the same order as the
    /// scalar path, so the results are identical. Positions past the row's last window read the integral
    /// tables' padding (``IntegralImage/padding``); the caller ignores their bits.
    /// Cost per stump: 16 vector loads (step 2: 16-wide, even lanes), ≈ 40 vector ops and an
    /// 8-lane table lookup — for 8 windows.
    @inline(__always)
    func stage8(_ stage: Int, x: Int, y: Int, step: Int) -> UInt8 {
        typealias V = SIMD8<Int32>
        let p = sum + (x + stride * y)
        @inline(__always) func lanes(_ offset: Int32) -> V {
            let a = UnsafeRawPointer(p + Int(offset))
            return step == 1 ? a.loadUnaligned(as: V.self) : a.loadUnaligned(as: SIMD16<Int32>.self).evenHalf
        }
        /// 1 where `b >= c`, else 0 (block sums are far from overflow).
        @inline(__always) func atLeast(_ b: V, _ c: V) -> V { (b &- c) &>> 31 &+ 1 }
        var total = SIMD8<Double>(repeating: 0)
        for w in (stage == 0 ? 0 : Int(stageEnd[stage - 1]))..<Int(stageEnd[stage]) {
            let o = stumpOffsets + 24 * w
            let q0 = lanes(o[0]), q1 = lanes(o[1]), q2 = lanes(o[2]), q3 = lanes(o[3])
            let q4 = lanes(o[4]), q5 = lanes(o[5]), q6 = lanes(o[6]), q7 = lanes(o[7])
            let q8 = lanes(o[8]), q9 = lanes(o[9]), q10 = lanes(o[10]), q11 = lanes(o[11])
            let q12 = lanes(o[12]), q13 = lanes(o[13]), q14 = lanes(o[14]), q15 = lanes(o[15])
            let cv = q5 &- q6 &- q9 &+ q10
            var code = atLeast(q0 &- q1 &- q4 &+ q5, cv) &<< 7
            code |= atLeast(q1 &- q2 &- q5 &+ q6, cv) &<< 6
            code |= atLeast(q2 &- q3 &- q6 &+ q7, cv) &<< 5
            code |= atLeast(q6 &- q7 &- q10 &+ q11, cv) &<< 4
            code |= atLeast(q10 &- q11 &- q14 &+ q15, cv) &<< 3
            code |= atLeast(q9 &- q10 &- q13 &+ q14, cv) &<< 2
            code |= atLeast(q8 &- q9 &- q12 &+ q13, cv) &<< 1
            code |= atLeast(q4 &- q5 &- q8 &+ q9, cv)
            let f = stumpValues + 6 * w
            let left = Double(f[4]), right = Double(f[5])
            for i in 0..<8 {
                let c = code[i]
                total[i] += (o[16 + Int(c >> 5)] & (1 << (c & 31))) != 0 ? left : right
            }
        }
        let threshold = Double(stageThreshold[stage])
        var mask: UInt8 = 0
        for i in 0..<8 where !(total[i] < threshold) { mask |= 1 << UInt8(i) }
        return mask
    }

    /// ``run(x:y:)`` for an LBP stump cascade from stage `first` on (the earlier ones passed).
    @inline(__always)
    func run(x: Int, y: Int, fromStage first: Int) -> Int {
        runLBPStumps(sum + (x + stride * y), fromStage: first)
    }

    /// LBP stump stages over the contiguous per-level table (16 offsets, 8 subset words, 2 leaves
    /// per stump). Cost: 16 random 4-byte loads + 8 compares per stump.
    @inline(__always)
    func runLBPStumps(_ p: UnsafePointer<Int32>, fromStage first: Int = 0) -> Int {
        var w = first == 0 ? 0 : Int(stageEnd[first - 1])
        for s in first..<stages {
            var total = 0.0
            let end = Int(stageEnd[s])
            while w < end {
                let o = stumpOffsets + 24 * w
                let q0 = p[Int(o[0])], q1 = p[Int(o[1])], q2 = p[Int(o[2])], q3 = p[Int(o[3])]
                let q4 = p[Int(o[4])], q5 = p[Int(o[5])], q6 = p[Int(o[6])], q7 = p[Int(o[7])]
                let q8 = p[Int(o[8])], q9 = p[Int(o[9])], q10 = p[Int(o[10])], q11 = p[Int(o[11])]
                let q12 = p[Int(o[12])], q13 = p[Int(o[13])], q14 = p[Int(o[14])], q15 = p[Int(o[15])]
                let cv = q5 &- q6 &- q9 &+ q10
                var code: Int32 = (q0 &- q1 &- q4 &+ q5) >= cv ? 128 : 0
                code |= (q1 &- q2 &- q5 &+ q6) >= cv ? 64 : 0
                code |= (q2 &- q3 &- q6 &+ q7) >= cv ? 32 : 0
                code |= (q6 &- q7 &- q10 &+ q11) >= cv ? 16 : 0
                code |= (q10 &- q11 &- q14 &+ q15) >= cv ? 8 : 0
                code |= (q9 &- q10 &- q13 &+ q14) >= cv ? 4 : 0
                code |= (q8 &- q9 &- q12 &+ q13) >= cv ? 2 : 0
                code |= (q4 &- q5 &- q8 &+ q9) >= cv ? 1 : 0
                let word = o[16 + Int(code >> 5)]
                let f = stumpValues + 6 * w
                total += Double((word & (1 << (code & 31))) != 0 ? f[4] : f[5])
                w += 1
            }
            if total < Double(stageThreshold[s]) { return -s }
        }
        return 1
    }

    /// LBP stages: 8-bit codes from 3×3 block sums, categorical splits on 256-bit subsets.
    /// Cost: per weak classifier 16 random loads + 8 compares.
    @inline(__always)
    func runLBP(_ p: UnsafePointer<Int32>) -> Int {
        for s in 0..<stages {
            var total = 0.0
            let first = Int(stageFirstWeak[s]), end = first + Int(stageWeakCount[s])
            for w in first..<end {
                var node = Int(weakFirstNode[w])
                let root = node
                var idx: Int32
                repeat {
                    let o = offsets + 16 * Int(nodeFeature[node])
                    @inline(__always) func block(_ a: Int, _ b: Int, _ c: Int, _ d: Int) -> Int32 {
                        p[o[a]] &- p[o[b]] &- p[o[c]] &+ p[o[d]]
                    }
                    let cv = block(5, 6, 9, 10)
                    var code: Int32 = 0
                    if block(0, 1, 4, 5) >= cv { code |= 128 }
                    if block(1, 2, 5, 6) >= cv { code |= 64 }
                    if block(2, 3, 6, 7) >= cv { code |= 32 }
                    if block(6, 7, 10, 11) >= cv { code |= 16 }
                    if block(10, 11, 14, 15) >= cv { code |= 8 }
                    if block(9, 10, 13, 14) >= cv { code |= 4 }
                    if block(8, 9, 12, 13) >= cv { code |= 2 }
                    if block(4, 5, 8, 9) >= cv { code |= 1 }
                    let word = nodeSubset[8 * node + Int(code >> 5)]
                    idx = (word & (1 << (code & 31))) != 0 ? nodeLeft[node] : nodeRight[node]
                    node = root + Int(idx)
                } while idx > 0
                total += Double(leaves[Int(weakFirstLeaf[w]) - Int(idx)])
            }
            if total < Double(stageThreshold[s]) { return -s }
        }
        return 1
    }
}
