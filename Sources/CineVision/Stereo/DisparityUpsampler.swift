// DisparityUpsampler: brings a low-resolution disparity map to any output resolution, either
// bilinearly or edge-aware (joint bilateral upsampling guided by the full-resolution luma).
import CineMedia
import Dispatch
import Foundation

/// Upsampling of a disparity map from processing to output resolution.
enum DisparityUpsampler {
    /// Range weights for |ΔI| 0 … 255: `exp(−ΔI² / (2σ²))` with σ = 12 grey levels, as 0 … 1.
    static let rangeWeights: [Float] = (0..<256).map { i in Foundation.exp(-Float(i * i) / (2 * 12 * 12)) }

    /// Resamples `low` (`lw` × `lh`, values already in output units) into `out`.
    ///
    /// - `guide`: the full-resolution reference luma (any size; sampled at the output pixel's
    ///   position) and `lowGuide` the processing-resolution luma the map was matched on. When
    ///   both are given, each of the 4 bilinear taps is weighted by how similar its guide value
    ///   is to the output pixel's: depth edges follow image edges instead of blurring across.
    ///
    /// Cost per output pixel: 4 taps × (2 loads, 1 table lookup, 3 multiply-adds) ≈ 30 flops,
    /// 4 + 16 bytes read; rows are split over `threads`.
    static func upsample(
        _ low: UnsafePointer<Float>, width lw: Int, height lh: Int, lowGuide: UnsafePointer<UInt8>?,
        guide: Plane?, into out: Plane, confidenceLow: UnsafePointer<UInt8>?, confidenceOut: Plane?, threads: Int
    ) {
        let ow = out.width, oh = out.height
        let sx = Float(lw) / Float(ow), sy = Float(lh) / Float(oh)
        let bands = Swift.max(1, threads)
        rangeWeights.withUnsafeBufferPointer { rw in
            let rangeWeight = rw.baseAddress!
            RowBands.run(0..<oh, bands: bands) { _, rows in
                for y in rows {
                    let fy = Swift.max(0, Swift.min(Float(lh - 1), (Float(y) + 0.5) * sy - 0.5))
                    let y0 = Int(fy), y1 = Swift.min(lh - 1, y0 + 1)
                    let wy = fy - Float(y0)
                    let dst = out.row(y, as: Float.self)
                    let cdst = confidenceOut?.row(y, as: UInt8.self)
                    let gy = guide.map { Swift.min($0.height - 1, y * $0.height / oh) } ?? 0
                    let grow = guide?.row(gy, as: UInt8.self)
                    let r0 = low + y0 * lw, r1 = low + y1 * lw
                    for x in 0..<ow {
                        let fx = Swift.max(0, Swift.min(Float(lw - 1), (Float(x) + 0.5) * sx - 0.5))
                        let x0 = Int(fx), x1 = Swift.min(lw - 1, x0 + 1)
                        let wx = fx - Float(x0)
                        var w00 = (1 - wx) * (1 - wy), w01 = wx * (1 - wy), w10 = (1 - wx) * wy, w11 = wx * wy
                        if let grow, let lg = lowGuide, let gp = guide {
                            let gx = Swift.min(gp.width - 1, x * gp.width / ow)
                            let g = Int(grow[gx])
                            let l0 = lg + y0 * lw, l1 = lg + y1 * lw
                            // A small floor keeps the result defined when all four differ a lot.
                            w00 = w00 * rangeWeight[abs(g - Int(l0[x0]))] + 1e-6
                            w01 = w01 * rangeWeight[abs(g - Int(l0[x1]))] + 1e-6
                            w10 = w10 * rangeWeight[abs(g - Int(l1[x0]))] + 1e-6
                            w11 = w11 * rangeWeight[abs(g - Int(l1[x1]))] + 1e-6
                        }
                        let sum = w00 + w01 + w10 + w11
                        dst[x] = (w00 * r0[x0] + w01 * r0[x1] + w10 * r1[x0] + w11 * r1[x1]) / sum
                        if let cdst, let cl = confidenceLow {
                            cdst[x] = cl[(wy < 0.5 ? y0 : y1) * lw + (wx < 0.5 ? x0 : x1)]
                        }
                    }
                }
            }
        }
    }
}
