// BokehBlockKernels: the pieces of the working-resolution pass, one job each — a block's CoC and
// blurred share (from a full-resolution map pixel by pixel, or from a coarser map at the block's
// centre), and a block's mean linear colour, one kernel per pixel layout (RGBA; I420 whole; I420
// with each pixel weighted by how much of it is blurred). `BokehWorkspace.downsample` picks the
// layout's kernel once per frame and runs them per block.
import CineMedia

extension BokehWorkspace {
    /// One working pixel's block of full-resolution pixels, `[x0, x1) × [y0, y1)`.
    struct Block {
        var x0: Int, x1: Int, y0: Int, y1: Int
        var width: Int { x1 - x0 }
        var count: Float { Float((y1 - y0) * (x1 - x0)) }
    }

    /// A block's CoC (full-resolution px, signed), its blurred share, and whether its pixels are
    /// blurred by different amounts (then `weights` holds each pixel's share, row by row).
    struct BlockCoC {
        var coc: Float
        var blurred: Float
        var mixed: Bool
    }

    /// With a map at the image's resolution: the block's CoC from its own pixels. A block wholly
    /// blurred or wholly sharp is decided by the extremes of its disparities (one pass over s²
    /// floats); otherwise each pixel's blurred share goes to `weights`, and the block's CoC is the
    /// blurred pixels' mean. `fallback` is the map value used when nothing in the block is blurred.
    @inline(__always)
    static func perPixelCoC(
        _ b: Block, _ map: MapView, _ p: Parameters, sharpInv: Float, weights: UnsafeMutablePointer<Float>,
        fallback: Float
    ) -> BlockCoC {
        var lo = Float.infinity, hi = -Float.infinity, sum: Float = 0
        for y in b.y0..<b.y1 {
            let m = map.row(y)
            for x in b.x0..<b.x1 {
                lo = min(lo, m[x])
                hi = max(hi, m[x])
                sum += m[x]
            }
        }
        let c0 = p.k * (lo - p.focus), c1 = p.k * (hi - p.focus)
        let near = min(abs(c0), abs(c1)), far = max(abs(c0), abs(c1))
        let straddles = (c0 < 0) != (c1 < 0)
        if !straddles && near >= p.sharpTo || far <= p.sharpFrom {
            let c = min(max(p.k * (sum / b.count - p.focus), -p.maxRadius), p.maxRadius)
            return BlockCoC(coc: c, blurred: far <= p.sharpFrom ? 0 : 1, mixed: false)
        }
        var sumW: Float = 0, sumWC: Float = 0, first: Float = -1, mixed = false
        let bw = b.width
        for y in b.y0..<b.y1 {
            let m = map.row(y)
            for x in b.x0..<b.x1 {
                let cp = min(max(p.k * (m[x] - p.focus), -p.maxRadius), p.maxRadius)
                let wb = 1 - min(max((p.sharpTo - abs(cp)) * sharpInv, 0), 1)
                weights[(y - b.y0) * bw + x - b.x0] = wb
                if first < 0 { first = wb } else if wb != first { mixed = true }
                sumW += wb
                sumWC += wb * cp
            }
        }
        return BlockCoC(coc: sumW > 0 ? sumWC / sumW : p.k * (fallback - p.focus), blurred: sumW / b.count, mixed: mixed)
    }

    /// With a coarser map: the CoC from the disparity at the block's centre (bilinear between map
    /// rows `m0`, `m1` at `fy` and columns `a`, `a + 1` at `fx`).
    @inline(__always)
    static func centreCoC(
        _ m0: UnsafePointer<Float>, _ m1: UnsafePointer<Float>, a: Int, fx: Float, fy: Float, mapWidth: Int, _ p: Parameters,
        sharpInv: Float
    ) -> BlockCoC {
        let b = min(a + 1, mapWidth - 1)
        let top = m0[a] + fx * (m0[b] - m0[a]), bottom = m1[a] + fx * (m1[b] - m1[a])
        let c = min(max(p.k * (top + fy * (bottom - top) - p.focus), -p.maxRadius), p.maxRadius)
        return BlockCoC(coc: c, blurred: 1 - min(max((p.sharpTo - abs(c)) * sharpInv, 0), 1), mixed: false)
    }

    /// An RGBA block's mean linear (highlight-boosted) colour — each pixel weighted by its blurred
    /// share when `weights` is given — and its mean luma code.
    @inline(__always)
    static func averageRGBA(
        _ plane: Plane, _ b: Block, weights: UnsafePointer<Float>?, channelTable: UnsafePointer<Float>, boost: Float
    ) -> (linear: SIMD3<Float>, luma: Float) {
        var sum = SIMD3<Float>.zero, sumL = 0, wsum: Float = 0
        for y in b.y0..<b.y1 {
            let row = plane.row(y, as: UInt8.self)
            for x in b.x0..<b.x1 {
                let q = row + 4 &* x
                sumL &+= luma(rgba: q)
                let wb = weights.map { $0[(y - b.y0) * b.width + x - b.x0] } ?? 1
                var c = SIMD3(channelTable[Int(q[0])], channelTable[Int(q[1])], channelTable[Int(q[2])])
                if boost > 0 { c *= BokehColorSpace.highlightGain(c, boost: boost) }
                sum += c * wb
                wsum += wb
            }
        }
        return (wsum > 0 ? sum / wsum : .zero, Float(sumL) / b.count)
    }

    /// An I420 block's mean linear colour (averaged in Y'CbCr, its luminance the mean of its
    /// pixels' linear luminances) and its mean luma code.
    @inline(__always)
    static func averageI420(
        _ yP: Plane, _ uP: Plane, _ vP: Plane, _ b: Block, lumaTable: UnsafePointer<SIMD2<Float>>, _ decode: UnsafePointer<Float>
    ) -> (linear: SIMD3<Float>, luma: Float) {
        var sumY = 0, sumU = 0, sumV = 0
        var sumLinear = SIMD2<Float>.zero
        let cx0 = b.x0 / 2, cx1 = max(cx0 + 1, (b.x1 + 1) / 2)
        let cy0 = b.y0 / 2, cy1 = max(cy0 + 1, (b.y1 + 1) / 2)
        if b.width == 4 && b.y1 - b.y0 == 4 {
            // The common case, unrolled: a 4×4 luma block and 2×2 chroma blocks.
            for r in 0..<4 {
                let q = yP.row(b.y0 &+ r, as: UInt8.self) + b.x0
                let a = Int(q[0]), bb = Int(q[1]), c = Int(q[2]), d = Int(q[3])
                sumY &+= a &+ bb &+ c &+ d
                sumLinear += (lumaTable[a] + lumaTable[bb]) + (lumaTable[c] + lumaTable[d])
            }
            for r in 0..<2 {
                let qu = uP.row(cy0 &+ r, as: UInt8.self) + cx0, qv = vP.row(cy0 &+ r, as: UInt8.self) + cx0
                sumU &+= Int(qu[0]) &+ Int(qu[1])
                sumV &+= Int(qv[0]) &+ Int(qv[1])
            }
        } else {
            for y in b.y0..<b.y1 {
                let row = yP.row(y, as: UInt8.self)
                for x in b.x0..<b.x1 {
                    sumY += Int(row[x])
                    sumLinear += lumaTable[Int(row[x])]
                }
            }
            for y in cy0..<cy1 {
                let ru = uP.row(y, as: UInt8.self), rv = vP.row(y, as: UInt8.self)
                for x in cx0..<cx1 {
                    sumU += Int(ru[x])
                    sumV += Int(rv[x])
                }
            }
        }
        let nC = Float((cy1 - cy0) * (cx1 - cx0)), n = b.count
        let lin = linearBlock(y: Float(sumY) / n, u: Float(sumU) / nC, v: Float(sumV) / nC, linearLuma: sumLinear.y / n, decode)
        return (lin, Float(sumY) / n)
    }

    /// An I420 block with a depth edge inside: each pixel (and the chroma sample under it) counts
    /// by its blurred share in `weights`.
    @inline(__always)
    static func averageI420Weighted(
        _ yP: Plane, _ uP: Plane, _ vP: Plane, _ b: Block, weights: UnsafePointer<Float>,
        lumaTable: UnsafePointer<SIMD2<Float>>, _ decode: UnsafePointer<Float>
    ) -> (linear: SIMD3<Float>, luma: Float) {
        var sumY = 0
        var wY: Float = 0, wU: Float = 0, wV: Float = 0, wL: Float = 0, wsum: Float = 0
        for y in b.y0..<b.y1 {
            let row = yP.row(y, as: UInt8.self)
            let ru = uP.row(y / 2, as: UInt8.self), rv = vP.row(y / 2, as: UInt8.self)
            for x in b.x0..<b.x1 {
                let wb = weights[(y - b.y0) * b.width + x - b.x0]
                let v = Int(row[x])
                sumY &+= v
                wY += wb * Float(v)
                wL += wb * lumaTable[v].y
                wU += wb * Float(ru[x / 2])
                wV += wb * Float(rv[x / 2])
                wsum += wb
            }
        }
        let lin = wsum > 0 ? linearBlock(y: wY / wsum, u: wU / wsum, v: wV / wsum, linearLuma: wL / wsum, decode) : .zero
        return (lin, Float(sumY) / b.count)
    }

    /// Linear RGB of a block averaged in gamma Y'CbCr, rescaled so that its luminance is the
    /// mean of its pixels' linear (highlight-boosted) luminances, `linearLuma`.
    @inline(__always)
    static func linearBlock(y: Float, u: Float, v: Float, linearLuma: Float, _ decode: UnsafePointer<Float>) -> SIMD3<Float> {
        let g = BokehColorSpace.rgb(y: y, u: u, v: v)
        var lin = SIMD3(BokehColorSpace.decode(g.x, decode), BokehColorSpace.decode(g.y, decode), BokehColorSpace.decode(g.z, decode))
        let averaged = BokehColorSpace.decode((y - 16) / 219, decode)
        if averaged > 1e-4 { lin *= min(linearLuma / averaged, 16) }
        return lin
    }
}
