// The fast bokeh renderer against the exact layered reference: PSNR, halo bands around depth
// edges, stability over time, and refusal of bad input.
import CineTestSupport
import CineMedia
import CineVision
import Foundation
import Testing

@Suite struct BokehRendererTests {
    static let maxBlur = 0.08  // 8.6 px at 108 rows: exercises half-resolution layers

    func renderers(_ quality: BokehQuality = .standard) -> (BokehRenderer, BokehReferenceRenderer) {
        var settings = BokehRenderer.Settings()
        settings.maxBlur = Self.maxBlur
        settings.quality = quality
        var reference = BokehReferenceRenderer()
        reference.maxBlur = Self.maxBlur
        return (BokehRenderer(settings: settings), reference)
    }

    func compare(_ layers: [BokehSceneLayer], focus: Double, fNumber: Double, quality: BokehQuality = .standard)
        throws -> (fast: Image, reference: Image)
    {
        let (fast, reference) = renderers(quality)
        let sharp = BokehReferenceRenderer.sharpImage(layers: layers)
        let map = BokehReferenceRenderer.disparityMap(layers: layers)
        let out = try fast.render(sharp, disparity: map, focusDisparity: focus, fNumber: fNumber)
        return (out, reference.render(layers: layers, focusDisparity: focus, fNumber: fNumber))
    }

    @Test(arguments: [1.4, 2.8, 8.0])
    func portraitMatchesTheReference(fNumber: Double) throws {
        let (out, ref) = try compare(BokehTestScenes.portrait, focus: 40, fNumber: fNumber)
        let y = BokehMetrics.psnr(out, ref), u = BokehMetrics.psnr(out, ref, plane: 1)
        print("portrait f/\(fNumber): PSNR Y \(String(format: "%.2f", y)) dB, U \(String(format: "%.2f", u)) dB")
        #expect(y >= 35)
        #expect(u >= 35)
    }

    @Test func foregroundSpreadsOverTheSubjectLikeTheReference() throws {
        let (out, ref) = try compare(BokehTestScenes.foreground, focus: 30, fNumber: 1.4)
        let y = BokehMetrics.psnr(out, ref)
        print("foreground f/1.4: PSNR Y \(String(format: "%.2f", y)) dB")
        #expect(y >= 35)
    }

    @Test func highlightScenesMatchTheReference() throws {
        for quality in BokehQuality.allCases {
            let (out, ref) = try compare(BokehTestScenes.highlights, focus: 36, fNumber: 2, quality: quality)
            let y = BokehMetrics.psnr(out, ref)
            print("highlights f/2 \(quality): PSNR Y \(String(format: "%.2f", y)) dB")
            #expect(y >= (quality == .draft ? 32 : 35))
        }
    }

    @Test func sharpSubjectDoesNotBleedIntoTheBlurredBackground() throws {
        let layers = BokehTestScenes.portrait
        let (out, ref) = try compare(layers, focus: 40, fNumber: 1.4)
        // The band within 6 px of the subject's outline: where a halo would show.
        let band = BokehMetrics.edgeBand(layers[1], distance: 6)
        let halo = BokehMetrics.lumaError(out, ref, where: band)
        let rest = BokehMetrics.lumaError(out, ref, where: { !band($0, $1) })
        print("halo band: mean \(String(format: "%.2f", halo.mean)) max \(halo.max); elsewhere mean \(String(format: "%.2f", rest.mean))")
        #expect(halo.mean < 2.5)
        #expect(halo.max < 24)
        // Inside the subject (in focus) the pixels are the camera's own.
        let sharp = BokehReferenceRenderer.sharpImage(layers: layers)
        let inner = BokehMetrics.lumaError(out, sharp, where: { x, y in
            let dx = (Double(x) + 0.5 - 96) / 22, dy = (Double(y) + 0.5 - 54) / 30
            return dx * dx + dy * dy < 1
        })
        #expect(inner.max == 0)
    }

    @Test func staticSceneRendersIdenticallyFrameAfterFrame() throws {
        let layers = BokehTestScenes.highlights
        let sharp = BokehReferenceRenderer.sharpImage(layers: layers)
        let map = BokehReferenceRenderer.disparityMap(layers: layers)
        let (renderer, _) = renderers()
        let a = try renderer.render(sharp, disparity: map, focusDisparity: 36, fNumber: 2)
        let b = try renderer.render(sharp, disparity: map, focusDisparity: 36, fNumber: 2)
        #expect(BokehMetrics.psnr(a, b) == 99)
        // A matcher's sub-pixel jitter (±0.25 px) must not make the picture shimmer.
        let jittered = Image(width: map.values.width, height: map.values.height, format: .float32)
        for y in 0..<jittered.height {
            let src = map.values.plane(0).row(y, as: Float.self), dst = jittered.plane(0).row(y, as: Float.self)
            for x in 0..<jittered.width { dst[x] = src[x] + 0.25 * Float((x * 7 + y * 13) % 5 - 2) / 2 }
        }
        let c = try renderer.render(sharp, disparity: DisparityMap(values: jittered, referenceWidth: 192, referenceHeight: 108),
                                    focusDisparity: 36, fNumber: 2)
        let change = BokehMetrics.lumaError(a, c, where: { _, _ in true })
        print("jitter ±0.25 px: mean luma change \(String(format: "%.3f", change.mean)), max \(change.max)")
        #expect(change.mean < 0.5)
        // A small focus move changes the picture a little, not abruptly.
        let d = try renderer.render(sharp, disparity: map, focusDisparity: 36.5, fNumber: 2)
        #expect(BokehMetrics.lumaError(a, d, where: { _, _ in true }).mean < 1)
    }

    @Test func lowResolutionDisparityMapsRender() throws {
        let layers = BokehTestScenes.portrait
        let sharp = BokehReferenceRenderer.sharpImage(layers: layers)
        let full = BokehReferenceRenderer.disparityMap(layers: layers)
        let quarter = Image(width: 48, height: 27, format: .float32)
        for y in 0..<27 {
            for x in 0..<48 { quarter.plane(0).row(y, as: Float.self)[x] = full.values.plane(0).row(y * 4 + 2, as: Float.self)[x * 4 + 2] }
        }
        let (renderer, reference) = renderers()
        let out = try renderer.render(sharp, disparity: DisparityMap(values: quarter, referenceWidth: 192, referenceHeight: 108),
                                      focusDisparity: 40, fNumber: 2.8)
        let ref = reference.render(layers: layers, focusDisparity: 40, fNumber: 2.8)
        let y = BokehMetrics.psnr(out, ref)
        // Edge-aware upsampling keeps the subject's outline as crisp as the image, not the map.
        let band = BokehMetrics.lumaError(out, ref, where: BokehMetrics.edgeBand(layers[1], distance: 3))
        print("quarter-resolution map f/2.8: PSNR Y \(String(format: "%.2f", y)) dB, edge band mean \(String(format: "%.2f", band.mean)) max \(band.max)")
        #expect(y >= 35)
        #expect(band.mean < 4)
        // Draft works at quarter resolution: map cells and working blocks coincide (shared guide).
        let (draft, _) = renderers(.draft)
        let quick = try draft.render(sharp, disparity: DisparityMap(values: quarter, referenceWidth: 192, referenceHeight: 108),
                                     focusDisparity: 40, fNumber: 2.8)
        let yDraft = BokehMetrics.psnr(quick, ref)
        print("quarter-resolution map f/2.8 draft: PSNR Y \(String(format: "%.2f", yDraft)) dB")
        #expect(yDraft >= 33)
    }

    @Test func badInputIsRefusedWithAClearError() throws {
        let layers = BokehTestScenes.portrait
        let sharp = BokehReferenceRenderer.sharpImage(layers: layers)
        let map = BokehReferenceRenderer.disparityMap(layers: layers)
        let (renderer, _) = renderers()
        #expect(throws: BokehError.apertureOutOfRange(0.9)) {
            _ = try renderer.render(sharp, disparity: map, focusDisparity: 40, fNumber: 0.9)
        }
        let square = Image(width: 64, height: 64, format: .float32)
        #expect(throws: BokehError.aspectRatioMismatch(imageWidth: 192, imageHeight: 108, mapWidth: 64, mapHeight: 64)) {
            _ = try renderer.render(sharp, disparity: DisparityMap(values: square, referenceWidth: 192, referenceHeight: 108),
                                    focusDisparity: 40, fNumber: 2.8)
        }
        let holes = map.values.copy()
        holes.plane(0).row(5, as: Float.self)[7] = .nan
        holes.plane(0).row(9, as: Float.self)[3] = .nan
        do {
            _ = try renderer.render(sharp, disparity: DisparityMap(values: holes, referenceWidth: 192, referenceHeight: 108),
                                    focusDisparity: 40, fNumber: 2.8)
            Issue.record("NaNs were accepted")
        } catch {
            #expect(error == .notANumber(count: 2, x: 7, y: 5))
            #expect(error.description.contains("(7, 5)"))
        }
    }

    @Test func infiniteSamplesAreFilledAsBackground() throws {
        let layers = BokehTestScenes.portrait
        let sharp = BokehReferenceRenderer.sharpImage(layers: layers)
        let map = BokehReferenceRenderer.disparityMap(layers: layers)
        let (renderer, _) = renderers()
        let clean = try renderer.render(sharp, disparity: map, focusDisparity: 40, fNumber: 2.8)
        let holes = map.values.copy()
        for y in 10..<20 { for x in 0..<40 { holes.plane(0).row(y, as: Float.self)[x] = .infinity } }
        let filled = try renderer.render(sharp, disparity: DisparityMap(values: holes, referenceWidth: 192, referenceHeight: 108),
                                         focusDisparity: 40, fNumber: 2.8)
        #expect(BokehMetrics.psnr(clean, filled) > 40)
    }

    @Test func circleOfConfusionIsLinearInDisparityAndInverseInFNumber() {
        let lens = LensModel()
        #expect(lens.circleOfConfusion(disparity: 40, focusDisparity: 40, fNumber: 2) == 0)
        let a = lens.circleOfConfusion(disparity: 10, focusDisparity: 40, fNumber: 1.4)
        #expect(a < 0)
        #expect(abs(lens.circleOfConfusion(disparity: 25, focusDisparity: 40, fNumber: 1.4) - a / 2) < 1e-12)
        #expect(abs(lens.circleOfConfusion(disparity: 10, focusDisparity: 40, fNumber: 2.8) - a / 2) < 1e-12)
        #expect(lens.circleOfConfusion(disparity: 60, focusDisparity: 40, fNumber: 4) > 0)
    }

    @Test func portableFloatMapsRoundTripInTheMiddleburyConvention() throws {
        let image = Image(width: 5, height: 3, format: .float32)
        for y in 0..<3 { for x in 0..<5 { image.plane(0).row(y, as: Float.self)[x] = Float(y * 10 + x) } }
        image.plane(0).row(1, as: Float.self)[2] = .infinity
        let data = PortableFloatMap(values: image).encoded()
        #expect(String(decoding: data.prefix(11), as: UTF8.self) == "Pf\n5 3\n-1.0")
        // Bottom row first on disk.
        let firstSample = data.subdata(in: 12..<16).withUnsafeBytes { $0.loadUnaligned(as: Float.self) }
        #expect(firstSample == 20)
        let back = try PortableFloatMap(data: data)
        #expect(back.values.plane(0).row(0, as: Float.self)[4] == 4)
        #expect(back.values.plane(0).row(1, as: Float.self)[2] == .infinity)
        #expect(throws: PortableFloatMapError.self) { try PortableFloatMap(data: Data("P6\n1 1\n255\n".utf8)) }
    }
}
