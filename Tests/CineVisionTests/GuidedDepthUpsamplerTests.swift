// GuidedDepthUpsampler: a coarse map's depth edge lands on the frame's edge, to the pixel; no
// overshoot where the frame says nothing; holes and RGBA frames handled; the renderer uses it.
import CineMedia
import Foundation
import Testing

@testable import CineVision

@Suite struct GuidedDepthUpsamplerTests {
    /// A 320×180 frame with a bright subject (x 101..<203, y 50..<180) at disparity 40 before
    /// a textured wall at 10, and its exact disparity box-averaged to an 80×45 map.
    private func scene() -> (frame: Image, truth: [Float], map: DisparityMap) {
        let W = 320, H = 180
        let frame = Image(width: W, height: H, format: .gray8)
        var truth = [Float](repeating: 10, count: W * H)
        for y in 0..<H {
            let row = frame.plane(0).row(y, as: UInt8.self)
            for x in 0..<W {
                let inside = (101..<203).contains(x) && y >= 50
                truth[y * W + x] = inside ? 40 : 10
                row[x] = inside ? 200 : UInt8(50 + (x * 13 + y * 7) % 30)
            }
        }
        let map = Image(width: 80, height: 45, format: .float32)
        for y in 0..<45 {
            let row = map.plane(0).row(y, as: Float.self)
            for x in 0..<80 {
                var s: Float = 0
                for yy in 4 * y..<4 * y + 4 { for xx in 4 * x..<4 * x + 4 { s += truth[yy * W + xx] } }
                row[x] = s / 16
            }
        }
        return (frame, truth, DisparityMap(values: map, referenceWidth: W, referenceHeight: H))
    }

    /// Pixels of rows 80…170 off the truth by more than 3 px of disparity.
    private func offPixels(_ values: (Int, Int) -> Float, truth: [Float]) -> Int {
        var off = 0
        for y in 80..<170 { for x in 0..<320 where abs(values(x, y) - truth[y * 320 + x]) > 3 { off += 1 } }
        return off
    }

    @Test func theDepthEdgeLandsOnTheFramesEdge() {
        let (frame, truth, map) = scene()
        let fine = GuidedDepthUpsampler().upsample(map, frame: frame)
        #expect(fine.values.width == 320 && fine.values.height == 180)
        let guided = offPixels({ fine.values.plane(0).row($1, as: Float.self)[$0] }, truth: truth)
        // The same map read bilinearly, as a renderer without the frame would.
        let low = map.values.plane(0)
        let bilinear = offPixels({ x, y in
            let fx = max(0, min(79, (Float(x) + 0.5) / 4 - 0.5)), fy = max(0, min(44, (Float(y) + 0.5) / 4 - 0.5))
            let x0 = Int(fx), y0 = Int(fy), x1 = min(79, x0 + 1), y1 = min(44, y0 + 1), ax = fx - Float(x0), ay = fy - Float(y0)
            let top = low.row(y0, as: Float.self)[x0] * (1 - ax) + low.row(y0, as: Float.self)[x1] * ax
            let bottom = low.row(y1, as: Float.self)[x0] * (1 - ax) + low.row(y1, as: Float.self)[x1] * ax
            return top * (1 - ay) + bottom * ay
        }, truth: truth)
        // Two edges over 90 rows: bilinear smears each over ~6 pixels; guided puts them in place.
        #expect(bilinear > 700, "bilinear: \(bilinear) pixels off")
        #expect(guided < bilinear / 10, "guided: \(guided) pixels off, bilinear \(bilinear)")
    }

    @Test func whereTheFrameIsFlatThereIsNoOvershootAndHolesAreFilled() {
        let (_, _, map) = scene()
        let flat = Image(width: 320, height: 180, format: .gray8)
        flat.plane(0).fill(byte: 90)
        map.values.plane(0).row(10, as: Float.self)[5] = .infinity
        let fine = GuidedDepthUpsampler().upsample(map, frame: flat)
        for y in 0..<180 {
            let row = fine.values.plane(0).row(y, as: Float.self)
            for x in 0..<320 { #expect(row[x].isFinite && row[x] >= 10 - 1e-3 && row[x] <= 40 + 1e-3, "(\(x), \(y)): \(row[x])") }
        }
    }

    @Test func anRGBAFrameGuidesLikeItsLuma() {
        let (frame, _, map) = scene()
        let rgba = Image(width: 320, height: 180, format: .rgba8)
        for y in 0..<180 {
            let g = frame.plane(0).row(y, as: UInt8.self), o = rgba.plane(0).row(y, as: UInt8.self)
            for x in 0..<320 { o[4 * x] = g[x]; o[4 * x + 1] = g[x]; o[4 * x + 2] = g[x]; o[4 * x + 3] = 255 }
        }
        let a = GuidedDepthUpsampler().upsample(map, frame: frame), b = GuidedDepthUpsampler().upsample(map, frame: rgba)
        var worst: Float = 0
        for y in 0..<180 { for x in 0..<320 { worst = max(worst, abs(a.values.plane(0).row(y, as: Float.self)[x] - b.values.plane(0).row(y, as: Float.self)[x])) } }
        #expect(worst < 0.5, "largest difference \(worst)")
    }

    /// The renderer, given a map coarser than the frame, renders what it renders from that map
    /// upsampled by the guided filter — and not what it renders reading the map bilinearly.
    @Test func theRendererUsesItForACoarseMap() throws {
        let (grey, _, map) = scene()
        let frame = Image(width: 320, height: 180, format: .i420)
        for y in 0..<180 { frame.plane(0).row(y, as: UInt8.self).update(from: grey.plane(0).row(y, as: UInt8.self), count: 320) }
        frame.plane(1).fill(byte: 128)
        frame.plane(2).fill(byte: 128)
        let renderer = BokehRenderer()
        let coarse = try renderer.render(frame, disparity: map, focusDisparity: 40, fNumber: 2)
        let fine = try BokehRenderer().render(frame, disparity: GuidedDepthUpsampler().upsample(map, frame: frame),
                                              focusDisparity: 40, fNumber: 2)
        var plain = BokehRenderer.Settings()
        plain.guidedUpsampling = false
        let bilinear = try BokehRenderer(settings: plain).render(frame, disparity: map, focusDisparity: 40, fNumber: 2)
        var same = true, differs = 0
        for y in 0..<180 {
            let a = coarse.plane(0).row(y, as: UInt8.self), b = fine.plane(0).row(y, as: UInt8.self), c = bilinear.plane(0).row(y, as: UInt8.self)
            for x in 0..<320 {
                if abs(Int(a[x]) - Int(b[x])) > 1 { same = false }
                if abs(Int(a[x]) - Int(c[x])) > 4 { differs += 1 }
            }
        }
        #expect(same, "the render from the coarse map is the render from its guided upsampling")
        #expect(differs > 100, "and not the bilinear one (\(differs) pixels differ by more than 4)")
    }
    /// Where the frame's luma explains a window's step (the bright subject on the wall), the
    /// pixels snap to one depth or the other; where a sample does not follow the luma (a wrong
    /// sample on the wall), the soft model stays as it was.
    @Test func aStepTheFrameExplainsIsDrawnHardOneItDoesNotStaysSoft() {
        let (frame, truth, map) = scene()
        // A wrong sample far from the subject: the wall's luma, the subject's depth.
        map.values.plane(0).row(10, as: Float.self)[10] = 40
        var soft = GuidedDepthUpsampler.Settings()
        soft.snapPower = 0
        let hard = GuidedDepthUpsampler().upsample(map, frame: frame)
        let ramp = GuidedDepthUpsampler(settings: soft).upsample(map, frame: frame)
        func value(_ m: DisparityMap, _ x: Int, _ y: Int) -> Float { m.values.plane(0).row(y, as: Float.self)[x] }
        // Along the subject's outline, pixels off the truth by more than 1 px.
        var offHard = 0, offSoft = 0
        for y in 80..<170 {
            for x in 0..<320 {
                if abs(value(hard, x, y) - truth[y * 320 + x]) > 1 { offHard += 1 }
                if abs(value(ramp, x, y) - truth[y * 320 + x]) > 1 { offSoft += 1 }
            }
        }
        #expect(offSoft > 300, "the soft ramp: \(offSoft) pixels off by more than 1 px")
        #expect(offHard * 4 < offSoft, "snapped: \(offHard) pixels off, soft \(offSoft)")
        // Around the wrong sample the luma does not follow the depth: the ramp is left alone.
        var largest: Float = 0, spread = false
        for y in 32..<52 {
            for x in 32..<52 {
                largest = max(largest, abs(value(hard, x, y) - value(ramp, x, y)))
                if value(ramp, x, y) > 10.5 { spread = true }
            }
        }
        #expect(spread, "the wrong sample spreads into the soft ramp")
        #expect(largest < 0.5, "around the wrong sample snapped and soft differ by \(largest) px")
    }
}
