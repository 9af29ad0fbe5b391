// StabilizationWarp: resamples a frame through its stabilization correction — bilinear, per
// plane, in row bands on both cores — into a pooled image of the same size and format.

import CineMedia
import Foundation

/// Applies a ``StabilizationCorrection`` to I420 (or gray8) frames.
///
/// Each output sample reads the captured frame at `correction.sourceFromOutput` of its position
/// (chroma planes use the same mapping at half scale) with 8-bit-weight bilinear interpolation.
/// Source coordinates are clamped to the plane, so the warp never reads outside memory; the
/// ``CameraPathSmoother``'s crop constraint makes sure it never *needs* to.
public struct StabilizationWarp: Sendable {
    /// Where output images come from.
    public let pool: ImagePool
    /// Largest difference, in disparity pixels, between the four samples around a disparity
    /// lookup that is still interpolated; larger differences are a depth edge (nearest sample).
    public var disparityEdgeThreshold: Float = 4

    /// A warp drawing its output buffers from `pool`.
    public init(pool: ImagePool = ImagePool(limit: 8)) {
        self.pool = pool
    }

    /// The stabilized version of `image`: same size and format, in a buffer from ``pool``.
    /// Throws for formats other than i420, gray8 and float32.
    public func apply(_ correction: StabilizationCorrection, to image: Image) throws -> Image {
        try warp(image, correction, frameWidth: image.width, frameHeight: image.height, valueScale: 1)
    }

    /// Detections moved with their frame (see ``StabilizationCorrection/outputDetections(_:width:height:)``).
    public func apply(_ correction: StabilizationCorrection, to detections: Detections, width: Int, height: Int)
        -> Detections
    {
        correction.outputDetections(detections, width: width, height: height)
    }

    /// The disparity map moved with its video frame: values (float32) and confidence (gray8)
    /// resampled through the same correction — at the map's own resolution, since the map
    /// covers the whole reference view — and the disparities multiplied by the correction's
    /// overall scale (stabilizing scale × zoom), so they stay in output pixels of the reference
    /// view. Edge-safe: between four neighbours that agree within ``disparityEdgeThreshold`` the
    /// value is interpolated bilinearly; across a depth edge or next to an invalid (non-finite)
    /// sample the nearest sample is taken as is, so every output value is one the map could hold
    /// — never a disparity halfway between a face and the wall behind it.
    public func apply(_ correction: StabilizationCorrection, to map: DisparityMap) throws -> DisparityMap {
        let scale = Float(correction.outputFromSource.scale)
        let values = try warp(
            map.values, correction, frameWidth: map.referenceWidth,
            frameHeight: map.referenceHeight, valueScale: scale, edgeThreshold: disparityEdgeThreshold)
        let confidence = try map.confidence.map {
            try warp($0, correction, frameWidth: map.referenceWidth, frameHeight: map.referenceHeight, valueScale: 1)
        }
        return DisparityMap(
            values: values, confidence: confidence, referenceWidth: map.referenceWidth,
            referenceHeight: map.referenceHeight)
    }

    /// A kept stereo pair (``KeptPair``: both views side by side, each covering the whole
    /// `frameWidth` × `frameHeight` frame) moved with its frame: each view through the same
    /// correction. A stereo-safe correction (shift and zoom, no rotation) moves both views alike,
    /// so the pair stays rectified and matches as the stabilized video's depth.
    public func apply(_ correction: StabilizationCorrection, toPair pair: Image, frameWidth: Int, frameHeight: Int) throws -> Image {
        let w = pair.width / 2
        guard w >= 2, w % 2 == 0 else { throw StabilizationError.emptyFrame(width: pair.width, height: pair.height) }
        let out = pool.makeImage(width: pair.width, height: pair.height, format: pair.format)
        for view in 0..<2 {
            let half = pair.cropped(x: view * w, y: 0, width: w, height: pair.height)
            let moved = try warp(half, correction, frameWidth: frameWidth, frameHeight: frameHeight, valueScale: 1)
            out.cropped(x: view * w, y: 0, width: w, height: pair.height).copyPixels(from: moved)
        }
        return out
    }

    /// Warps every plane of `image`, which covers a `frameWidth` × `frameHeight` frame.
    private func warp(
        _ image: Image, _ correction: StabilizationCorrection, frameWidth: Int, frameHeight: Int,
        valueScale: Float, edgeThreshold: Float = .infinity
    ) throws -> Image {
        guard image.width > 0, image.height > 0, frameWidth > 0, frameHeight > 0 else {
            throw StabilizationError.emptyFrame(width: image.width, height: image.height)
        }
        guard image.format == .i420 || image.format == .gray8 || image.format == .float32 else {
            throw StabilizationError.unsupportedFormat(image.format.rawValue, supported: "i420, gray8 or float32")
        }
        let out = pool.makeImage(width: image.width, height: image.height, format: image.format)
        if correction.stabilizing == .identity && correction.zoom == 1 && valueScale == 1 {
            out.copyPixels(from: image)
            return out
        }
        let bands = image.width * image.height >= 100_000 ? 2 : 1
        let job = StabilizationWarpJob(
            source: image, output: out, map: correction.sourceFromOutput, planes: image.format.planeCount,
            bands: bands, frameWidth: Double(frameWidth), frameHeight: Double(frameHeight), valueScale: valueScale,
            edgeThreshold: edgeThreshold)
        RowBands.run(0..<bands, bands: bands) { band, _ in job.run(band: band) }
        return out
    }
}

/// The planes and mapping shared by the row bands of one warp (each band writes its own rows).
struct StabilizationWarpJob: Sendable {
    let source: Image
    let output: Image
    let map: SimilarityTransform
    let planes: Int
    let bands: Int
    /// Size of the frame the image covers, in the correction's pixels.
    let frameWidth: Double
    let frameHeight: Double
    /// Factor applied to float32 sample values.
    let valueScale: Float
    /// Float32 neighbourhoods spanning more than this take the nearest sample.
    let edgeThreshold: Float

    func run(band: Int) {
        for p in 0..<planes {
            let src = source.plane(p), dst = output.plane(p)
            let rows = (dst.height * band / bands)..<(dst.height * (band + 1) / bands)
            let ratio = Double(src.width) / frameWidth
            if src.bytesPerSample == 4 {
                StabilizationWarpJob.warpFloat(
                    src, into: dst, rows: rows, map: map, ratio: ratio,
                    frameWidth: frameWidth, frameHeight: frameHeight, valueScale: valueScale,
                    edgeThreshold: edgeThreshold)
            } else {
                StabilizationWarpJob.warp(
                    src, into: dst, rows: rows, map: map, ratio: ratio,
                    frameWidth: frameWidth, frameHeight: frameHeight)
            }
        }
    }

    /// Warps rows `rows` of one plane whose samples are `ratio` × the frame's resolution.
    ///
    /// Cost model, per output sample: two integer adds to step the 16.16 fixed-point source
    /// position, four byte loads, three integer lerps (3 multiplies) and one store — ≈ 16 integer
    /// ops and 5 bytes touched (clamps only in the few columns whose source lies at the border); the source rows read are the ones the output rows
    /// cover, so a 1080p I420 frame (3.1 M samples) is ≈ 60 M ops, split over both cores.
    static func warp(
        _ src: Plane, into dst: Plane, rows: Range<Int>, map: SimilarityTransform,
        ratio: Double, frameWidth: Double, frameHeight: Double, rowPath: Bool = true
    ) {
        let sw = src.width, sh = src.height
        if sw < 2 || sh < 2 {
            for y in rows {
                dst.row(y).initializeMemory(as: UInt8.self, repeating: src.row(0, as: UInt8.self)[0], count: dst.width)
            }
            return
        }
        let one = 65536.0
        let maxX = (sw - 1) << 16 - 1, maxY = (sh - 1) << 16 - 1
        // Source plane coordinate of output sample (u, v):
        //   s = r·(M·((u + ½)/r − W/2, (v + ½)/r − H/2) + (W/2, H/2)) − ½
        // which steps by (a, b) per output column.
        let stepX = Int((map.a * one).rounded()), stepY = Int((map.b * one).rounded())
        let hw = frameWidth / 2, hh = frameHeight / 2
        if rowPath && map.b == 0 {
            // No rotation (a stereo-safe correction: shift and zoom): every row reads the same
            // columns, so each source row is interpolated across once and rows are blended.
            warpWithoutRotation(src, into: dst, rows: rows, map: map, ratio: ratio, frameWidth: frameWidth, frameHeight: frameHeight)
            return
        }
        for v in rows {
            let qy = (Double(v) + 0.5) / ratio - hh
            let qx = 0.5 / ratio - hw
            let start = map.apply(x: qx, y: qy)
            let fx = Int((((start.x + hw) * ratio - 0.5) * one).rounded())
            let fy = Int((((start.y + hh) * ratio - 0.5) * one).rounded())
            let out = dst.row(v, as: UInt8.self)
            let base = src.base.assumingMemoryBound(to: UInt8.self)
            let stride = src.stride
            // Columns whose source position needs no clamping: the crop constraint makes that all
            // or nearly all of them, and their loop has no clamps.
            var lo = 0, hi = dst.width
            @inline(__always) func narrow(_ f: Int, _ step: Int, _ limit: Int) {
                if step > 0 {
                    lo = max(lo, f >= 0 ? 0 : (-f + step - 1) / step)
                    hi = min(hi, f > limit ? 0 : (limit - f) / step + 1)
                } else if step < 0 {
                    lo = max(lo, f <= limit ? 0 : (f - limit - step - 1) / -step)
                    hi = min(hi, f < 0 ? 0 : f / -step + 1)
                } else if f < 0 || f > limit {
                    hi = 0
                }
            }
            narrow(fx, stepX, maxX)
            narrow(fy, stepY, maxY)
            lo = min(lo, dst.width)
            if hi < lo { hi = lo }
            @inline(__always) func clamped(_ u: Int) {
                let cx = min(max(fx + u * stepX, 0), maxX), cy = min(max(fy + u * stepY, 0), maxY)
                let x0 = cx >> 16, y0 = cy >> 16
                let wx = (cx >> 8) & 0xFF, wy = (cy >> 8) & 0xFF
                let r0 = base + y0 * stride + x0, r1 = r0 + stride
                let top = Int(r0[0]) << 8 + (Int(r0[1]) - Int(r0[0])) * wx
                let bottom = Int(r1[0]) << 8 + (Int(r1[1]) - Int(r1[0])) * wx
                out[u] = UInt8(truncatingIfNeeded: (top << 8 + (bottom - top) * wy + 32768) >> 16)
            }
            for u in 0..<lo { clamped(u) }
            if lo < hi {
                var px = fx + lo * stepX, py = fy + lo * stepY
                for u in lo..<hi {
                    let x0 = px >> 16, y0 = py >> 16
                    let wx = (px >> 8) & 0xFF, wy = (py >> 8) & 0xFF
                    let r0 = base + y0 * stride + x0, r1 = r0 + stride
                    let a = Int(r0[0]), b = Int(r0[1]), c = Int(r1[0]), d = Int(r1[1])
                    let top = a << 8 + (b - a) * wx
                    let bottom = c << 8 + (d - c) * wx
                    out[u] = UInt8(truncatingIfNeeded: (top << 8 + (bottom - top) * wy + 32768) >> 16)
                    px += stepX
                    py += stepY
                }
            }
            for u in hi..<dst.width { clamped(u) }
        }
    }

    /// ``warp(_:into:rows:map:ratio:frameWidth:frameHeight:)`` for a correction without rotation,
    /// with the same arithmetic and so the same bytes: the horizontal interpolation of a source
    /// row (8.8 fixed point, the column taps computed once) is shared by every output row that
    /// reads it, and the vertical blend runs eight samples at a time. Cost per output sample:
    /// about one horizontal tap (≈ 0.8 source rows per output row at a 1.2× zoom) and an eighth
    /// of a vector blend, against four loads and three multiplies.
    static func warpWithoutRotation(
        _ src: Plane, into dst: Plane, rows: Range<Int>, map: SimilarityTransform,
        ratio: Double, frameWidth: Double, frameHeight: Double
    ) {
        let sw = src.width, sh = src.height, dw = dst.width
        let one = 65536.0
        let maxX = (sw - 1) << 16 - 1, maxY = (sh - 1) << 16 - 1
        let stepX = Int((map.a * one).rounded())
        let hw = frameWidth / 2, hh = frameHeight / 2
        let base = src.base.assumingMemoryBound(to: UInt8.self), stride = src.stride
        // Column taps: the clamped source column and its 8-bit weight (as the general path).
        var x0 = [Int32](repeating: 0, count: dw), wx = [Int32](repeating: 0, count: dw)
        var tapsFor = Int.min
        // The horizontally interpolated rows (8.8 fixed point), cached by source row.
        var h0 = [Int32](repeating: 0, count: dw + 8), h1 = h0
        var row0 = -1, row1 = -1
        func interpolate(_ y: Int, into h: inout [Int32]) {
            let r = base + y * stride
            x0.withUnsafeBufferPointer { X in
                wx.withUnsafeBufferPointer { W in
                    h.withUnsafeMutableBufferPointer { H in
                        for u in 0..<dw {
                            let x = Int(X[u]), a = Int32(r[x]), b = Int32(r[x + 1])
                            H[u] = a << 8 + (b - a) * W[u]
                        }
                    }
                }
            }
        }
        for v in rows {
            let qy = (Double(v) + 0.5) / ratio - hh
            let start = map.apply(x: 0.5 / ratio - hw, y: qy)
            let fx = Int((((start.x + hw) * ratio - 0.5) * one).rounded())
            let fy = Int((((start.y + hh) * ratio - 0.5) * one).rounded())
            if fx != tapsFor {
                for u in 0..<dw {
                    let cx = min(max(fx + u * stepX, 0), maxX)
                    x0[u] = Int32(cx >> 16)
                    wx[u] = Int32((cx >> 8) & 0xFF)
                }
                tapsFor = fx
                row0 = -1; row1 = -1
            }
            let cy = min(max(fy, 0), maxY)
            let y0 = cy >> 16, wy = Int32((cy >> 8) & 0xFF)
            // Reuse what the last row interpolated (a zoom reads each source row about twice).
            if row0 != y0 {
                if row1 == y0 { swap(&h0, &h1); row0 = y0; row1 = -1 } else { interpolate(y0, into: &h0); row0 = y0 }
            }
            if row1 != y0 + 1 { interpolate(y0 + 1, into: &h1); row1 = y0 + 1 }
            let out = dst.row(v, as: UInt8.self)
            h0.withUnsafeBufferPointer { T in
                h1.withUnsafeBufferPointer { B in
                    let wv = SIMD8<Int32>(repeating: wy), half = SIMD8<Int32>(repeating: 32768)
                    var u = 0
                    while u + 8 <= dw {
                        let t = UnsafeRawPointer(T.baseAddress! + u).loadUnaligned(as: SIMD8<Int32>.self)
                        let b = UnsafeRawPointer(B.baseAddress! + u).loadUnaligned(as: SIMD8<Int32>.self)
                        let r = (t &<< 8 &+ (b &- t) &* wv &+ half) &>> 16
                        UnsafeMutableRawPointer(out + u).storeBytes(of: SIMD8<UInt8>(truncatingIfNeeded: r), as: SIMD8<UInt8>.self)
                        u += 8
                    }
                    while u < dw {
                        let t = T[u], b = B[u]
                        out[u] = UInt8(truncatingIfNeeded: (t << 8 + (b - t) * wy + 32768) >> 16)
                        u += 1
                    }
                }
            }
        }
    }

    /// The float32 version of ``warp(_:into:rows:map:ratio:frameWidth:frameHeight:)`` for
    /// disparity maps, values multiplied by `valueScale`: bilinear where the four neighbours are
    /// finite and span at most `edgeThreshold`, else the nearest sample.
    ///
    /// Cost model, per output sample: two Double adds to step the position, two clamps, four
    /// float loads, a min/max of four, three lerps and one multiply — ≈ 20 flops and 20 bytes
    /// touched; maps are usually a quarter of the frame's samples or fewer.
    static func warpFloat(
        _ src: Plane, into dst: Plane, rows: Range<Int>, map: SimilarityTransform,
        ratio: Double, frameWidth: Double, frameHeight: Double, valueScale: Float, edgeThreshold: Float
    ) {
        let sw = src.width, sh = src.height
        let base = src.base.assumingMemoryBound(to: Float.self)
        let stride = src.stride / 4
        let maxX = Double(max(sw - 1, 0)), maxY = Double(max(sh - 1, 0))
        let hw = frameWidth / 2, hh = frameHeight / 2
        for v in rows {
            let start = map.apply(x: 0.5 / ratio - hw, y: (Double(v) + 0.5) / ratio - hh)
            var fx = (start.x + hw) * ratio - 0.5, fy = (start.y + hh) * ratio - 0.5
            let out = dst.row(v, as: Float.self)
            for u in 0..<dst.width {
                let cx = min(max(fx, 0), maxX), cy = min(max(fy, 0), maxY)
                let x0 = min(Int(cx), max(sw - 2, 0)), y0 = min(Int(cy), max(sh - 2, 0))
                let x1 = min(x0 + 1, sw - 1), y1 = min(y0 + 1, sh - 1)
                let wx = Float(cx - Double(x0)), wy = Float(cy - Double(y0))
                let r0 = base + y0 * stride, r1 = base + y1 * stride
                let a = r0[x0], b = r0[x1], c = r1[x0], d = r1[x1]
                let hi = max(max(a, b), max(c, d)), lo = min(min(a, b), min(c, d))
                // hi − lo is NaN or ∞ when a sample is invalid: the comparison fails, nearest wins.
                if hi - lo <= edgeThreshold {
                    let top = a + (b - a) * wx
                    let bottom = c + (d - c) * wx
                    out[u] = (top + (bottom - top) * wy) * valueScale
                } else {
                    let near = wy < 0.5 ? (wx < 0.5 ? a : b) : (wx < 0.5 ? c : d)
                    out[u] = near * valueScale
                }
                fx += map.a
                fy += map.b
            }
        }
    }
}
