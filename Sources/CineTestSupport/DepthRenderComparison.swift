// DepthRenderComparison: how far a render from a disparity map is from the render from the exact
// disparity — the measure of the depth a user sees: the whole frame's PSNR, the PSNR within 12 px
// of the true depth edges, and the share of those edge pixels off by more than 10 levels.
import CineMedia
import Foundation
import CineVision

/// One frame rendered twice with the same focus and aperture — from `map` and from the exact
/// disparity — and compared on luma.
public struct DepthRenderComparison: Sendable {
    /// PSNR over the whole frame, dB.
    public var wholePSNR: Double
    /// PSNR within ``edgeBand`` pixels of a true depth edge, dB.
    public var edgePSNR: Double
    /// Share (0…1) of the edge band's pixels whose luma differs by more than 10 levels.
    public var edgeOffShare: Double
    /// Pixels from a true depth edge that count as "at the edge".
    public static let edgeBand = 12

    /// Compares the renders of `frame` (I420) from `map` and from `truth` (the exact disparity at
    /// the frame's size), both focused on the nearest subject (the 95th percentile of the true
    /// disparity; each render at that subject's disparity in its own map) at f/2.8 with the
    /// renderer's defaults (or `settings`) — what `cinegraph render` does with one take's decisions.
    public init(frame: Image, truth: DisparityMap, map: DisparityMap, fNumber: Double = 2.8,
                settings: BokehRenderer.Settings = .init()) throws {
        let w = frame.width, h = frame.height
        var finite: [Float] = []
        for y in stride(from: 0, to: truth.values.height, by: 2) {
            let row = truth.values.plane(0).row(y, as: Float.self)
            for x in stride(from: 0, to: truth.values.width, by: 2) where row[x].isFinite { finite.append(row[x]) }
        }
        finite.sort()
        let focus = Double(finite.isEmpty ? 0 : finite[finite.count * 95 / 100])
        // The same decision — focus on that subject — taken on each map: the exact render at the
        // subject's true disparity, ours at what `map` says there (the median over the subject's
        // true silhouette, as the focus node reads a subject's disparity from its map).
        var said: [Float] = []
        let mw = map.values.width, mh = map.values.height, tw = truth.values.width, th = truth.values.height
        for y in stride(from: 0, to: th, by: 2) {
            let t = truth.values.plane(0).row(y, as: Float.self), m = map.values.plane(0).row(min(y * mh / th, mh - 1), as: Float.self)
            for x in stride(from: 0, to: tw, by: 2) where abs(t[x] - Float(focus)) < 0.03 * Float(focus) {
                let v = m[min(x * mw / tw, mw - 1)]
                if v.isFinite { said.append(v) }
            }
        }
        said.sort()
        let ourFocus = said.isEmpty ? focus : Double(said[said.count / 2])
        let renderer = BokehRenderer(settings: settings)
        let exact = try renderer.render(frame, disparity: truth, focusDisparity: focus, fNumber: fNumber)
        let ours = try renderer.render(frame, disparity: map, focusDisparity: ourFocus, fNumber: fNumber)
        let band = Self.edgeBand(truth, width: w, height: h)
        var sumAll = 0.0, sumEdge = 0.0, nEdge = 0, off = 0
        for y in 0..<h {
            let a = exact.plane(0).row(y, as: UInt8.self), b = ours.plane(0).row(y, as: UInt8.self)
            for x in 0..<w {
                let e = Double(Int(a[x]) - Int(b[x]))
                sumAll += e * e
                if band[y * w + x] {
                    sumEdge += e * e
                    nEdge += 1
                    if abs(e) > 10 { off += 1 }
                }
            }
        }
        wholePSNR = Self.psnr(sumAll / Double(w * h))
        edgePSNR = nEdge > 0 ? Self.psnr(sumEdge / Double(nEdge)) : .infinity
        edgeOffShare = nEdge > 0 ? Double(off) / Double(nEdge) : 0
    }

    /// The figures of several frames together (PSNR from the mean squared error).
    public static func mean(_ all: [DepthRenderComparison]) -> DepthRenderComparison {
        func mse(_ p: Double) -> Double { 255 * 255 / pow10(p / 10) }
        var c = all[0]
        c.wholePSNR = psnr(all.map { mse($0.wholePSNR) }.reduce(0, +) / Double(all.count))
        c.edgePSNR = psnr(all.map { mse($0.edgePSNR) }.reduce(0, +) / Double(all.count))
        c.edgeOffShare = all.map(\.edgeOffShare).reduce(0, +) / Double(all.count)
        return c
    }

    private static func pow10(_ x: Double) -> Double { exp(x * log(10.0)) }

    private static func psnr(_ mse: Double) -> Double { mse <= 1e-12 ? 99 : 10 * log(255 * 255 / mse) / log(10.0) }

    /// Pixels within ``edgeBand`` of a true depth edge (neighbours whose disparity differs by
    /// more than 1 px), as a mask at the frame's size.
    static func edgeBand(_ truth: DisparityMap, width w: Int, height h: Int) -> [Bool] {
        var edge = [Bool](repeating: false, count: w * h)
        let tw = truth.values.width, th = truth.values.height
        let plane = truth.values.plane(0)
        func t(_ x: Int, _ y: Int) -> Float { plane.row(min(y * th / h, th - 1), as: Float.self)[min(x * tw / w, tw - 1)] }
        for y in 0..<h {
            for x in 0..<w {
                let v = t(x, y)
                if x + 1 < w, abs(t(x + 1, y) - v) > 1 { edge[y * w + x] = true; edge[y * w + x + 1] = true }
                if y + 1 < h, abs(t(x, y + 1) - v) > 1 { edge[y * w + x] = true; edge[(y + 1) * w + x] = true }
            }
        }
        // Dilate by the band: a box of side 2·band + 1, rows then columns (running counts).
        let r = edgeBand
        var rows = [Int32](repeating: 0, count: w * h)
        for y in 0..<h {
            var count: Int32 = 0
            for x in 0..<min(r, w) where edge[y * w + x] { count += 1 }
            for x in 0..<w {
                if x + r < w, edge[y * w + x + r] { count += 1 }
                if x - r - 1 >= 0, edge[y * w + x - r - 1] { count -= 1 }
                rows[y * w + x] = count
            }
        }
        var band = [Bool](repeating: false, count: w * h)
        for x in 0..<w {
            var count: Int32 = 0
            for y in 0..<min(r, h) { count += rows[y * w + x] }
            for y in 0..<h {
                if y + r < h { count += rows[(y + r) * w + x] }
                if y - r - 1 >= 0 { count -= rows[(y - r - 1) * w + x] }
                band[y * w + x] = count > 0
            }
        }
        return band
    }
}
