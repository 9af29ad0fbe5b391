// StepsByTheViews: the matcher's depth steps away from people — a cabinet's edge, a pillar, a
// frame on the wall — redrawn by the views: each sample beside a step becomes the blend of the two
// depths in the share of its pixels the right view gives the near side.
import CineMedia

/// Blends the samples on each side of a depth step by what the views say.
///
/// The matcher's 9×7 census window straddles a depth step and takes the side with the stronger
/// texture: a dark cabinet's edge over lighter bricks fattens the cabinet by a sample onto the wall
/// below it, and a 320×180 sample on the step holds one depth where the frame under it holds two.
/// For each sample beside a step (a neighbour right of it, above or below it more than
/// ``Settings/step`` px farther), the sample and that neighbour are each tested by the views
/// (``ViewsShare``: which of the two disparities matches each pixel's 3×3 window better) and
/// become the blend of the two disparities in the share of their pixels that matched the near one.
/// Leftwards the test says nothing (left of a nearer surface the farther side is hidden from the
/// right camera): those steps, and any sample whose far depth something right of it hides, are
/// left alone. Where a near sample goes (mostly, ``Settings/inwardShare``) to the far side, it was
/// the matcher's fattening, and the sample behind it is tested too.
///
/// ```swift
/// StepsByTheViews().blend(&d, mapWidth: 320, mapHeight: 180, referenceWidth: 1280,
///                         left: left.plane(0), right: right.plane(0), skip: people)
/// ```
/// Cost: one ``ViewsShare`` test a sample beside a step (16 pixels, two disparities), on
/// ``Settings/threads`` cores; with a ``Memory`` and the samples where the picture stands still,
/// only the ones that moved (a still camera's furniture is tested once).
public struct StepsByTheViews: Sendable {
    /// The knobs of the blend.
    public struct Settings: Sendable, Hashable {
        /// The least difference of two neighbours, in pixels of disparity, that is a step.
        public var step: Float = 3
        /// The most a near sample's share may be for the sample behind it to be tested too.
        public var inwardShare: Float = 0.25
        /// Cores for the test.
        public var threads = 2
        /// How far (px) a still sample's two disparities may move from the ones its remembered
        /// share was found for and still reuse it.
        public var remembered: Float = 1
        /// The default settings.
        public init() {}
    }

    /// Last frame's shares, reused where the picture stands still: a still camera's pillars and
    /// furniture are tested once, not every frame.
    public struct Memory: Sendable {
        /// Per sample of the map: the disparities tested and the share found, and the call that
        /// wrote them (only the last call's count).
        var near: [Float] = [], far: [Float] = [], share: [Float] = [], stamp: [UInt32] = []
        /// The last call's number.
        var call: UInt32 = 0
        /// Samples whose share came from memory in the last call.
        public internal(set) var reused = 0
        /// An empty memory.
        public init() {}

        /// The share the last call found for sample `k` tested between `near` and `far`, if
        /// within `tolerance` px of both.
        func share(_ k: Int, near n: Float, far f: Float, tolerance: Float) -> Float? {
            guard stamp[k] == call, !share[k].isNaN, abs(near[k] - n) <= tolerance, abs(far[k] - f) <= tolerance else { return nil }
            return share[k]
        }
    }

    /// The settings of the next call.
    public var settings: Settings

    /// Creates the blend.
    public init(settings: Settings = Settings()) { self.settings = settings }

    /// Blends the samples beside each step of `d` as
    /// ``blend(_:mapWidth:mapHeight:referenceWidth:left:right:skip:still:memory:)`` does, with
    /// no memory: every sample is tested.
    @discardableResult
    public func blend(_ d: inout [Float], mapWidth w: Int, mapHeight h: Int, referenceWidth: Int,
                      left: Plane, right: Plane, skip: [Bool]) -> Int {
        var memory = Memory()
        return blend(&d, mapWidth: w, mapHeight: h, referenceWidth: referenceWidth, left: left, right: right, skip: skip,
                     memory: &memory)
    }

    /// Blends the samples beside each step of `d` (`mapWidth`×`mapHeight`, disparity in pixels of
    /// a `referenceWidth`-wide frame; `±inf` are holes, left alone) by the views `left` and
    /// `right` (luma planes of one size, at least twice the map's width). Samples where `skip` is
    /// true take no part (another stage decided them). Where `still` is 1 (the picture around the
    /// sample has not changed since the last call), a share `memory` holds for about the same two
    /// disparities is reused rather than tested again; `memory` then holds this call's shares.
    /// Returns how many samples changed.
    @discardableResult
    public func blend(_ d: inout [Float], mapWidth w: Int, mapHeight h: Int, referenceWidth: Int,
                      left: Plane, right: Plane, skip: [Bool], still: [UInt8] = [], memory: inout Memory) -> Int {
        guard w >= 2, h >= 2, right.width == left.width, right.height == left.height, left.width >= 2 * w,
              d.count == w * h, skip.count == w * h else { return 0 }
        let toImage = Float(left.width) / Float(referenceWidth), step = settings.step
        let sampleWidth = Float(referenceWidth) / Float(w), bands = max(1, settings.threads)
        typealias Pair = (near: Int, far: Int, nearDisparity: Float, farDisparity: Float)
        // Each band's pairs (a sample beside a farther neighbour), found on its own core.
        var found = [[Pair]](repeating: [], count: bands)
        let reach = UnsafeMutablePointer<Float>.allocate(capacity: w * h)
        defer { reach.deallocate() }
        d.withUnsafeBufferPointer { dp in
            skip.withUnsafeBufferPointer { sp in
                let d = dp.baseAddress!, skip = sp.baseAddress!
                // Left of a nearer surface the farther side is hidden from the right camera and
                // matches nothing at its own depth: the test would pick at random. `reach[k]` is
                // the most any sample right of k reaches leftwards past it (its disparity less its
                // distance, in pixels, beyond the next sample); a sample's pixels at disparity
                // `far` are hidden where that exceeds `far` by a step.
                RowBands.run(0..<h, bands: bands) { _, rows in
                    for y in rows {
                        let row = d + y * w, out = reach + y * w
                        var m = -Float.infinity
                        out[w - 1] = m
                        for x in stride(from: w - 2, through: 0, by: -1) {
                            let v = row[x + 1]
                            m = max(v.isFinite ? v : -.infinity, m - sampleWidth)
                            out[x] = m
                        }
                    }
                }
                found.withUnsafeMutableBufferPointer { lists in
                    let lists = lists
                    RowBands.run(0..<h, bands: bands) { band, rows in
                        var pairs: [Pair] = []
                        // One sample: its pairs with a farther neighbour right, below or above.
                        func test(_ x: Int, _ y: Int) {
                            let i = y * w + x, near = d[i]
                            let right = x + 1 < w ? d[i + 1] : .infinity, below = y + 1 < h ? d[i + w] : .infinity
                            let above = y > 0 ? d[i - w] : .infinity
                            guard min(right, min(below, above)) < near - step, !skip[i], near.isFinite,
                                  reach[i] <= near + step,
                                  // (In the stereo border no pixel of the sample is seen by both views.)
                                  Float(x + 1) * sampleWidth - 3 >= near else { return }
                            for k in 0..<3 {
                                let j = k == 0 ? (x + 1 < w ? i + 1 : -1) : k == 1 ? (y + 1 < h ? i + w : -1) : (y > 0 ? i - w : -1)
                                guard j >= 0 else { continue }
                                let far = d[j]
                                guard !skip[j], far.isFinite, far < near - step, reach[j] <= far + step else { continue }
                                pairs.append((i, j, near, far))
                            }
                        }
                        for y in rows {
                            // Most samples step nowhere: eight at a time are tested against their
                            // three neighbours first (a missing row is never farther).
                            let row = UnsafeRawPointer(d + y * w)
                            let up = y > 0 ? row - 4 * w : row, down = y + 1 < h ? row + 4 * w : row
                            var x = 0
                            while x + 9 <= w {
                                let near = row.loadUnaligned(fromByteOffset: 4 * x, as: SIMD8<Float>.self)
                                let right = row.loadUnaligned(fromByteOffset: 4 * (x + 1), as: SIMD8<Float>.self)
                                let above = up.loadUnaligned(fromByteOffset: 4 * x, as: SIMD8<Float>.self)
                                let below = down.loadUnaligned(fromByteOffset: 4 * x, as: SIMD8<Float>.self)
                                let farthest = right.replacing(with: above, where: above .< right)
                                if any(farthest.replacing(with: below, where: below .< farthest) .< near - step) {
                                    for k in 0..<8 { test(x + k, y) }
                                }
                                x += 8
                            }
                            while x < w { test(x, y); x += 1 }
                        }
                        lists[band] = pairs
                    }
                }
            }
        }
        // Each sample once, from its first pair in row order.
        var listed = [Bool](repeating: false, count: w * h)
        // With each near sample, the sample behind it (away from the farther neighbour).
        var samples: [(index: Int, near: Float, far: Float, inward: Int)] = []
        for pair in found.joined() {
            let behind = 2 * pair.near - pair.far
            for k in [pair.near, pair.far] where !listed[k] {
                listed[k] = true
                let inward = k == pair.near && behind >= 0 && behind < w * h && abs(behind % w - k % w) <= 1 ? behind : -1
                samples.append((k, pair.nearDisparity, pair.farDisparity, inward))
            }
        }
        if memory.stamp.count != w * h {
            memory = Memory()
            (memory.near, memory.far, memory.share) = ([Float](repeating: .nan, count: w * h), [Float](repeating: .nan, count: w * h),
                                                       [Float](repeating: .nan, count: w * h))
            memory.stamp = [UInt32](repeating: 0, count: w * h)
            memory.call = 1
        }
        memory.reused = 0
        guard !samples.isEmpty else { memory.call &+= 1; return 0 }
        var shares = [Float](repeating: .nan, count: samples.count)
        // The samples to test: the ones the memory does not answer. A remembered share keeps the
        // disparities it was found for (so it cannot drift).
        var tested: [Int] = []
        var kept = [(near: Float, far: Float)?](repeating: nil, count: samples.count)
        tested.reserveCapacity(samples.count)
        let usable = still.count == w * h
        for (k, s) in samples.enumerated() {
            if usable, still[s.index] != 0,
               let share = memory.share(s.index, near: s.near, far: s.far, tolerance: settings.remembered) {
                shares[k] = share
                kept[k] = (memory.near[s.index], memory.far[s.index])
                memory.reused += 1
            } else {
                tested.append(k)
            }
        }
        shares.withUnsafeMutableBufferPointer { out in
            let all = out
            RowBands.run(0..<tested.count, bands: tested.count >= 256 ? bands : 1) { _, range in
                for t in range {
                    let k = tested[t], s = samples[k]
                    all[k] = ViewsShare.near(left, right, x: s.index % w, y: s.index / w, mapWidth: w, mapHeight: h,
                                             near: s.near, far: s.far, toImage: toImage) ?? .nan
                }
            }
        }
        memory.call &+= 1
        for (k, s) in samples.enumerated() {
            let i = s.index, tested = kept[k] ?? (s.near, s.far)
            (memory.near[i], memory.far[i], memory.share[i], memory.stamp[i]) = (tested.near, tested.far, shares[k], memory.call)
        }
        var changed = 0
        for (s, share) in zip(samples, shares) where !share.isNaN {
            d[s.index] = s.far + share * (s.near - s.far)
            changed += 1
        }
        // A near sample the views gave (mostly) to the far side was the matcher's fattening: the
        // step lies behind it, and the sample there is tested too (one layer).
        for (s, share) in zip(samples, shares) where !share.isNaN && share <= settings.inwardShare && s.inward >= 0 {
            let k = s.inward
            guard !skip[k], !listed[k], abs(d[k] - s.near) <= 1.5,
                  let inner = ViewsShare.near(left, right, x: k % w, y: k / w, mapWidth: w, mapHeight: h,
                                              near: s.near, far: s.far, toImage: toImage) else { continue }
            listed[k] = true
            d[k] = s.far + inner * (s.near - s.far)
            changed += 1
        }
        return changed
    }
}
