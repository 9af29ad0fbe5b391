// MatteUpsampler: a low-resolution person matte brought to the frame's resolution along the
// frame's own edges — the fast guided filter (He & Sun, 2015): a local linear model
// matte ≈ a · luma + b fitted at the matte's size, its coefficients upsampled and applied to
// the full-resolution luma, so the outline follows hair and shoulders, not the model's grid.
import CineMedia

/// Upsamples a `gray8` matte to a frame's size, guided by the frame's luma.
///
/// ```swift
/// let full = MatteUpsampler().upsample(matte, guide: frame)   // gray8 at the frame's size
/// ```
/// Per frame, keep a ``Model`` and call ``fit(_:guide:into:)``, then ``Model/alpha(row:luma:into:)``
/// for the rows you need: no allocation once the model has the matte's size.
public struct MatteUpsampler: Sendable, Hashable {
    /// Window radius of the local model, in matte pixels (1 = 3×3, 22 px of a 1080p frame from
    /// a 256×144 matte). Wider windows sharpen a synthetic edge further but, on real photos,
    /// spread a glow wherever hair and wall have the same brightness.
    public var radius: Int
    /// Regularisation (luma in 0…1, squared): larger follows the coarse matte, smaller the
    /// frame's edges; edges weaker than about √epsilon (16 levels at 0.004) are not followed.
    public var epsilon: Float

    /// Creates an upsampler.
    public init(radius: Int = 1, epsilon: Float = 0.004) {
        self.radius = radius
        self.epsilon = epsilon
    }

    /// The local linear model of one matte against one frame: `α ≈ A · luma + B` with `A`, `B`
    /// at the matte's size, bilinearly interpolated between matte pixel centres. Its buffers are
    /// reused by the next ``MatteUpsampler/fit(_:guide:into:)`` of the same sizes.
    public struct Model: Sendable {
        /// The matte's size.
        public private(set) var matteWidth = 0, matteHeight = 0
        /// The frame's size.
        public private(set) var frameWidth = 0, frameHeight = 0
        var a: [Float] = [], b: [Float] = []
        // Scratch at the matte's size: the guide's mean luma, the matte, their products, counts.
        var lowI: [Float] = [], p: [Float] = [], ip: [Float] = [], ii: [Float] = [], counts: [Float] = []
        var meanI: [Float] = [], meanP: [Float] = [], meanIP: [Float] = [], meanII: [Float] = []
        var table: [Double] = []
        // Each frame column's matte column pair and weight; each frame column's footprint cell.
        var x0: [Int32] = [], wx: [Float] = [], cell: [Int32] = []
        // One frame row of luma and of α, for ``MatteUpsampler/upsample(_:guide:model:pool:)``.
        var rowLuma: [UInt8] = [], rowAlpha: [Float] = []

        /// An empty model; ``MatteUpsampler/fit(_:guide:into:)`` sizes it.
        public init() {}

        mutating func resize(matte mw: Int, _ mh: Int, frame gw: Int, _ gh: Int) {
            let n = mw * mh
            if a.count != n {
                for k in [\Model.a, \.b, \.lowI, \.p, \.ip, \.ii, \.counts, \.meanI, \.meanP, \.meanIP, \.meanII] as [WritableKeyPath<Model, [Float]>] {
                    self[keyPath: k] = [Float](repeating: 0, count: n)
                }
                table = [Double](repeating: 0, count: (mw + 1) * (mh + 1))
            }
            if (matteWidth, matteHeight, frameWidth, frameHeight) != (mw, mh, gw, gh) {
                let sx = Double(gw) / Double(mw)
                x0 = [Int32](repeating: 0, count: gw); wx = [Float](repeating: 0, count: gw)
                cell = (0..<gw).map { Int32(min(mw - 1, Int(Double($0) / sx))) }
                for x in 0..<gw {
                    let f = max(0, min(Double(mw - 1), (Double(x) + 0.5) / sx - 0.5))
                    x0[x] = Int32(min(mw - 2, Int(f)))
                    wx[x] = Float(f - Double(x0[x]))
                }
            }
            (matteWidth, matteHeight, frameWidth, frameHeight) = (mw, mh, gw, gh)
        }

        /// The matte's rows around frame row `y`: the upper one and the weight of the lower.
        @inline(__always) func rows(_ y: Int) -> (Int, Float) {
            let sy = Double(frameHeight) / Double(matteHeight)
            let f = max(0, min(Double(matteHeight - 1), (Double(y) + 0.5) / sy - 0.5))
            let y0 = min(matteHeight - 2, Int(f))
            return (y0, Float(f - Double(y0)))
        }

        /// α (0…1) of frame row `y` at columns `range`, from that row's `luma` (frame columns),
        /// into `out` (indexed by frame column). Cost: ~12 flops a pixel.
        public func alpha(row y: Int, luma: UnsafePointer<UInt8>, columns range: Range<Int>, into out: UnsafeMutablePointer<Float>) {
            let (y0, wy) = rows(y)
            let mw = matteWidth, r0 = y0 * mw, r1 = r0 + mw
            a.withUnsafeBufferPointer { A in
                b.withUnsafeBufferPointer { B in
                    for x in range {
                        let i = Int(x0[x]), f = wx[x]
                        let a0 = A[r0 + i] + (A[r0 + i + 1] - A[r0 + i]) * f
                        let a1 = A[r1 + i] + (A[r1 + i + 1] - A[r1 + i]) * f
                        let b0 = B[r0 + i] + (B[r0 + i + 1] - B[r0 + i]) * f
                        let b1 = B[r1 + i] + (B[r1 + i + 1] - B[r1 + i]) * f
                        out[x] = max(0, min(1, (a0 + (a1 - a0) * wy) * Float(luma[x]) * (1 / 255) + b0 + (b1 - b0) * wy))
                    }
                }
            }
        }
    }

    /// Fits the local linear model of `matte` (`gray8`, any size of the frame's aspect, at
    /// least 2×2) against `guide` (`gray8`, I420 or NV12: its luma plane; or RGBA) into `model`.
    /// Cost: one read of the guide's luma, box sums at the matte's size; no allocation when
    /// `model` already has these sizes.
    public func fit(_ matte: Image, guide: Image, into model: inout Model) {
        precondition(matte.format == .gray8, "the matte is gray8")
        let mw = matte.width, mh = matte.height
        fit(width: mw, height: mh, guide: guide, into: &model) { p in
            for y in 0..<mh {
                let row = matte.plane(0).row(y, as: UInt8.self)
                for x in 0..<mw { p[y * mw + x] = Float(row[x]) / 255 }
            }
        }
    }

    /// The local linear model of any `mw`×`mh` signal against `guide`'s luma: `values` writes the
    /// signal (row by row) into the array it is given, after the guide's means are taken. The
    /// matte's ``fit(_:guide:into:)`` and ``GuidedDepthUpsampler``'s disparity both fit this way.
    func fit(width mw: Int, height mh: Int, guide: Image, into model: inout Model, values: (inout [Float]) -> Void) {
        precondition([.gray8, .i420, .nv12, .rgba8].contains(guide.format), "the guide is gray8, I420, NV12 or RGBA")
        let gw = guide.width, gh = guide.height
        precondition(mw >= 2 && mh >= 2, "the signal is at least 2×2")
        model.resize(matte: mw, mh, frame: gw, gh)
        let n = mw * mh
        let luma = guide.plane(0), sy = Double(gh) / Double(mh), rgba = guide.format == .rgba8
        let cell = model.cell
        model.lowI.withUnsafeMutableBufferPointer { li in
            model.counts.withUnsafeMutableBufferPointer { c in
                li.update(repeating: 0)
                c.update(repeating: 0)
                // The guide's luma averaged over each matte pixel's footprint. When the footprints
                // are whole blocks (the matcher's quarter-resolution map), a row is summed block by
                // block: the same exact integer sums, without a scattered add a pixel.
                if !rgba && gw % mw == 0 && gh % mh == 0 {
                    let fx = gw / mw, fy = gh / mh
                    for y in 0..<gh {
                        let row = luma.row(y, as: UInt8.self), r = (y / fy) * mw
                        var x = 0
                        for k in 0..<mw {
                            var sum: UInt32 = 0
                            for _ in 0..<fx { sum &+= UInt32(row[x]); x &+= 1 }
                            li[r + k] += Float(sum)
                        }
                    }
                    c.update(repeating: Float(fx * fy))
                } else {
                    for y in 0..<gh {
                        let row = luma.row(y, as: UInt8.self), r = min(mh - 1, Int(Double(y) / sy)) * mw
                        if rgba {
                            for x in 0..<gw {
                                let q = row + 4 &* x
                                li[r + Int(cell[x])] += Float(BokehWorkspace.luma(rgba: q))
                                c[r + Int(cell[x])] += 1
                            }
                        } else {
                            for x in 0..<gw {
                                li[r + Int(cell[x])] += Float(row[x])
                                c[r + Int(cell[x])] += 1
                            }
                        }
                    }
                }
                for k in 0..<n { li[k] = li[k] / max(1, c[k]) / 255 }
            }
        }
        values(&model.p)
        for k in 0..<n {
            model.ip[k] = model.lowI[k] * model.p[k]
            model.ii[k] = model.lowI[k] * model.lowI[k]
        }
        boxMean(model.lowI, into: &model.meanI, mw, mh, &model.table)
        boxMean(model.p, into: &model.meanP, mw, mh, &model.table)
        boxMean(model.ip, into: &model.meanIP, mw, mh, &model.table)
        boxMean(model.ii, into: &model.meanII, mw, mh, &model.table)
        for k in 0..<n {
            let meanI = model.meanI[k], meanP = model.meanP[k]
            let variance = model.meanII[k] - meanI * meanI, covariance = model.meanIP[k] - meanI * meanP
            let a = covariance / (variance + epsilon)
            model.ip[k] = a                  // a and b before their own box mean
            model.ii[k] = meanP - a * meanI
        }
        boxMean(model.ip, into: &model.a, mw, mh, &model.table)
        boxMean(model.ii, into: &model.b, mw, mh, &model.table)
    }

    /// `matte` (`gray8`, any size of the frame's aspect) at the size of `guide` (`gray8`, I420,
    /// NV12 or RGBA), 255 = person.
    /// Cost: ``fit(_:guide:into:)`` and ~12 flops per frame pixel.
    public func upsample(_ matte: Image, guide: Image, pool: ImagePool? = nil) -> Image {
        var model = Model()
        return upsample(matte, guide: guide, model: &model, pool: pool)
    }

    /// As ``upsample(_:guide:pool:)``, fitting into `model` so that a caller doing this every
    /// frame reuses its buffers (no allocation beyond the result, which `pool` can supply).
    public func upsample(_ matte: Image, guide: Image, model: inout Model, pool: ImagePool? = nil) -> Image {
        fit(matte, guide: guide, into: &model)
        let gw = guide.width, gh = guide.height
        let out = pool?.makeImage(width: gw, height: gh, format: .gray8) ?? Image(width: gw, height: gh, format: .gray8)
        if model.rowAlpha.count != gw { model.rowAlpha = [Float](repeating: 0, count: gw); model.rowLuma = [UInt8](repeating: 0, count: gw) }
        // Taken out of the model while it is read (no copy-on-write), put back after.
        var alpha: [Float] = [], luma: [UInt8] = []
        swap(&alpha, &model.rowAlpha); swap(&luma, &model.rowLuma)
        defer { swap(&alpha, &model.rowAlpha); swap(&luma, &model.rowLuma) }
        luma.withUnsafeMutableBufferPointer { l in
            alpha.withUnsafeMutableBufferPointer { a in
                for y in 0..<gh {
                    let o = out.plane(0).row(y, as: UInt8.self)
                    MatteUpsampler.lumaRow(guide, y, into: l.baseAddress!)
                    model.alpha(row: y, luma: l.baseAddress!, columns: 0..<gw, into: a.baseAddress!)
                    for x in 0..<gw { o[x] = UInt8(a[x] * 255 + 0.5) }
                }
            }
        }
        return out
    }

    /// Row `y` of `image`'s luma (`gray8`, I420, NV12: plane 0; RGBA: Rec. 709 weights) into `out`.
    public static func lumaRow(_ image: Image, _ y: Int, into out: UnsafeMutablePointer<UInt8>) {
        let row = image.plane(0).row(y, as: UInt8.self)
        guard image.format == .rgba8 else {
            out.update(from: row, count: image.width)
            return
        }
        for x in 0..<image.width {
            out[x] = UInt8(BokehWorkspace.luma(rgba: row + 4 &* x))
        }
    }

    /// The mean of `v` over a (2r+1)² window clipped to the image, by summed-area table, into `out`.
    private func boxMean(_ v: [Float], into out: inout [Float], _ w: Int, _ h: Int, _ table: inout [Double]) {
        let s = w + 1
        for y in 0..<h {
            var run = 0.0
            for x in 0..<w {
                run += Double(v[y * w + x])
                table[(y + 1) * s + x + 1] = table[y * s + x + 1] + run
            }
        }
        for y in 0..<h {
            let ya = max(0, y - radius), yb = min(h, y + radius + 1)
            for x in 0..<w {
                let xa = max(0, x - radius), xb = min(w, x + radius + 1)
                let sum = table[yb * s + xb] - table[ya * s + xb] - table[yb * s + xa] + table[ya * s + xa]
                out[y * w + x] = Float(sum / Double((yb - ya) * (xb - xa)))
            }
        }
    }
}
