// StereoEdgeRefiner: a quarter-resolution map's depth edges redrawn from the full-resolution views
// land nearer the true outline than bilinear upsampling puts them; slopes stay smooth; holes and a
// map without a finite sample are handled. What it does to a render: `CineBench depth`.
import CineMedia
import Foundation
import Testing

@testable import CineVision

@Suite struct StereoEdgeRefinerTests {
    /// The exact disparity of a synthetic take, averaged 4×4 (a perfect quarter-resolution map).
    private func averaged(_ truth: Image) -> DisparityMap {
        let f = 4, out = Image(width: truth.width / f, height: truth.height / f, format: .float32)
        for y in 0..<out.height {
            let d = out.plane(0).row(y, as: Float.self)
            for x in 0..<out.width {
                var sum: Float = 0
                for yy in y * f..<(y + 1) * f { for xx in x * f..<(x + 1) * f { sum += truth.plane(0).row(yy, as: Float.self)[xx] } }
                d[x] = sum / Float(f * f)
            }
        }
        return DisparityMap(values: out, referenceWidth: truth.width, referenceHeight: truth.height)
    }

    @Test func edgesLandNearerTheTruthThanBilinear() {
        let w = 640, h = 360
        let scene = SyntheticScene(SyntheticScene.Configuration(width: w, height: h, fps: 30, seed: 1))
        let left = Image(width: w, height: h, format: .i420), right = Image(width: w, height: h, format: .i420)
        let truth = Image(width: w, height: h, format: .float32)
        scene.render(frame: 160, left: left, right: right, groundTruth: truth)
        let coarse = averaged(truth)
        var edges = StereoEdgeRefiner()
        let drawn = edges.refine(coarse, left: left, right: right)
        var smooth = StereoEdgeRefiner(settings: { var s = StereoEdgeRefiner.Settings(); s.minimumStep = .infinity; return s }())
        let bilinear = smooth.refine(coarse, left: left, right: right)
        #expect(drawn.values.width == w && drawn.values.height == h)
        // Pixels within 3 px of a true depth step of more than 2 px: how many each map gets wrong by more than 2 px.
        var near = 0, wrongDrawn = 0, wrongBilinear = 0
        let t = truth.plane(0)
        for y in 3..<(h - 3) {
            for x in 3..<(w - 3) {
                var step = false
                for k in -3...3 where abs(t.row(y, as: Float.self)[x + k] - t.row(y, as: Float.self)[x]) > 2 || abs(t.row(y + k, as: Float.self)[x] - t.row(y, as: Float.self)[x]) > 2 { step = true }
                guard step else { continue }
                near += 1
                let truthValue = t.row(y, as: Float.self)[x]
                let a = drawn.values.plane(0).row(y, as: Float.self)[x], b = bilinear.values.plane(0).row(y, as: Float.self)[x]
                #expect(a.isFinite)
                if abs(a - truthValue) > 2 { wrongDrawn += 1 }
                if abs(b - truthValue) > 2 { wrongBilinear += 1 }
            }
        }
        #expect(near > 1000)
        #expect(Double(wrongDrawn) < 0.6 * Double(wrongBilinear), "drawn \(wrongDrawn), bilinear \(wrongBilinear) of \(near)")
    }

    @Test func aSlopeIsNotAnEdge() {
        // A floor: disparity rising 1.5 px a sample down the map, no step anywhere.
        let mw = 40, mh = 30, W = 160, H = 120
        let values = Image(width: mw, height: mh, format: .float32)
        for y in 0..<mh { let r = values.plane(0).row(y, as: Float.self); for x in 0..<mw { r[x] = 5 + 1.5 * Float(y) } }
        let left = Image(width: W, height: H, format: .gray8), right = Image(width: W, height: H, format: .gray8)
        for y in 0..<H {
            let l = left.plane(0).row(y, as: UInt8.self), r = right.plane(0).row(y, as: UInt8.self)
            for x in 0..<W { l[x] = UInt8((x * 37 + y * 11) % 251); r[x] = UInt8(((x + 7) * 37 + y * 11) % 251) }
        }
        var edges = StereoEdgeRefiner()
        let out = edges.refine(DisparityMap(values: values, referenceWidth: W, referenceHeight: H), left: left, right: right)
        for y in 0..<H {
            let r = out.values.plane(0).row(y, as: Float.self)
            let expected = 5 + 1.5 * min(max(0, (Float(y) + 0.5) * Float(mh) / Float(H) - 0.5), Float(mh - 1))
            for x in 0..<W { #expect(abs(r[x] - expected) < 1e-3) }
        }
    }

    @Test func holesAreFilledAndAnEmptyMapComesBackAsItIs() {
        let W = 64, H = 32
        let left = Image(width: W, height: H, format: .gray8), right = Image(width: W, height: H, format: .gray8)
        let values = Image(width: 16, height: 8, format: .float32)
        for y in 0..<8 { let r = values.plane(0).row(y, as: Float.self); for x in 0..<16 { r[x] = x < 8 ? .infinity : 20 } }
        var edges = StereoEdgeRefiner()
        let out = edges.refine(DisparityMap(values: values, referenceWidth: W, referenceHeight: H), left: left, right: right)
        for y in 0..<H { for x in 0..<W { #expect(out.values.plane(0).row(y, as: Float.self)[x].isFinite) } }
        let empty = Image(width: 16, height: 8, format: .float32)
        for y in 0..<8 { let r = empty.plane(0).row(y, as: Float.self); for x in 0..<16 { r[x] = -.infinity } }
        let same = edges.refine(DisparityMap(values: empty, referenceWidth: W, referenceHeight: H), left: left, right: right)
        #expect(same.values.width == 16)
    }
}
