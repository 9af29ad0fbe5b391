// SceneRasterizer: the hot loops — paints a frame's layers, back to front, span by span, into
// the I420 planes of one view (and the left view's ground-truth disparity), one band of rows
// at a time, then applies the light level and sensor noise while the row is still in cache.
import CineMedia

/// Paints one frame's layers into one view, band by band. Created per frame; holds only
/// pointers and numbers, so building it costs nothing.
///
/// Per row, each layer's covered x-interval comes from its shape (O(1)); only the pixels of that
/// span are touched. Per span, the two texture rows around the span's texture row are blended
/// once into a scratch row (over the texels the span reads, at most one tile width), then each
/// pixel is one linear interpolation between two neighbouring scratch texels at a 16.16
/// fixed-point position — the same arithmetic in both views, so a layer with integer disparity
/// lands byte-for-byte shifted in the right view.
///
/// `@unchecked Sendable`: it is shared by the jobs of one `concurrentPerform`, which returns
/// before the layer list and images it points into go away; the layers are only read, and each
/// job writes a disjoint band of rows of one view.
struct SceneRasterizer: @unchecked Sendable {
    /// The frame's layers, far first.
    let layers: UnsafeBufferPointer<SceneLayer>
    /// Luma size of a view.
    let width: Int
    let height: Int
    /// Light level in 1/256 (256 = full light).
    let light: Int
    /// The sensor-noise table, or `nil` for none.
    let noise: UnsafePointer<Int8>?
    /// Where each row reads the noise table.
    let noiseTable: SensorNoiseTable
    /// The frame index (selects the noise).
    let frame: Int

    /// Scratch bytes a band needs: blended luma, Cb and Cr rows of the widest tile plus the
    /// edge texel.
    static let scratchCount = 3 * (SceneTexture.maximumSize + 16)

    /// Renders chroma rows `chromaRows` and the luma rows they cover, of view `view` (0 = left,
    /// 1 = right). `groundTruth` (float32, left view only) receives each pixel's front-most disparity.
    /// With `background`, each row starts as a copy of the background's row (the layers are
    /// then those in front of it); without, the layers must cover every pixel.
    func render(
        view: Int, chromaRows: Range<Int>, luma: Plane, cb: Plane, cr: Plane, groundTruth: Plane?,
        background: SceneBackground?, scratch: UnsafeMutablePointer<UInt8>
    ) {
        let lumaScratch = scratch
        let cbScratch = scratch + SceneTexture.maximumSize + 16
        let crScratch = cbScratch + SceneTexture.maximumSize + 16
        let back = background.map { ($0.views[view].plane(0), $0.views[view].plane(1), $0.views[view].plane(2), $0.truth.plane(0)) }
        for c in chromaRows {
            var y = 2 * c
            while y < min(2 * c + 2, height) {
                if let back {
                    luma.row(y).copyMemory(from: back.0.row(y), byteCount: width)
                    if let groundTruth { groundTruth.row(y).copyMemory(from: back.3.row(y), byteCount: width * 4) }
                }
                renderLumaRow(
                    y, view: view, into: luma.row(y, as: UInt8.self),
                    groundTruth: groundTruth?.row(y, as: Float.self), scratch: lumaScratch)
                y += 1
            }
            if let back {
                cb.row(c).copyMemory(from: back.1.row(c), byteCount: cb.width)
                cr.row(c).copyMemory(from: back.2.row(c), byteCount: cr.width)
            }
            renderChromaRow(
                c, view: view, cb: cb.row(c, as: UInt8.self), cr: cr.row(c, as: UInt8.self),
                chromaWidth: cb.width, cbScratch: cbScratch, crScratch: crScratch)
        }
    }

    // MARK: Rows

    private func renderLumaRow(
        _ y: Int, view: Int, into row: UnsafeMutablePointer<UInt8>,
        groundTruth: UnsafeMutablePointer<Float>?, scratch: UnsafeMutablePointer<UInt8>
    ) {
        let centre = Double(y) + 0.5
        // Cost: per layer O(1) to find the span; then per covered pixel ~10 integer ops, 2 scratch
        // loads, 1 store (+1 float store for ground truth), plus the span's texels blended once.
        for layer in layers {
            guard let (lo, hi) = layer.interval(atY: centre) else { continue }
            let shift = view == 1 ? layer.disparity : 0
            let x0 = max(0, Int((lo - shift - 0.5).rounded(.up)))
            let x1 = min(width, Int((hi - shift - 0.5).rounded(.up)))
            guard x0 < x1 else { continue }
            let size = layer.texture.size
            let rows = SceneRasterizer.textureRows(
                layer.vertical.origin + centre * layer.vertical.step,
                size: size, wraps: layer.wrapsVertically)
            let u = layer.lumaU + (view == 1 ? layer.lumaShift : 0) + x0 * layer.uStep
            let uLast = u + (x1 - x0 - 1) * layer.uStep
            SceneRasterizer.blend(
                layer.texture.luma + rows.first * size, layer.texture.luma + rows.second * size,
                weight: rows.weight, size: size, wraps: layer.wrapsHorizontally,
                first: u >> 16, last: (uLast >> 16) + 1, into: scratch)
            SceneRasterizer.paint(row, from: x0, to: x1, texels: scratch, mask: size - 1, u: u, step: layer.uStep)
            if let groundTruth {
                (groundTruth + x0).update(repeating: Float(layer.disparity), count: x1 - x0)
            }
        }
        guard light != 256 || noise != nil else { return }
        let n = noise.map { $0 + noiseTable.rowOffset(frame: frame, view: view, row: y) }
        SceneRasterizer.finishLuma(row, count: width, gain: light, noise: n)
    }

    private func renderChromaRow(
        _ c: Int, view: Int, cb: UnsafeMutablePointer<UInt8>, cr: UnsafeMutablePointer<UInt8>,
        chromaWidth: Int, cbScratch: UnsafeMutablePointer<UInt8>,
        crScratch: UnsafeMutablePointer<UInt8>
    ) {
        // A chroma sample's centre is the centre of its 2 × 2 luma block (half a row lower for an
        // odd image's last row, which has only one luma row).
        let centre = 2 * c + 1 < height ? Double(2 * c + 1) : Double(2 * c) + 0.5
        // Cost: as for luma, per covered chroma sample two interpolations (Cb and Cr) sharing one position.
        for layer in layers {
            guard let (lo, hi) = layer.interval(atY: centre) else { continue }
            let shift = view == 1 ? layer.disparity : 0
            let x0 = max(0, Int(((lo - shift - 1) / 2).rounded(.up)))
            let x1 = min(chromaWidth, Int(((hi - shift - 1) / 2).rounded(.up)))
            guard x0 < x1 else { continue }
            let size = layer.texture.size / 2
            let v = (layer.vertical.origin + centre * layer.vertical.step - 0.5) / 2
            let rows = SceneRasterizer.textureRows(v, size: size, wraps: layer.wrapsVertically)
            let u = layer.chromaU + (view == 1 ? layer.chromaShift : 0) + x0 * layer.uStep
            let uLast = u + (x1 - x0 - 1) * layer.uStep
            SceneRasterizer.blend(
                layer.texture.cb + rows.first * size, layer.texture.cb + rows.second * size,
                weight: rows.weight, size: size, wraps: layer.wrapsHorizontally,
                first: u >> 16, last: (uLast >> 16) + 1, into: cbScratch)
            SceneRasterizer.blend(
                layer.texture.cr + rows.first * size, layer.texture.cr + rows.second * size,
                weight: rows.weight, size: size, wraps: layer.wrapsHorizontally,
                first: u >> 16, last: (uLast >> 16) + 1, into: crScratch)
            SceneRasterizer.paintPair(
                cb, cr, from: x0, to: x1, cbTexels: cbScratch, crTexels: crScratch,
                mask: size - 1, u: u, step: layer.uStep)
        }
        guard light != 256 else { return }
        SceneRasterizer.finishChroma(cb, count: chromaWidth, gain: light)
        SceneRasterizer.finishChroma(cr, count: chromaWidth, gain: light)
    }

    // MARK: Kernels

    /// Applies the light level (`gain`/256) and adds `noise` (if any) to `count` luma samples.
    /// Cost: per pixel 1 load (+1 noise load), 1 multiply, 2 adds, a clamp and 1 store, in 16-bit
    /// lanes: the narrow types let the compiler vectorise both loops (16 pixels per step with SSE2).
    @inline(__always)
    static func finishLuma(_ row: UnsafeMutablePointer<UInt8>, count: Int, gain: Int, noise: UnsafePointer<Int8>?) {
        let g = UInt16(truncatingIfNeeded: gain)
        if let noise {
            for x in 0..<count {
                let lit = Int16(truncatingIfNeeded: (UInt16(row[x]) &* g &+ 128) &>> 8)
                row[x] = UInt8(truncatingIfNeeded: min(max(lit &+ Int16(noise[x]), 0), 255))
            }
        } else {
            for x in 0..<count { row[x] = UInt8(truncatingIfNeeded: (UInt16(row[x]) &* g &+ 128) &>> 8) }
        }
    }

    /// Pulls `count` chroma samples towards neutral (128) by the light level (`gain`/256).
    /// Cost: per sample 1 load, 1 multiply, 2 adds, 1 store, in 32-bit lanes (vectorised).
    @inline(__always)
    static func finishChroma(_ row: UnsafeMutablePointer<UInt8>, count: Int, gain: Int) {
        let g = Int32(truncatingIfNeeded: gain)
        for x in 0..<count {
            row[x] = UInt8(truncatingIfNeeded: 128 &+ (((Int32(row[x]) &- 128) &* g &+ 128) &>> 8))
        }
    }

    /// The two tile rows around texture row `v` and the weight of the second, in 1/256.
    @inline(__always)
    static func textureRows(_ v: Double, size: Int, wraps: Bool) -> (first: Int, second: Int, weight: Int) {
        let fixed = Int((v * 256).rounded(.down))
        let row = fixed >> 8, mask = size - 1
        if wraps { return (row & mask, (row + 1) & mask, fixed & 255) }
        return (min(max(row, 0), mask), min(max(row + 1, 0), mask), fixed & 255)
    }

    /// Blends tile rows `a` and `b` (weight of `b` in 1/256) over texels `first ... last`
    /// (unwrapped indices) into `out[index & (size-1)]`, and sets `out[size]` to the texel that
    /// follows the last one (texel 0 when wrapping, the last texel when clamping).
    /// Cost: min(last − first + 1, size) texels × (2 loads, 2 multiplies, 1 store).
    @inline(__always)
    static func blend(
        _ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, weight: Int, size: Int, wraps: Bool,
        first: Int, last: Int, into out: UnsafeMutablePointer<UInt8>
    ) {
        let mask = size - 1, edge = wraps ? 0 : mask, keep = 256 &- weight
        if last - first + 1 >= size {
            for t in 0..<size {
                out[t] = UInt8(truncatingIfNeeded: (Int(a[t]) &* keep &+ Int(b[t]) &* weight &+ 128) >> 8)
            }
            out[size] = out[edge]
            return
        }
        var k = first
        while k <= last {
            let t = k & mask
            let value = UInt8(truncatingIfNeeded: (Int(a[t]) &* keep &+ Int(b[t]) &* weight &+ 128) >> 8)
            out[t] = value
            if t == edge { out[size] = value }
            k &+= 1
        }
    }

    /// Writes pixels `x0 ..< x1` of `row`, each the linear interpolation of scratch texels
    /// `i` and `i + 1` at the 16.16 position `u + (x − x0)·step`.
    /// Cost: per pixel 2 loads, ~8 integer ops, 1 store.
    @inline(__always)
    static func paint(
        _ row: UnsafeMutablePointer<UInt8>, from x0: Int, to x1: Int, texels: UnsafePointer<UInt8>,
        mask: Int, u: Int, step: Int
    ) {
        var position = u
        for x in x0..<x1 {
            let i = (position >> 16) & mask, f = (position >> 8) & 255
            let a = Int(texels[i]), b = Int(texels[i &+ 1])
            row[x] = UInt8(truncatingIfNeeded: ((a &<< 8) &+ (b &- a) &* f &+ 128) >> 8)
            position &+= step
        }
    }

    /// ``paint(_:from:to:texels:mask:u:step:)`` for Cb and Cr at once, sharing the position.
    /// Cost: per sample 4 loads, ~12 integer ops, 2 stores.
    @inline(__always)
    static func paintPair(
        _ cb: UnsafeMutablePointer<UInt8>, _ cr: UnsafeMutablePointer<UInt8>, from x0: Int,
        to x1: Int, cbTexels: UnsafePointer<UInt8>, crTexels: UnsafePointer<UInt8>,
        mask: Int, u: Int, step: Int
    ) {
        var position = u
        for x in x0..<x1 {
            let i = (position >> 16) & mask, f = (position >> 8) & 255
            let a = Int(cbTexels[i]), b = Int(cbTexels[i &+ 1])
            let c = Int(crTexels[i]), d = Int(crTexels[i &+ 1])
            cb[x] = UInt8(truncatingIfNeeded: ((a &<< 8) &+ (b &- a) &* f &+ 128) >> 8)
            cr[x] = UInt8(truncatingIfNeeded: ((c &<< 8) &+ (d &- c) &* f &+ 128) >> 8)
            position &+= step
        }
    }
}
