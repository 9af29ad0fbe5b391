// StabilizationRobustFit: fits the similarity that best explains tracked point pairs while
// ignoring outliers (moving objects, lost tracks) — RANSAC on 2-point minimal samples with a
// fixed seed, then a least-squares refit on the inliers.

/// RANSAC similarity fitting.
enum StabilizationRobustFit {
    /// The similarity carrying `from[i]` to `to[i]` for the largest consensus set, and its size;
    /// nil when fewer than 2 pairs are given. Deterministic for a given `seed`.
    ///
    /// Cost: `iterations` × `n` point transforms (≈ 8 flops each) — 200 × 144 ≈ 0.2 Mflop.
    static func similarity(
        from: [SIMD2<Double>], to: [SIMD2<Double>], threshold: Double,
        iterations: Int, seed: UInt64
    ) -> (transform: SimilarityTransform, inliers: Int)? {
        let n = min(from.count, to.count)
        guard n >= 2 else { return nil }
        var random = SeededRandom(seed: seed)
        let t2 = threshold * threshold
        var bestCount = 0
        var bestMask = [Bool](repeating: false, count: n)
        var mask = [Bool](repeating: false, count: n)
        for _ in 0..<iterations {
            let i = random.index(below: n)
            var j = random.index(below: n - 1)
            if j >= i { j += 1 }
            guard let model = exact(from[i], from[j], to[i], to[j]) else { continue }
            var count = 0
            for k in 0..<n {
                let p = model.apply(x: from[k].x, y: from[k].y)
                let ex = p.x - to[k].x, ey = p.y - to[k].y
                let inside = ex * ex + ey * ey <= t2
                mask[k] = inside
                if inside { count += 1 }
            }
            if count > bestCount {
                bestCount = count
                swap(&bestMask, &mask)
            }
            if bestCount == n { break }
        }
        guard bestCount >= 2 else { return nil }
        // Two refits: on the consensus set, then on the points that fit the refined model.
        var model = leastSquares(from, to, bestMask)
        for _ in 0..<2 {
            var count = 0
            for k in 0..<n {
                let p = model.apply(x: from[k].x, y: from[k].y)
                let ex = p.x - to[k].x, ey = p.y - to[k].y
                bestMask[k] = ex * ex + ey * ey <= t2
                if bestMask[k] { count += 1 }
            }
            guard count >= 2 else { break }
            bestCount = count
            model = leastSquares(from, to, bestMask)
        }
        return (model, bestCount)
    }

    /// The similarity sending p1→q1 and p2→q2 (complex division), nil for coincident points.
    private static func exact(
        _ p1: SIMD2<Double>, _ p2: SIMD2<Double>, _ q1: SIMD2<Double>,
        _ q2: SIMD2<Double>
    ) -> SimilarityTransform? {
        let dp = p2 - p1, dq = q2 - q1
        let d = dp.x * dp.x + dp.y * dp.y
        guard d > 1e-6 else { return nil }
        let a = (dq.x * dp.x + dq.y * dp.y) / d
        let b = (dq.y * dp.x - dq.x * dp.y) / d
        return SimilarityTransform(a: a, b: b, dx: q1.x - (a * p1.x - b * p1.y), dy: q1.y - (b * p1.x + a * p1.y))
    }

    /// Closed-form least-squares similarity over the pairs where `mask` is true.
    private static func leastSquares(_ from: [SIMD2<Double>], _ to: [SIMD2<Double>], _ mask: [Bool])
        -> SimilarityTransform
    {
        var mp = SIMD2<Double>(0, 0), mq = SIMD2<Double>(0, 0), count = 0.0
        for k in mask.indices where mask[k] {
            mp += from[k]
            mq += to[k]
            count += 1
        }
        mp /= count
        mq /= count
        var sa = 0.0, sb = 0.0, norm = 0.0
        for k in mask.indices where mask[k] {
            let p = from[k] - mp, q = to[k] - mq
            sa += p.x * q.x + p.y * q.y
            sb += p.x * q.y - p.y * q.x
            norm += p.x * p.x + p.y * p.y
        }
        let a = norm > 0 ? sa / norm : 1, b = norm > 0 ? sb / norm : 0
        return SimilarityTransform(a: a, b: b, dx: mq.x - (a * mp.x - b * mp.y), dy: mq.y - (b * mp.x + a * mp.y))
    }
}
