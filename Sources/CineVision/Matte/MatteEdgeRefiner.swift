// MatteEdgeRefiner: a coarse disparity map's depth edges redrawn along a person matte — near the
// matte's outline each pixel takes the person's or the background's disparity by how much of it is
// person (the matte brought to the frame along its own edges), so the blur's edge follows hair and
// shoulders, not the map's grid or a stereo matcher's fattened outline.
import CineMedia
import Dispatch

/// Sharpens a disparity map's edges along a person matte, for the bokeh renderer.
///
/// Within ``Settings/band`` matte pixels of the matte's outline (where it crosses ½), a pixel's
/// disparity is `far + t · (near − far)`: `near` and `far` are the mean disparities of the
/// coarse map's samples within ``Settings/reach`` that the matte calls person and not (the
/// person and what is behind), and `t` the person share there — the matte upsampled along the frame's luma
/// (``MatteUpsampler``), narrowed to ``Settings/ramp`` around ½. Elsewhere the map is
/// bilinearly upsampled as it is. The result has the frame's resolution, so the renderer splits
/// each block pixel by pixel and a sharp subject's colour stays out of the blur.
///
/// ```swift
/// var refiner = MatteEdgeRefiner()
/// let sharp = refiner.refine(map, matte: matte, guide: frame)
/// let out = try renderer.render(frame, disparity: sharp, focusDisparity: f, fNumber: 2)
/// ```
/// The returned map's buffer is reused by the next call. Use one refiner from one thread.
public struct MatteEdgeRefiner: Sendable {
    /// The knobs of the refiner.
    public struct Settings: Sendable, Hashable {
        /// The guided upsampling of the matte.
        public var upsampler = MatteUpsampler()
        /// Map samples on each side searched for the person's and the background's disparity;
        /// must exceed how far the map's edge strays from the true outline (a matcher's
        /// fattening, a coarse grid): 5 samples are 20 px at 1080p from a 480×270 map.
        public var reach = 5
        /// Matte pixels on each side of the outline that are redrawn (2 = 15 px at 1080p from a
        /// 256×144 matte).
        public var band = 2
        /// Width of the matte band (around ½) over which a pixel goes from background to person:
        /// small draws a crisp depth edge, 1 keeps the matte's softness.
        public var ramp: Float = 0.2
        /// The person share at which the edge is drawn (the middle of the ramp).
        public var level: Float = 0.5
        /// Cores to use.
        public var threads = 2
        /// Draw the map at half the frame's resolution (video frames of even sides; stills stay
        /// whole): the renderer brings it to the frame along the frame's luma, at a quarter of
        /// the cost of a full-resolution map.
        public var halfResolution = true
        /// The default settings.
        public init() {}
    }

    /// The settings of the next call.
    public var settings: Settings
    private var model = MatteUpsampler.Model()
    private var filled: [Float] = [], near: [Float] = [], far: [Float] = [], scratch: [Float] = []
    /// At the matte's size: 1 where the outline is within ``Settings/band``, and per row whether any is.
    private var edge: [Float] = [], edgeRows: [Bool] = [], personCount: [Int32] = []
    private var mapX0: [Int32] = [], mapFX: [Float] = [], sums: [SIMD4<Float>] = [], boxed: [SIMD4<Float>] = [], column: [SIMD4<Float>] = []
    private var output: Image?, halfGuide: Image?

    /// Creates a refiner.
    public init(settings: Settings = Settings()) { self.settings = settings }

    /// `map` (any resolution of the frame's aspect) with its edges redrawn along `matte`
    /// (`gray8`, any size of the frame's aspect; 255 = person), at the resolution of `frame`
    /// (`gray8`, I420, NV12 or RGBA), or half of it (``Settings/halfResolution``). A map with no
    /// finite sample is returned as it is.
    /// Cost: one read of the guide's luma, a few passes at the map's and matte's sizes, and per
    /// frame pixel one bilinear upsampling (2 multiply-adds); ~40 flops more per pixel of the band.
    public mutating func refine(_ map: DisparityMap, matte: Image, guide frame: Image) -> DisparityMap {
        precondition(map.values.format == .float32, "a disparity map is float32")
        let plane = map.values.plane(0), mw = plane.width, mh = plane.height
        // At half resolution, the guide is the frame's luma box-averaged 2×2 (video frames of even sides).
        var halved: Image?
        if settings.halfResolution && frame.format != .rgba8 && frame.width % 2 == 0 && frame.height % 2 == 0 && frame.width >= 4 {
            if halfGuide?.width != frame.width / 2 || halfGuide?.height != frame.height / 2 {
                halfGuide = Image(width: frame.width / 2, height: frame.height / 2, format: .gray8)
            }
            ImageResizer.halve(frame.plane(0), into: halfGuide!.plane(0), rows: 0..<(frame.height / 2))
            halved = halfGuide
        }
        let guide = halved ?? frame
        let W = guide.width, H = guide.height
        if filled.count != mw * mh {
            filled = [Float](repeating: 0, count: mw * mh)
            near = filled; far = filled
        }
        let valid = filled.withUnsafeMutableBufferPointer { DisparityHoles.fill(plane, into: $0.baseAddress!) }
        guard valid else { return map }
        sides(matte, mw, mh)
        findEdge(matte)
        settings.upsampler.fit(matte, guide: guide, into: &model)
        if columns != (W, mw) {
            mapX0 = [Int32](repeating: 0, count: W); mapFX = [Float](repeating: 0, count: W)
            for x in 0..<W {
                let u = min(max(0, (Double(x) + 0.5) * Double(mw) / Double(W) - 0.5), Double(mw - 1))
                let i = min(Int(u), mw - 2)
                mapX0[x] = Int32(max(0, i))
                mapFX[x] = mw > 1 ? Float(u - Double(max(0, i))) : 0
            }
            columns = (W, mw)
        }
        if output?.width != W || output?.height != H { output = Image(width: W, height: H, format: .float32) }
        let perBand = 3 * mw + W   // three map rows and a row of luma bytes
        if scratch.count < max(1, settings.threads) * perBand { scratch = [Float](repeating: 0, count: max(1, settings.threads) * perBand) }
        let out = output!
        let bands = max(1, settings.threads)
        let ramp = max(1e-3, settings.ramp), lo = settings.level - ramp / 2
        let model = self.model, edgeRows = self.edgeRows, rgba = guide.format == .rgba8
        filled.withUnsafeBufferPointer { F in
        near.withUnsafeBufferPointer { N in
        far.withUnsafeBufferPointer { Fa in
        edge.withUnsafeBufferPointer { E in
        mapX0.withUnsafeBufferPointer { X0 in
        mapFX.withUnsafeBufferPointer { FX in
        model.x0.withUnsafeBufferPointer { MX0 in
        model.wx.withUnsafeBufferPointer { MWX in
        model.a.withUnsafeBufferPointer { A in
        model.b.withUnsafeBufferPointer { B in
        scratch.withUnsafeMutableBufferPointer { S in
            let F = F.baseAddress!, N = N.baseAddress!, Fa = Fa.baseAddress!, E = E.baseAddress!
            let X0 = X0.baseAddress!, FX = FX.baseAddress!, MX0 = MX0.baseAddress!, MWX = MWX.baseAddress!
            let A = A.baseAddress!, B = B.baseAddress!, S = S.baseAddress!
            let matteWidth = model.matteWidth
            RowBands.run(0..<H, bands: bands) { band, rows in
                let rowD = S + band * perBand, rowN = rowD + mw, rowF = rowN + mw
                let lumaBytes = UnsafeMutableRawPointer(rowF + mw).bindMemory(to: UInt8.self, capacity: W)
                for y in rows {
                    let v = min(max(0, (Double(y) + 0.5) * Double(mh) / Double(H) - 0.5), Double(mh - 1))
                    let j0 = min(Int(v), mh - 1), j1 = min(j0 + 1, mh - 1), fy = Float(v - Double(j0))
                    let t0 = F + j0 * mw, t1 = F + j1 * mw
                    for i in 0..<mw { rowD[i] = t0[i] + fy * (t1[i] - t0[i]) }
                    let dst = out.plane(0).row(y, as: Float.self)
                    for x in 0..<W {
                        let i = Int(X0[x]), f = FX[x]
                        dst[x] = rowD[i] + f * (rowD[min(i + 1, mw - 1)] - rowD[i])
                    }
                    let (m0, wy) = model.rows(y)
                    guard edgeRows[m0] || edgeRows[m0 + 1] else { continue }
                    let n0 = N + j0 * mw, n1 = N + j1 * mw, f0 = Fa + j0 * mw, f1 = Fa + j1 * mw
                    for i in 0..<mw {
                        rowN[i] = n0[i] + fy * (n1[i] - n0[i])
                        rowF[i] = f0[i] + fy * (f1[i] - f0[i])
                    }
                    let g = guide.plane(0).row(y, as: UInt8.self)
                    let luma: UnsafePointer<UInt8>
                    if rgba {
                        for x in 0..<W { lumaBytes[x] = UInt8(BokehWorkspace.luma(rgba: g + 4 &* x)) }
                        luma = UnsafePointer(lumaBytes)
                    } else {
                        luma = UnsafePointer(g)
                    }
                    let r0 = m0 * matteWidth, r1 = r0 + matteWidth
                    for x in 0..<W {
                        let c = Int(MX0[x]), wx = MWX[x]
                        let e0 = E[r0 + c] + wx * (E[r0 + c + 1] - E[r0 + c])
                        let e1 = E[r1 + c] + wx * (E[r1 + c + 1] - E[r1 + c])
                        let e = e0 + wy * (e1 - e0)
                        guard e > 0 else { continue }
                        // The person share here: the matte's local model applied to this pixel's luma.
                        let a0 = A[r0 + c] + wx * (A[r0 + c + 1] - A[r0 + c]), a1 = A[r1 + c] + wx * (A[r1 + c + 1] - A[r1 + c])
                        let b0 = B[r0 + c] + wx * (B[r0 + c + 1] - B[r0 + c]), b1 = B[r1 + c] + wx * (B[r1 + c + 1] - B[r1 + c])
                        let alpha = (a0 + wy * (a1 - a0)) * Float(luma[x]) * (1 / 255) + b0 + wy * (b1 - b0)
                        let s = min(max((alpha - lo) / ramp, 0), 1), t = s * s * (3 - 2 * s)
                        let i = Int(X0[x]), f = FX[x], i1 = min(i + 1, mw - 1)
                        let dn = rowN[i] + f * (rowN[i1] - rowN[i]), df = rowF[i] + f * (rowF[i1] - rowF[i])
                        let refined = df + t * (dn - df)
                        dst[x] += e * (refined - dst[x])
                    }
                }
            }
        }}}}}}}}}}}
        return DisparityMap(values: out, confidence: nil, referenceWidth: map.referenceWidth, referenceHeight: map.referenceHeight)
    }

    /// The frame's and the map's widths the column taps were made for.
    private var columns = (0, 0)
    /// Each map column's matte columns and weight, and the map's and matte's widths they are for.
    private var matteX0: [Int32] = [], matteX1: [Int32] = [], matteFX: [Float] = [], matteTapsFor = (0, 0)

    /// `near` and `far`: the mean filled disparity of the samples within ``Settings/reach``
    /// that the matte calls person (≥ 0.75) and not (≤ 0.25) — the person's and the background's
    /// disparity beside the outline, robust to a matcher's noise and fattening; a sample with no
    /// such neighbour keeps its own. Cost per map sample: a bilinear matte sample and two sliding
    /// box sums of four values.
    private mutating func sides(_ matte: Image, _ mw: Int, _ mh: Int) {
        let r = max(0, settings.reach), n = mw * mh
        if sums.count != n { sums = [SIMD4<Float>](repeating: .zero, count: n); boxed = sums; column = [SIMD4<Float>](repeating: .zero, count: mw) }
        let plane = matte.plane(0), tw = matte.width, th = matte.height
        let sx = Float(tw) / Float(mw), sy = Float(th) / Float(mh)
        if matteTapsFor != (mw, tw) {
            matteX0 = (0..<mw).map { x in Int32(min(Int(min(max(0, (Float(x) + 0.5) * sx - 0.5), Float(tw - 1))), tw - 1)) }
            matteX1 = matteX0.map { min($0 + 1, Int32(tw - 1)) }
            matteFX = (0..<mw).map { x in min(max(0, (Float(x) + 0.5) * sx - 0.5), Float(tw - 1)) - Float(matteX0[x]) }
            matteTapsFor = (mw, tw)
        }
        let T0 = matteX0, T1 = matteX1, TF = matteFX
        filled.withUnsafeBufferPointer { F in
        near.withUnsafeMutableBufferPointer { N in
        far.withUnsafeMutableBufferPointer { Fa in
        sums.withUnsafeMutableBufferPointer { S in
        boxed.withUnsafeMutableBufferPointer { Bx in
        column.withUnsafeMutableBufferPointer { C in
            // Per sample: (person · d, person, room · d, room), the matte sampled bilinearly.
            for y in 0..<mh {
                let v = min(max(0, (Float(y) + 0.5) * sy - 0.5), Float(th - 1))
                let j0 = min(Int(v), th - 1), j1 = min(j0 + 1, th - 1), fy = v - Float(j0)
                let t0 = plane.row(j0, as: UInt8.self), t1 = plane.row(j1, as: UInt8.self)
                for x in 0..<mw {
                    let i0 = Int(T0[x]), i1 = Int(T1[x]), fx = TF[x]
                    let top = Float(t0[i0]) + fx * (Float(t0[i1]) - Float(t0[i0]))
                    let bottom = Float(t1[i0]) + fx * (Float(t1[i1]) - Float(t1[i0]))
                    let a = top + fy * (bottom - top), d = F[y * mw + x]
                    let person: Float = a >= 191 ? 1 : 0, room: Float = a <= 64 ? 1 : 0
                    S[y * mw + x] = SIMD4(person * d, person, room * d, room)
                }
            }
            // Sliding sums over each row, then down each column.
            for y in 0..<mh {
                let row = S.baseAddress! + y * mw, out = Bx.baseAddress! + y * mw
                var t = SIMD4<Float>.zero
                for i in 0..<min(r, mw) { t += row[i] }
                for x in 0..<mw {
                    if x + r < mw { t += row[x + r] }
                    if x - r - 1 >= 0 { t -= row[x - r - 1] }
                    out[x] = t
                }
            }
            C.update(repeating: .zero)
            for j in 0..<min(r, mh) { for x in 0..<mw { C[x] += Bx[j * mw + x] } }
            for y in 0..<mh {
                let enter = y + r < mh ? Bx.baseAddress! + (y + r) * mw : nil
                let leave = y - r - 1 >= 0 ? Bx.baseAddress! + (y - r - 1) * mw : nil
                for x in 0..<mw {
                    if let enter { C[x] += enter[x] }
                    if let leave { C[x] -= leave[x] }
                    let t = C[x], k = y * mw + x
                    N[k] = t[1] > 0.5 ? t[0] / t[1] : F[k]
                    Fa[k] = t[3] > 0.5 ? t[2] / t[3] : F[k]
                }
            }
        }}}}}}
    }

    /// `edge`: 1 at each matte pixel whose window of ``Settings/band`` pixels holds both
    /// person (≥ 128) and not (< 128); `edgeRows`: rows with any. Cost: a summed-area table of
    /// the person mask and four reads per matte pixel.
    private mutating func findEdge(_ matte: Image) {
        let w = matte.width, h = matte.height, r = max(1, settings.band), s = w + 1
        if edge.count != w * h {
            edge = [Float](repeating: 0, count: w * h)
            edgeRows = [Bool](repeating: false, count: h)
            personCount = [Int32](repeating: 0, count: s * (h + 1))  // row 0 and column 0 stay 0
        }
        let plane = matte.plane(0)
        personCount.withUnsafeMutableBufferPointer { T in
            edge.withUnsafeMutableBufferPointer { E in
                for y in 0..<h {
                    let row = plane.row(y, as: UInt8.self)
                    var run: Int32 = 0
                    for x in 0..<w {
                        run += row[x] >= 128 ? 1 : 0
                        T[(y + 1) * s + x + 1] = T[y * s + x + 1] + run
                    }
                }
                for y in 0..<h {
                    let y0 = max(0, y - r), y1 = min(h, y + r + 1)
                    var any = false
                    for x in 0..<w {
                        let x0 = max(0, x - r), x1 = min(w, x + r + 1)
                        let n = T[y1 * s + x1] - T[y0 * s + x1] - T[y1 * s + x0] + T[y0 * s + x0]
                        let crossing = n > 0 && n < Int32((y1 - y0) * (x1 - x0))
                        E[y * w + x] = crossing ? 1 : 0
                        any = any || crossing
                    }
                    edgeRows[y] = any
                }
            }
        }
    }
}
