// BokehWorkspace: the scratch buffers and hot loops behind BokehRenderer (one per renderer,
// reused from frame to frame so that steady-state rendering allocates nothing).
import CineMedia
import Dispatch
import Foundation

/// Scratch memory and the per-pass kernels of ``BokehRenderer``. Used from one thread at a
/// time; inside a pass, row bands run concurrently and write disjoint rows.
final class BokehWorkspace: @unchecked Sendable {
    /// What one frame is rendered with.
    struct Parameters {
        /// CoC radius (full-resolution px) per disparity pixel of the map.
        var k: Float
        /// Focus disparity, in the map's units.
        var focus: Float
        /// Largest |CoC| in full-resolution pixels.
        var maxRadius: Float
        /// Working scale (1, 2, 4).
        var scale: Int
        /// Layer radius step in working pixels.
        var step: Int
        /// Blur layers on each side of the focal plane.
        var layersPerSide: Int
        /// Highlight boost.
        var boost: Float
        /// |CoC| (full-res px) below which a pixel is fully sharp …
        var sharpFrom: Float
        /// … and above which it is fully blurred.
        var sharpTo: Float
    }

    /// A view of a disparity map's samples (the original plane, or the filled copy).
    struct MapView {
        var base: UnsafePointer<Float>
        var stride: Int
        var width: Int
        var height: Int
        @inline(__always) func row(_ y: Int) -> UnsafePointer<Float> { base + y * stride }
    }

    private(set) var W = 0, H = 0, s = 1, w = 0, h = 0
    private var threads = 1, bands = 1

    /// The guided upsampler and its output, for maps coarser than the image.
    private let guided = GuidedDepthUpsampler()
    private let guidedMap = BokehScratch<Float>()

    // Working resolution, w × h.
    private let color = BokehScratch<SIMD4<Float>>()
    /// Per band: the blurred share of each pixel of the block at hand (s² values).
    private let blockWeights = BokehScratch<Float>()
    private let layerIndex = BokehScratch<Int32>()
    private let layerWeights = BokehScratch<SIMD2<Float>>()
    private let back = BokehScratch<SIMD4<Float>>()
    private let front = BokehScratch<SIMD4<Float>>()
    private let prefix = BokehScratch<SIMD4<Float>>()
    private let blurY = BokehScratch<Float>()
    private let blurU = BokehScratch<Float>()
    private let blurV = BokehScratch<Float>()
    private let blurA = BokehScratch<Float>()
    /// The foreground's own colour (not premultiplied), gamma-encoded like `blurY/U/V`: what a
    /// partly covering blurred foreground lays over a sharp pixel.
    private let frontY = BokehScratch<Float>()
    private let frontU = BokehScratch<Float>()
    private let frontV = BokehScratch<Float>()
    /// Per working row: whether any foreground covers it.
    private let frontRows = BokehScratch<UInt8>()
    /// Whether this frame has anything in front of the focal plane.
    private var hasFront = false
    /// Pull-push pyramid estimating the background hidden behind the foreground (linear).
    private let pyramid = BokehScratch<SIMD4<Float>>()
    private var hiddenFilled = false
    private let halfWidths = BokehScratch<Int>()
    private let rowSpans = BokehScratch<SIMD2<Int32>>()
    /// Edge-aware upsampling of coarse maps: mean luma per map cell, depth-edge flags per cell,
    /// and the range kernel over luma differences.
    private let guide = BokehScratch<Float>()
    /// Mean luma of each working block (the guide when map cells and working blocks coincide).
    private let workLuma = BokehScratch<Float>()
    private var guideBase: UnsafeMutablePointer<Float>?
    private let edgeCells = BokehScratch<UInt8>()
    private let rangeKernel = BokehScratch<Float>()
    private let rowSums = BokehScratch<SIMD4<Float>>()
    /// Per band: one row of 8-bit luma (the edge-aware guide of RGBA frames).
    private let lumaRows = BokehScratch<UInt8>()
    /// Linear luminance (×1) and boosted linear luminance (×1 + gain) of each 8-bit luma code.
    private let lumaLinear = BokehScratch<SIMD2<Float>>()
    /// Linear value of each 8-bit R'G'B' code (full range).
    private let channelLinear = BokehScratch<Float>()
    // Full-resolution sampling tables.
    private let lumaX0 = BokehScratch<Int32>()
    private let lumaFX = BokehScratch<Float>()
    private let chromaX0 = BokehScratch<Int32>()
    private let chromaFX = BokehScratch<Float>()
    private let mapX0 = BokehScratch<Int32>()
    private let mapFX = BokehScratch<Float>()
    private let workMapX0 = BokehScratch<Int32>()
    private let workMapFX = BokehScratch<Float>()
    // Per-band rows for the full-resolution pass.
    private let bandRows = BokehScratch<Float>()
    private var bandStride = 0
    // Disparity validation.
    private let filled = BokehScratch<Float>()
    private let bandStats = BokehScratch<SIMD4<Int>>()

    /// Sizes the buffers and tables for a `W`×`H` frame at working scale `s`.
    func prepare(W: Int, H: Int, s: Int, w: Int, h: Int, threads: Int) {
        let changed = W != self.W || H != self.H || s != self.s
        self.W = W; self.H = H; self.s = s; self.w = w; self.h = h
        self.threads = threads
        bands = threads == 1 ? 1 : threads * 4
        let n = w * h
        color.ensure(n); workLuma.ensure(n); layerIndex.ensure(n); layerWeights.ensure(n)
        back.ensure(n); front.ensure(n); prefix.ensure(h * (w + 1))
        blurY.ensure(n); blurU.ensure(n); blurV.ensure(n); blurA.ensure(n)
        frontY.ensure(n); frontU.ensure(n); frontV.ensure(n); frontRows.ensure(h)
        bandStride = 8 * w + 12 * W
        bandRows.ensure(bands * bandStride)
        bandStats.ensure(bands)
        rowSums.ensure(bands * w)
        lumaX0.ensure(W); lumaFX.ensure(W); chromaX0.ensure(W / 2); chromaFX.ensure(W / 2)
        guard changed else { return }
        // Bilinear taps from full resolution into the working grid (pixel centres aligned).
        func taps(_ count: Int, _ toWorking: Double, _ x0: UnsafeMutablePointer<Int32>, _ fx: UnsafeMutablePointer<Float>) {
            for x in 0..<count {
                let u = max(0, (Double(x) + 0.5) * toWorking - 0.5)
                let i = min(Int(u), w - 1)
                x0[x] = Int32(i)
                fx[x] = i + 1 < w ? Float(u - Double(i)) : 0
            }
        }
        taps(W, 1 / Double(s), lumaX0.base, lumaFX.base)
        taps(W / 2, 2 / Double(s), chromaX0.base, chromaFX.base)
    }

    // MARK: - Row bands

    /// Runs `body(band, lo, hi)` over `count` rows in at most `bands` row bands (`RowBands`).
    @inline(__always)
    private func parallelRows(_ count: Int, _ body: (Int, Int, Int) -> Void) {
        RowBands.run(0..<count, bands: bands) { band, rows in body(band, rows.lowerBound, rows.upperBound) }
    }

    // MARK: - Disparity validation

    /// Checks the map for NaNs and fills `±inf` holes; returns a view of usable samples.
    func validatedDisparity(_ map: DisparityMap, threads: Int) throws(BokehError) -> MapView {
        let plane = map.values.plane(0)
        let mw = plane.width, mh = plane.height
        let stats = bandStats.base
        // Cost: one read of every sample (4 B) and two compares.
        parallelRows(mh) { band, lo, hi in
            var nan = 0, inf = 0, first = -1
            for y in lo..<hi {
                let row = plane.row(y, as: Float.self)
                for x in 0..<mw where !row[x].isFinite {
                    if row[x].isNaN {
                        if nan == 0 { first = y * mw + x }
                        nan += 1
                    } else {
                        inf += 1
                    }
                }
            }
            stats[band] = SIMD4(nan, inf, first, 0)
        }
        var nan = 0, inf = 0, first = -1
        for b in 0..<min(mh, bands) {
            if nan == 0 && stats[b][0] > 0 { first = stats[b][2] }
            nan += stats[b][0]
            inf += stats[b][1]
        }
        if nan > 0 { throw .notANumber(count: nan, x: first % mw, y: first / mw) }
        if inf == mw * mh { throw .noValidDisparity(width: mw, height: mh) }
        prepareMapTables(mw: mw, mh: mh)
        if inf == 0 {
            return MapView(base: UnsafePointer(plane.row(0, as: Float.self)), stride: plane.stride / 4, width: mw, height: mh)
        }
        filled.ensure(mw * mh)
        let out = filled.base
        DisparityHoles.fill(plane, into: out)
        return MapView(base: UnsafePointer(out), stride: mw, width: mw, height: mh)
    }

    /// `map` brought to the image's resolution by the guided upsampler (into `guidedMap`), the
    /// map's column taps redone for it.
    func guidedToFullResolution(_ map: MapView, image: Image, threads: Int) -> MapView {
        let out = guidedMap.ensuring(W * H)
        guided.settings.threads = threads
        guided.upsample(map.base, stride: map.stride, width: map.width, height: map.height, frame: image, into: out, outStride: W)
        prepareMapTables(mw: W, mh: H)
        return MapView(base: UnsafePointer(out), stride: W, width: W, height: H)
    }

    /// Bilinear taps from full-resolution and working columns into the map's columns.
    private func prepareMapTables(mw: Int, mh: Int) {
        mapX0.ensure(W); mapFX.ensure(W); workMapX0.ensure(w); workMapFX.ensure(w)
        let toMap = Double(mw) / Double(W)
        for x in 0..<W {
            let u = min(max(0, (Double(x) + 0.5) * toMap - 0.5), Double(mw - 1))
            let i = min(Int(u), mw - 1)
            mapX0[x] = Int32(i)
            mapFX[x] = i + 1 < mw ? Float(u - Double(i)) : 0
        }
        // Working pixels take the map sample under their centre when the map is at least as
        // fine (no invented in-between depths at edges); coarser maps are interpolated.
        let nearest = mw >= w && mh >= h
        for x in 0..<w {
            let centre = (Double(x) + 0.5) * Double(s) * toMap
            if nearest {
                workMapX0[x] = Int32(min(Int(centre), mw - 1))
                workMapFX[x] = 0
                continue
            }
            let u = min(max(0, centre - 0.5), Double(mw - 1))
            let i = min(Int(u), mw - 1)
            workMapX0[x] = Int32(i)
            workMapFX[x] = i + 1 < mw ? Float(u - Double(i)) : 0
        }
    }

    /// The map row pair and weight for image row position `y` (full-resolution pixel units).
    @inline(__always)
    private func mapRows(_ y: Double, _ map: MapView) -> (Int, Int, Float) {
        let v = min(max(0, (y + 0.5) * Double(map.height) / Double(H) - 0.5), Double(map.height - 1))
        let j = min(Int(v), map.height - 1)
        return (j, min(j + 1, map.height - 1), Float(v - Double(j)))
    }

    // MARK: - Pass 1: working resolution

    /// Box-averages the frame to working resolution in linear light, and computes each
    /// working pixel's CoC and its split between the sharp share and two blur layers.
    ///
    /// With a map at the image's resolution, each block is split pixel by pixel: only the
    /// pixels that will be blurred (and in proportion to how much) enter the block's blurred
    /// colour, and the block's CoC is theirs — so a sharp subject's colour never reaches the
    /// blur layers through a block that straddles its outline. Coarser maps give one CoC per
    /// block (the map has nothing finer to say).
    func downsample(_ image: Image, map: MapView, _ p: Parameters) {
        // The pixel layout's kernel, chosen once for the frame.
        let rgba = image.format == .rgba8
        let yP = image.plane(0), uP = rgba ? yP : image.plane(1), vP = rgba ? yP : image.plane(2)
        let W = self.W, H = self.H, s = self.s, w = self.w
        let color = self.color.base
        let mx0 = workMapX0.base, mfx = workMapFX.base
        let kl = p.layersPerSide, step = Float(p.step), nLayers = 2 * kl + 1
        let sharpInv = 1 / (p.sharpTo - p.sharpFrom)
        let index = layerIndex.base, weights = layerWeights.base
        let lumaTable = lumaLinear.ensuring(256)
        let channelTable = channelLinear.ensuring(256)
        let workLumaBase = workLuma.base
        let perPixel = s > 1 && map.width == W && map.height == H
        let pixelScratch = blockWeights.ensuring(max(1, bands) * s * s)
        BokehColorSpace.decodeTable.withUnsafeBufferPointer { table in
            let decode = table.baseAddress!
            for code in 0..<256 {
                let l = BokehColorSpace.decode((Float(code) - 16) / 219, decode)
                let gain = p.boost > 0 ? BokehColorSpace.highlightGain(SIMD3(repeating: l), boost: p.boost) : 1
                lumaTable[code] = SIMD2(l, l * gain)
                channelTable[code] = BokehColorSpace.decode(Float(code) / 255, decode)
            }
            // Cost per working pixel: s² luma + s²/2 chroma bytes read (RGBA: 4·s² bytes and 3·s²
            // table lookups), s² table lookups, ~40 flops, 4 table lookups; with a full-resolution
            // map also s² map reads and ~6 flops per pixel, and a weighted second pass over the
            // block's pixels where its CoC changes inside it.
            parallelRows(h) { band, lo, hi in
                let pixW = pixelScratch + band * s * s
                for j in lo..<hi {
                    let y0 = j * s
                    let (mj0, mj1, mfy) = map.width >= w && map.height >= h
                        ? { () -> (Int, Int, Float) in
                            let row = min(Int((Double(j) + 0.5) * Double(s) * Double(map.height) / Double(H)), map.height - 1)
                            return (row, row, 0)
                        }()
                        : mapRows(Double(j * s) + Double(s) * 0.5 - 0.5, map)
                    let m0 = map.row(mj0), m1 = map.row(mj1)
                    for i in 0..<w {
                        let b = Block(x0: i * s, x1: min(i * s + s, W), y0: y0, y1: min(y0 + s, H))
                        let o = j * w + i
                        // The block's CoC and blurred share: per pixel with a full-resolution map.
                        let coc = perPixel
                            ? Self.perPixelCoC(b, map, p, sharpInv: sharpInv, weights: pixW, fallback: m0[Int(mx0[i])])
                            : Self.centreCoC(m0, m1, a: Int(mx0[i]), fx: mfx[i], fy: mfy, mapWidth: map.width, p, sharpInv: sharpInv)
                        let mean =
                            rgba
                            ? Self.averageRGBA(
                                yP, b, weights: coc.mixed ? UnsafePointer(pixW) : nil, channelTable: channelTable, boost: p.boost)
                            : coc.mixed
                                ? Self.averageI420Weighted(yP, uP, vP, b, weights: pixW, lumaTable: lumaTable, decode)
                                : Self.averageI420(yP, uP, vP, b, lumaTable: lumaTable, decode)
                        workLumaBase[o] = mean.luma
                        color[o] = SIMD4(mean.linear.x, mean.linear.y, mean.linear.z, 1)
                        // Blurred share split between the two nearest layers (0 = farthest).
                        let t = min(max(coc.coc / Float(s) / step + Float(kl), 0), Float(nLayers - 1))
                        let k0 = min(Int(t), nLayers - 1)
                        let f = k0 == nLayers - 1 ? 0 : t - Float(k0)
                        index[o] = Int32(k0)
                        weights[o] = SIMD2(1 - f, f) * coc.blurred
                    }
                }
            }
        }
    }

    // MARK: - Pass 2: blur layers

    /// Convolves every non-empty layer with its disk and composites it, back to front, into
    /// the background or foreground buffer.
    func blurLayers(_ p: Parameters) {
        let w = self.w, h = self.h, n = w * h
        let kl = p.layersPerSide, nLayers = 2 * kl + 1
        let index = layerIndex.base, weights = layerWeights.base
        // Per layer and row, the span of columns holding members (empty: lo > hi).
        let spans = rowSpans.ensuring(nLayers * h)
        spans.update(repeating: SIMD2(Int32.max, -1), count: nLayers * h)
        // Cost: one pass, a few compares per pixel.
        for j in 0..<h {
            for i in 0..<w {
                let o = j * w + i
                let k = Int(index[o]), m = weights[o], i32 = Int32(i)
                if m.x > 0 {
                    let s = k * h + j
                    spans[s] = SIMD2(min(spans[s].x, i32), max(spans[s].y, i32))
                }
                if m.y > 0 {
                    let s = (k + 1) * h + j
                    spans[s] = SIMD2(min(spans[s].x, i32), max(spans[s].y, i32))
                }
            }
        }
        let backAcc = back.base, frontAcc = front.base
        backAcc.update(repeating: .zero, count: n)
        frontAcc.update(repeating: .zero, count: n)
        hasFront = false
        for layer in 0..<nLayers {
            let layerSpans = spans + layer * h
            var y0 = -1, y1 = -1
            for j in 0..<h where layerSpans[j].x <= layerSpans[j].y {
                if y0 < 0 { y0 = j }
                y1 = j
            }
            guard y0 >= 0 else { continue }
            if layer > kl { hasFront = true }
            let r = abs(layer - kl) * p.step
            // Behind the focal plane, "over" then normalised by coverage (holes fill from around);
            // in front, added: one object's pixels are split between two neighbouring layers,
            // and "over" would let 1 − (1 − a)(1 − b) < a + b of the background show through it.
            blurLayer(layer, radius: r, spans: layerSpans, y0: y0, y1: y1, into: layer <= kl ? backAcc : frontAcc,
                      additive: layer > kl)
        }
    }

    /// One layer: per-row prefix sums of its premultiplied members, then a disk gather
    /// composited "over" `acc`.
    private func blurLayer(_ layer: Int, radius r: Int, spans: UnsafeMutablePointer<SIMD2<Int32>>, y0: Int, y1: Int,
                           into acc: UnsafeMutablePointer<SIMD4<Float>>, additive: Bool) {
        let w = self.w, h = self.h
        let color = self.color.base, index = layerIndex.base, weights = layerWeights.base
        let P = prefix.base, pw = w + 1
        let l32 = Int32(layer)
        // Prefix sums over each row's span. Cost: one SIMD4 multiply-add per member-span pixel.
        parallelRows(y1 - y0 + 1) { _, lo, hi in
            for yy in lo..<hi {
                let y = y0 + yy
                let a = Int(spans[y].x), b = Int(spans[y].y)
                guard a <= b else { continue }
                let row = P + yy * pw
                var sum = SIMD4<Float>.zero
                row[0] = sum
                for x in a...b {
                    let o = y * w + x
                    let k = index[o], m = weights[o]
                    let member = k == l32 ? m.x : (k + 1 == l32 ? m.y : 0)
                    sum += color[o] * member
                    row[x - a + 1] = sum
                }
            }
        }
        let hw = halfWidths.ensuring(r + 1)
        var area = 0
        for dy in 0...r {
            hw[dy] = Int((Double(r * r - dy * dy)).squareRoot().rounded())
            area += (dy == 0 ? 1 : 2) * (2 * hw[dy] + 1)
        }
        let invArea = 1 / Float(area)
        let Y0 = max(0, y0 - r), Y1 = min(h - 1, y1 + r)
        let sums = rowSums.base
        // Disk gather, one disk row at a time into a row of sums. Cost per output pixel and
        // disk row: two SIMD4 loads, a subtraction and an addition (streaming, no clamps away
        // from span ends); then one SIMD4 "over" per pixel.
        parallelRows(Y1 - Y0 + 1) { band, lo, hi in
            let sum = sums + band * w
            for yy in lo..<hi {
                let y = Y0 + yy
                // Output columns: the union of the spans in reach, widened by the disk.
                var xa = Int.max, xb = -1
                for dy in max(-r, y0 - y)...min(r, y1 - y) {
                    let s = spans[y + dy]
                    guard s.x <= s.y else { continue }
                    xa = min(xa, Int(s.x) - hw[abs(dy)])
                    xb = max(xb, Int(s.y) + hw[abs(dy)])
                }
                guard xb >= 0 else { continue }
                xa = max(0, xa)
                xb = min(w - 1, xb)
                sum.update(repeating: .zero, count: xb - xa + 1)
                let out = sum - xa
                for dy in max(-r, y0 - y)...min(r, y1 - y) {
                    let s = spans[y + dy]
                    let a = Int(s.x), b = Int(s.y)
                    guard a <= b else { continue }
                    let half = hw[abs(dy)]
                    let row = P + (y + dy - y0) * pw - a  // row[x] = members of a..<x summed
                    let lo = max(xa, a - half), hi = min(xb, b + half)
                    guard lo <= hi else { continue }
                    // Interior: the whole disk row lies inside the span.
                    let ia = max(lo, a + half), ib = min(hi, b - half)
                    if ia <= ib {
                        for x in lo..<ia { out[x] += row[min(x + half, b) + 1] - row[max(x - half, a)] }
                        // Pointer form: no overflow checks, so the loop vectorises (AVX: two pixels).
                        let right = row + (ia + half + 1), left = row + (ia - half), dst = out + ia
                        for i in 0..<(ib - ia + 1) { dst[i] += right[i] - left[i] }
                        if ib < hi { for x in (ib + 1)...hi { out[x] += row[min(x + half, b) + 1] - row[max(x - half, a)] } }
                    } else {
                        for x in lo...hi { out[x] += row[min(x + half, b) + 1] - row[max(x - half, a)] }
                    }
                }
                let rowInterior = y - r >= 0 && y + r < h
                for x in xa...xb {
                    let norm: Float
                    if rowInterior && x - r >= 0 && x + r < w {
                        norm = invArea
                    } else {
                        var count = 0
                        for dy in -r...r where y + dy >= 0 && y + dy < h {
                            let half = hw[abs(dy)]
                            count += min(x + half, w - 1) - max(x - half, 0) + 1
                        }
                        norm = 1 / Float(count)
                    }
                    let v = out[x] * norm
                    let o = y * w + x
                    acc[o] = additive ? v + acc[o] : v + acc[o] * (1 - v.w)
                }
            }
        }
    }

    // MARK: - Pass 3: the blurred picture at working resolution

    /// Estimates, at working resolution, the background hidden behind the foreground: a
    /// pull-push fill (halve while summing, then fill each level's gaps from the level above)
    /// of every pixel that is not in front of the focal plane, in linear light. Used where a
    /// blurred foreground is partly transparent and no blurred background reaches.
    /// Cost: ~1.33 × working pixels × a few SIMD4 operations; only when a foreground exists.
    private func fillHidden(_ p: Parameters) {
        let w = self.w, h = self.h, kl = Int32(p.layersPerSide)
        var sizes: [(Int, Int, Int)] = []  // width, height, offset
        var total = 0, lw = w, lh = h
        while true {
            sizes.append((lw, lh, total))
            total += lw * lh
            if lw == 1 && lh == 1 { break }
            lw = (lw + 1) / 2
            lh = (lh + 1) / 2
        }
        let P = pyramid.ensuring(total)
        let color = self.color.base, index = layerIndex.base, weights = layerWeights.base
        // Level 0: each pixel's colour weighted by its share behind or on the focal plane.
        parallelRows(h) { _, lo, hi in
            for o in (lo * w)..<(hi * w) {
                let k = index[o], m = weights[o]
                let front = (k > kl ? m.x : 0) + (k + 1 > kl ? m.y : 0)
                let behind = max(0, 1 - front)
                let c = color[o]
                P[o] = SIMD4(c.x * behind, c.y * behind, c.z * behind, behind)
            }
        }
        // Pull: sums of up to four children.
        for l in 1..<sizes.count {
            let (cw, ch, co) = sizes[l - 1], (pw, ph, po) = sizes[l]
            for j in 0..<ph {
                for i in 0..<pw {
                    var sum = SIMD4<Float>.zero
                    for dj in 0..<2 where 2 * j + dj < ch {
                        for di in 0..<2 where 2 * i + di < cw { sum += P[co + (2 * j + dj) * cw + 2 * i + di] }
                    }
                    P[po + j * pw + i] = sum
                }
            }
        }
        // Push: normalise the top, then each level keeps what it knows and takes the rest
        // from its parent.
        let top = sizes[sizes.count - 1].2
        P[top] = P[top].w > 1e-6 ? P[top] / P[top].w : .zero
        for l in stride(from: sizes.count - 2, through: 0, by: -1) {
            let (cw, ch, co) = sizes[l], (pw, ph, po) = sizes[l + 1]
            parallelRows(ch) { _, lo, hi in for j in lo..<hi {
                for i in 0..<cw {
                    // The parent bilinearly, between the four nearest parent samples.
                    let u = max(0, (Float(i) + 0.5) * 0.5 - 0.5), t = max(0, (Float(j) + 0.5) * 0.5 - 0.5)
                    let pi0 = min(Int(u), pw - 1), pj0 = min(Int(t), ph - 1)
                    let pi1 = min(pi0 + 1, pw - 1), pj1 = min(pj0 + 1, ph - 1)
                    let fx = u - Float(pi0), fy = t - Float(pj0)
                    let top = P[po + pj0 * pw + pi0] + fx * (P[po + pj0 * pw + pi1] - P[po + pj0 * pw + pi0])
                    let bottom = P[po + pj1 * pw + pi0] + fx * (P[po + pj1 * pw + pi1] - P[po + pj1 * pw + pi0])
                    let parent = top + fy * (bottom - top)
                    let v = P[co + j * cw + i]
                    let confidence = min(v.w, 1)
                    let own = v.w > 1e-6 ? v / v.w : .zero
                    P[co + j * cw + i] = confidence * own + (1 - confidence) * parent
                }
            } }
        }
        hiddenFilled = true
    }

    /// Normalises the background, lays the foreground over it, and converts the result to
    /// gamma-encoded Y'CbCr planes (with `rgb`, R'G'B' planes in 0…255) plus the foreground
    /// coverage, and the foreground's own colour where it covers anything.
    func finishWorking(_ p: Parameters, rgb: Bool = false) {
        let w = self.w
        let backAcc = back.base, frontAcc = front.base
        let oy = blurY.base, ou = blurU.base, ov = blurV.base, oa = blurA.base
        let fy = frontY.base, fu = frontU.base, fv = frontV.base, rowsWithFront = frontRows.base
        hiddenFilled = false
        if hasFront { fillHidden(p) }
        let hidden = hiddenFilled ? UnsafePointer(pyramid.base) : nil
        BokehColorSpace.encodeTable.withUnsafeBufferPointer { table in
            let encode = table.baseAddress!
            @inline(__always) func encoded(_ lin: SIMD3<Float>) -> SIMD3<Float> {
                let g = SIMD3(BokehColorSpace.encode(lin.x, encode), BokehColorSpace.encode(lin.y, encode),
                              BokehColorSpace.encode(lin.z, encode))
                return rgb ? g * 255 : BokehColorSpace.yuv(g)
            }
            // Cost per working pixel: ~30 flops, 3 table lookups (twice where a foreground covers it).
            parallelRows(h) { _, lo, hi in
                for j in lo..<hi {
                    var any: UInt8 = 0
                    for i in 0..<w {
                        let o = j * w + i
                        let b = backAcc[o], f0 = frontAcc[o]
                        let f = f0.w > 1 ? f0 / f0.w : f0
                        // The blurred background; where none reaches (behind a foreground),
                        // the fill of what surrounds it.
                        let bg: SIMD3<Float>
                        if b.w > 1e-3 {
                            bg = SIMD3(b.x, b.y, b.z) / b.w
                        } else if let hidden {
                            let v = hidden[o]
                            bg = b.w > 1e-6 ? SIMD3(b.x, b.y, b.z) / b.w * (b.w * 1e3) + SIMD3(v.x, v.y, v.z) * (1 - b.w * 1e3)
                                : SIMD3(v.x, v.y, v.z)
                        } else {
                            bg = b.w > 1e-6 ? SIMD3(b.x, b.y, b.z) / b.w : .zero
                        }
                        let yuv = encoded(SIMD3(f.x, f.y, f.z) + (1 - f.w) * bg)
                        oy[o] = yuv.x
                        ou[o] = yuv.y
                        ov[o] = yuv.z
                        let alpha = min(max(f.w, 0), 1)
                        oa[o] = alpha
                        if alpha > 1e-4 {
                            let own = encoded(SIMD3(f.x, f.y, f.z) / f.w)
                            fy[o] = own.x
                            fu[o] = own.y
                            fv[o] = own.z
                            any = 1
                        } else {
                            fy[o] = yuv.x
                            fu[o] = yuv.y
                            fv[o] = yuv.z
                        }
                    }
                    rowsWithFront[j] = any
                }
            }
        }
    }

    // MARK: - Pass 4: full resolution

    /// Bilinear upsampling of one row by an integer `factor` (1, 2, 4, 8: pixel centres
    /// aligned, edges clamped), or through the `x0`/`fx` tables for any other ratio.
    /// Cost: one multiply-add per output sample.
    @inline(__always)
    private static func upsample(_ src: UnsafePointer<Float>, _ n: Int, into dst: UnsafeMutablePointer<Float>, _ count: Int,
                                 factor: Int, x0: UnsafePointer<Int32>?, fx: UnsafePointer<Float>?) {
        if factor == 1 && n >= count {
            dst.update(from: src, count: count)
            return
        }
        if factor == 2 || factor == 4 || factor == 8 {
            let half = factor / 2
            let inner = min(n - 1, max(0, (count - half) / factor))  // intervals written in full
            for x in 0..<min(half, count) { dst[x] = src[0] }
            let body = dst + half
            if factor == 4 {
                for i in 0..<inner {
                    let a = src[i], d = src[i + 1] - a, o = body + 4 &* i
                    o[0] = a + 0.125 * d; o[1] = a + 0.375 * d; o[2] = a + 0.625 * d; o[3] = a + 0.875 * d
                }
            } else if factor == 2 {
                for i in 0..<inner {
                    let a = src[i], d = src[i + 1] - a, o = body + 2 &* i
                    o[0] = a + 0.25 * d; o[1] = a + 0.75 * d
                }
            } else {
                for i in 0..<inner {
                    let a = src[i], d = src[i + 1] - a, o = body + 8 &* i
                    for q in 0..<8 { o[q] = a + (Float(q) + 0.5) * 0.125 * d }
                }
            }
            let filledTo = half + factor * inner
            if filledTo < count { for x in filledTo..<count { dst[x] = src[min(inner, n - 1)] } }
            return
        }
        let x0 = x0!, fx = fx!
        for x in 0..<count {
            let a = Int(x0[x]), b = min(a + 1, n - 1)
            dst[x] = src[a] + fx[x] * (src[b] - src[a])
        }
    }

    /// Rounds and stores a value already clamped to 0…255 (branch-free: the float's mantissa
    /// holds the rounded integer once 2²³ is added).
    @inline(__always)
    private static func byte(_ v: Float) -> UInt8 {
        UInt8(truncatingIfNeeded: (min(max(v, 0), 255) + 8_388_608).bitPattern)
    }

    /// The 8-bit luma (BT.709 weights, full range) of an RGBA pixel: the guide's luma for RGBA
    /// frames.
    @inline(__always)
    static func luma(rgba q: UnsafePointer<UInt8>) -> Int {
        (54 &* Int(q[0]) &+ 183 &* Int(q[1]) &+ 19 &* Int(q[2]) &+ 128) >> 8
    }

    /// For a map `factor` times coarser than the image: the mean luma of each map cell, and a
    /// flag on each cell whose four corner samples differ by more than half a pixel of CoC.
    /// Cost: one read of every luma byte, a few compares per map sample.
    private func prepareGuide(_ image: Image, map: MapView, factor f: Int, _ p: Parameters) {
        let mw = map.width, mh = map.height, W = self.W, H = self.H
        guide.ensure(mw * mh); edgeCells.ensure(mw * mh)
        let range = rangeKernel.ensuring(256)
        for d in 0..<256 { range[d] = max(1e-3, Float(exp(-Double(d * d) / (2 * 8 * 8)))) }
        // Map cells that coincide with working blocks already have their mean luma.
        let reuse = f == s && mw == w && mh == h
        let G = reuse ? workLuma.base : guide.base, edges = edgeCells.base
        guideBase = G
        let yP = image.plane(0), rgba = image.format == .rgba8
        let threshold = 0.5 / max(abs(p.k), 1e-6)
        parallelRows(mh) { _, lo, hi in
            for j in lo..<hi {
                let y0 = min(j * f, H - 1), y1 = min(y0 + f, H)
                let twoByTwo = !reuse && f == 2 && !rgba && 2 * mw <= W && 2 * j + 1 < H
                if twoByTwo {
                    // Half resolution: the mean of each 2×2 block, two rows at a time.
                    let a = yP.row(2 * j, as: UInt8.self), b = yP.row(2 * j + 1, as: UInt8.self)
                    for i in 0..<mw {
                        G[j * mw + i] = Float(Int(a[2 * i]) + Int(a[2 * i + 1]) + Int(b[2 * i]) + Int(b[2 * i + 1])) * 0.25
                    }
                }
                for i in 0..<mw where !reuse && !twoByTwo {
                    let x0 = min(i * f, W - 1), x1 = min(x0 + f, W)
                    var sum = 0
                    for y in y0..<y1 {
                        let row = yP.row(y, as: UInt8.self)
                        if rgba {
                            for x in x0..<x1 { sum &+= Self.luma(rgba: row + 4 &* x) }
                        } else {
                            for x in x0..<x1 { sum &+= Int(row[x]) }
                        }
                    }
                    G[j * mw + i] = Float(sum) / Float((y1 - y0) * (x1 - x0))
                }
                let top = map.row(j), bottom = map.row(min(j + 1, mh - 1))
                for i in 0..<mw {
                    let b = min(i + 1, mw - 1)
                    let lo = min(min(top[i], top[b]), min(bottom[i], bottom[b]))
                    let hi = max(max(top[i], top[b]), max(bottom[i], bottom[b]))
                    edges[j * mw + i] = hi - lo > threshold ? 1 : 0
                }
            }
        }
    }

    /// The disparity under each pixel of full-resolution row `y`, into `dRow` (`W` values):
    /// the map's row itself at the image's resolution, else bilinear, and with `edgeAware`
    /// joint-bilateral in map cells that straddle a depth edge (guided by the row's `luma`).
    /// `scratch` holds `map.width` values.
    @inline(__always)
    private func disparityRow(_ y: Int, map: MapView, mapFactor: Int, edgeAware: Bool, luma lumaRow: UnsafePointer<UInt8>,
                              into dRow: UnsafeMutablePointer<Float>, scratch mapRow: UnsafeMutablePointer<Float>) {
        let W = self.W
        if mapFactor == 1 {
            dRow.update(from: map.row(y), count: W)
            return
        }
        let (m0, m1, mfy) = mapRows(Double(y), map)
        let top = map.row(m0), bottom = map.row(m1)
        for x in 0..<map.width { mapRow[x] = top[x] + mfy * (bottom[x] - top[x]) }
        Self.upsample(mapRow, map.width, into: dRow, W, factor: mapFactor, x0: mapX0.base, fx: mapFX.base)
        guard edgeAware else { return }
        // Joint bilateral upsampling in cells that straddle a depth edge: each of the 4 samples
        // is weighted by bilinear weight × luma similarity of this pixel to the sample's cell.
        // Cost: ~25 flops per pixel of an edge cell, nothing elsewhere.
        let G = guideBase ?? guide.base, edges = edgeCells.base, range = rangeKernel.base
        let f = mapFactor, half = f / 2, invF = 1 / Float(f)
        let g0 = G + m0 * map.width, g1 = G + m1 * map.width
        let flags = edges + m0 * map.width
        for i in 0..<(map.width - 1) where flags[i] != 0 {
            for q in 0..<f {
                let x = f * i + half + q
                guard x < W else { break }
                let fx = (Float(q) + 0.5) * invF
                let l = Float(lumaRow[x])
                let w00 = (1 - fx) * (1 - mfy) * range[Int(min(abs(l - g0[i]), 255))]
                let w10 = fx * (1 - mfy) * range[Int(min(abs(l - g0[i + 1]), 255))]
                let w01 = (1 - fx) * mfy * range[Int(min(abs(l - g1[i]), 255))]
                let w11 = fx * mfy * range[Int(min(abs(l - g1[i + 1]), 255))]
                let sum = w00 + w10 + w01 + w11
                guard sum > 1e-6 else { continue }
                dRow[x] = (w00 * top[i] + w10 * top[i + 1] + w01 * bottom[i] + w11 * bottom[i + 1]) / sum
            }
        }
    }

    /// The map's scale factor against the image when it is an exact integer (1, 2, 4, …), else 0.
    private func integerMapFactor(_ map: MapView) -> Int {
        let f = W / max(1, map.width)
        return map.width * f == W && map.height * f == H ? f : 0
    }

    /// RGBA frames: as ``writeFullResolution(_:map:_:into:)`` with every channel at full
    /// resolution, into `output` (RGBA). A pixel entirely sharp and uncovered is copied
    /// unchanged, so what is in focus is bit-exact; alpha is copied.
    func writeFullResolutionRGBA(_ image: Image, map: MapView, _ p: Parameters, into output: Image) {
        let W = self.W, H = self.H, s = self.s, w = self.w, h = self.h
        let src = image.plane(0), dst = output.plane(0)
        let planes = [blurY.base, blurU.base, blurV.base, frontY.base, frontU.base, frontV.base, blurA.base]
        let rowsWithFront = frontRows.base
        let lx0 = lumaX0.base, lfx = lumaFX.base
        let mapFactor = integerMapFactor(map)
        let sharpInv = 1 / (p.sharpTo - p.sharpFrom)
        let rows = bandRows.base, bandStride = self.bandStride
        let lumaRows = self.lumaRows.ensuring(max(1, bands) * W)
        let edgeAware = mapFactor >= 2
        if edgeAware { prepareGuide(image, map: map, factor: mapFactor, p) }
        let invS = 1 / Double(s)
        // Cost per pixel: ~5 upsampling multiply-adds (3 colours, coverage, disparity; 3 more
        // under a blurred foreground), ~15 flops, 4 bytes read and written (a plain copy where
        // the pixel is sharp and uncovered).
        parallelRows(H) { band, lo, hi in
            let base = rows + band * bandStride
            let tmp = base
            // Full-resolution rows: blur R, G, B, foreground R, G, B, coverage; then disparity.
            let up = (0..<7).map { base + w + $0 * W }
            let dRow = base + w + 7 * W, mapRow = dRow + W
            let luma = lumaRows + band * W
            for y in lo..<hi {
                let u = max(0, (Double(y) + 0.5) * invS - 0.5)
                let j0 = min(Int(u), h - 1), j1 = min(j0 + 1, h - 1), fy = Float(u - Double(j0))
                let covered = rowsWithFront[j0] | rowsWithFront[j1] != 0
                for k in 0..<7 where covered || k < 3 {
                    let a = planes[k] + j0 * w, b = planes[k] + j1 * w
                    for i in 0..<w { tmp[i] = a[i] + fy * (b[i] - a[i]) }
                    Self.upsample(tmp, w, into: up[k], W, factor: s, x0: lx0, fx: lfx)
                }
                let srcRow = src.row(y, as: UInt8.self), dstRow = dst.row(y, as: UInt8.self)
                if edgeAware { for x in 0..<W { luma[x] = UInt8(Self.luma(rgba: srcRow + 4 &* x)) } }
                disparityRow(y, map: map, mapFactor: mapFactor, edgeAware: edgeAware, luma: luma, into: dRow, scratch: mapRow)
                let bR = up[0], bG = up[1], bB = up[2], fR = up[3], fG = up[4], fB = up[5], alpha = up[6]
                for x in 0..<W {
                    let c = abs(p.k * (dRow[x] - p.focus))
                    let sw = min(max((p.sharpTo - c) * sharpInv, 0), 1)
                    let a: Float = covered ? alpha[x] : 0
                    let q = srcRow + 4 &* x, o = dstRow + 4 &* x
                    if sw >= 1 && a <= 0 {
                        o[0] = q[0]; o[1] = q[1]; o[2] = q[2]
                    } else {
                        let sr = Float(q[0]), sg = Float(q[1]), sb = Float(q[2])
                        let under = covered ? SIMD3(a * fR[x] + (1 - a) * sr, a * fG[x] + (1 - a) * sg, a * fB[x] + (1 - a) * sb)
                            : SIMD3(sr, sg, sb)
                        o[0] = Self.byte(bR[x] + sw * (under.x - bR[x]))
                        o[1] = Self.byte(bG[x] + sw * (under.y - bG[x]))
                        o[2] = Self.byte(bB[x] + sw * (under.z - bB[x]))
                    }
                    o[3] = q[3]
                }
            }
        }
    }

    /// Mixes the sharp original with the upsampled blur, per pixel, into `output` (I420):
    /// `out = blur + sharpness · (α·F + (1 − α)·source − blur)`, where `blur` is the blurred
    /// picture (foreground over background, composited in linear light), `F` the blurred
    /// foreground's own colour and `α` its coverage: a sharp pixel keeps its own value, or lies
    /// under the part of a blurred foreground that reaches it.
    func writeFullResolution(_ image: Image, map: MapView, _ p: Parameters, into output: Image) {
        let W = self.W, H = self.H, s = self.s, w = self.w, h = self.h
        let sy = image.plane(0), su = image.plane(1), sv = image.plane(2)
        let dy = output.plane(0), du = output.plane(1), dv = output.plane(2)
        let by = blurY.base, bu = blurU.base, bv = blurV.base, ba = blurA.base
        let fy = frontY.base, fu = frontU.base, fv = frontV.base, rowsWithFront = frontRows.base
        let lx0 = lumaX0.base, lfx = lumaFX.base, cx0 = chromaX0.base, cfx = chromaFX.base
        let mapFactor = integerMapFactor(map)
        let sharpInv = 1 / (p.sharpTo - p.sharpFrom)
        let rows = bandRows.base, bandStride = self.bandStride
        let edgeAware = mapFactor >= 2
        if edgeAware { prepareGuide(image, map: map, factor: mapFactor, p) }
        let invS = 1 / Double(s)
        let CW = W / 2
        @inline(__always) func workingRows(_ v: Double) -> (Int, Int, Float) {
            let u = max(0, v)
            let j = min(Int(u), h - 1)
            return (j, min(j + 1, h - 1), Float(u - Double(j)))
        }
        /// One working-resolution row interpolated between rows j0 and j1, then upsampled.
        @inline(__always) func row(_ plane: UnsafeMutablePointer<Float>, _ j0: Int, _ j1: Int, _ fy: Float,
                                   _ tmp: UnsafeMutablePointer<Float>, into dst: UnsafeMutablePointer<Float>, chroma: Bool) {
            let a = plane + j0 * w, b = plane + j1 * w
            for i in 0..<w { tmp[i] = a[i] + fy * (b[i] - a[i]) }
            if chroma {
                Self.upsample(tmp, w, into: dst, CW, factor: s / 2, x0: cx0, fx: cfx)
            } else {
                Self.upsample(tmp, w, into: dst, W, factor: s, x0: lx0, fx: lfx)
            }
        }
        // Cost per luma pixel: ~3 upsampling multiply-adds (blur, coverage, disparity), ~12
        // flops, 1 byte read and written; per chroma pixel ~10 flops, 2 bytes read and written;
        // rows under a blurred foreground also upsample its colour (3 more multiply-adds).
        parallelRows(H / 2) { band, lo, hi in
            let base = rows + band * bandStride
            let tmp = base
            let blur = base + w, dRow = blur + W, mapRow = dRow + W, front = mapRow + W
            let alpha0 = front + W, alpha1 = alpha0 + W, sw0 = alpha1 + W, sw1 = sw0 + W
            let blurU = sw1 + W, blurV = blurU + CW, frontUR = blurV + CW, frontVR = frontUR + CW
            for cy in lo..<hi {
                var anyFront = false
                for r in 0..<2 {
                    let y = 2 * cy + r
                    let alpha = r == 0 ? alpha0 : alpha1, swRow = r == 0 ? sw0 : sw1
                    let (j0, j1, wy) = workingRows((Double(y) + 0.5) * invS - 0.5)
                    let covered = rowsWithFront[j0] | rowsWithFront[j1] != 0
                    anyFront = anyFront || covered
                    row(by, j0, j1, wy, tmp, into: blur, chroma: false)
                    if covered {
                        row(ba, j0, j1, wy, tmp, into: alpha, chroma: false)
                        row(fy, j0, j1, wy, tmp, into: front, chroma: false)
                    } else {
                        alpha.update(repeating: 0, count: W)
                    }
                    disparityRow(y, map: map, mapFactor: mapFactor, edgeAware: edgeAware, luma: sy.row(y, as: UInt8.self),
                                 into: dRow, scratch: mapRow)
                    let src = sy.row(y, as: UInt8.self), dst = dy.row(y, as: UInt8.self)
                    for x in 0..<W {
                        let c = abs(p.k * (dRow[x] - p.focus))
                        swRow[x] = min(max((p.sharpTo - c) * sharpInv, 0), 1)
                    }
                    if covered {
                        for x in 0..<W {
                            let b = blur[x], a = alpha[x]
                            dst[x] = Self.byte(b + swRow[x] * (a * front[x] + (1 - a) * Float(src[x]) - b))
                        }
                    } else {
                        for x in 0..<W {
                            let b = blur[x]
                            dst[x] = Self.byte(b + swRow[x] * (Float(src[x]) - b))
                        }
                    }
                }
                let (j0, j1, wy) = workingRows((Double(cy) + 0.5) * 2 * invS - 0.5)
                let covered = anyFront || rowsWithFront[j0] | rowsWithFront[j1] != 0
                row(bu, j0, j1, wy, tmp, into: blurU, chroma: true)
                row(bv, j0, j1, wy, tmp, into: blurV, chroma: true)
                let srcU = su.row(cy, as: UInt8.self), srcV = sv.row(cy, as: UInt8.self)
                let dstU = du.row(cy, as: UInt8.self), dstV = dv.row(cy, as: UInt8.self)
                if covered {
                    row(fu, j0, j1, wy, tmp, into: frontUR, chroma: true)
                    row(fv, j0, j1, wy, tmp, into: frontVR, chroma: true)
                    for cx in 0..<CW {
                        let t = 0.25 * (sw0[2 * cx] + sw0[2 * cx + 1] + sw1[2 * cx] + sw1[2 * cx + 1])
                        let a = 0.25 * (alpha0[2 * cx] + alpha0[2 * cx + 1] + alpha1[2 * cx] + alpha1[2 * cx + 1])
                        let bU = blurU[cx], bV = blurV[cx]
                        dstU[cx] = Self.byte(bU + t * (a * frontUR[cx] + (1 - a) * Float(srcU[cx]) - bU))
                        dstV[cx] = Self.byte(bV + t * (a * frontVR[cx] + (1 - a) * Float(srcV[cx]) - bV))
                    }
                } else {
                    for cx in 0..<CW {
                        let t = 0.25 * (sw0[2 * cx] + sw0[2 * cx + 1] + sw1[2 * cx] + sw1[2 * cx + 1])
                        let bU = blurU[cx], bV = blurV[cx]
                        dstU[cx] = Self.byte(bU + t * (Float(srcU[cx]) - bU))
                        dstV[cx] = Self.byte(bV + t * (Float(srcV[cx]) - bV))
                    }
                }
            }
        }
    }
}

/// A growable block of uninitialised scratch memory for trivial values.
final class BokehScratch<T>: @unchecked Sendable {
    private(set) var base = UnsafeMutablePointer<T>.allocate(capacity: 1)
    private var capacity = 1

    /// Makes room for at least `count` values (contents are lost when it grows).
    func ensure(_ count: Int) {
        guard count > capacity else { return }
        base.deallocate()
        capacity = count
        base = .allocate(capacity: count)
    }

    /// ``ensure(_:)`` then the base pointer.
    func ensuring(_ count: Int) -> UnsafeMutablePointer<T> {
        ensure(count)
        return base
    }

    subscript(i: Int) -> T {
        get { base[i] }
        set { base[i] = newValue }
    }

    deinit { base.deallocate() }
}
