// The bokeh renderer at depth edges, where synthetic depth of field usually fails: the in-focus
// subject exact, none of its colour in the blurred background beside it, no outline, a blurred
// foreground spreading over its edge like a real lens — for RGBA stills and I420 video.
import CineTestSupport
import CineMedia
import CineVision
import Foundation
import Testing

@Suite struct BokehEdgeTests {
    static let maxBlur = 0.08  // 8.6 px at 108 rows

    func renderer(_ quality: BokehQuality = .standard) -> BokehRenderer {
        var settings = BokehRenderer.Settings()
        settings.maxBlur = Self.maxBlur
        settings.quality = quality
        return BokehRenderer(settings: settings)
    }

    var reference: BokehReferenceRenderer {
        var r = BokehReferenceRenderer()
        r.maxBlur = Self.maxBlur
        return r
    }

    /// Linear RGB of an RGBA image's pixel.
    func linear(_ image: Image, _ x: Int, _ y: Int) -> SIMD3<Float> {
        let q = image.plane(0).row(y, as: UInt8.self) + 4 * x
        return SIMD3(pow(Float(q[0]) / 255, BokehColorSpace.gamma), pow(Float(q[1]) / 255, BokehColorSpace.gamma),
                     pow(Float(q[2]) / 255, BokehColorSpace.gamma))
    }

    /// Signed distance in pixels from the subject's outline (positive inside), for the
    /// ellipse of `BokehTestScenes.shape` with centre (cx, cy) and radii (rx, ry).
    func inside(_ x: Int, _ y: Int, cx: Double = 96, cy: Double = 54, rx: Double = 26, ry: Double = 34) -> Double {
        let dx = (Double(x) + 0.5 - cx) / rx, dy = (Double(y) + 0.5 - cy) / ry
        return (1 - (dx * dx + dy * dy).squareRoot()) * min(rx, ry)
    }

    @Test(arguments: [BokehQuality.standard, .high])
    func stillsKeepTheSubjectExactAndItsColourOutOfTheBackground(quality: BokehQuality) throws {
        let layers = BokehTestScenes.portrait
        let sharp = BokehReferenceRenderer.sharpImage(layers: layers, format: .rgba8)
        let map = BokehReferenceRenderer.disparityMap(layers: layers)
        let out = try renderer(quality).render(sharp, disparity: map, focusDisparity: 40, fNumber: 1.4)
        #expect(out.format == .rgba8)
        // In focus (CoC 0 wherever the map says 40): the camera's own pixels, bit for bit.
        var exact = 0, focused = 0
        for y in 0..<108 {
            let d = map.values.plane(0).row(y, as: Float.self)
            let a = sharp.plane(0).row(y, as: UInt8.self), b = out.plane(0).row(y, as: UInt8.self)
            for x in 0..<192 where d[x] == 40 {
                focused += 1
                if memcmp(a + 4 * x, b + 4 * x, 4) == 0 { exact += 1 }
            }
        }
        #expect(focused > 2000)
        #expect(exact == focused)
        // The 2–12 px ring of background outside the outline: the subject's red in it, over the
        // reference (which sees the whole wall behind the subject), per the subject's own.
        let ref = reference.renderLinear(layers: layers, focusDisparity: 40, fNumber: 1.4)
        var excess: Float = 0, refRed: Float = 0, n: Float = 0, subjectRed: Float = 0, m: Float = 0
        for y in 0..<108 {
            for x in 0..<192 {
                let d = inside(x, y)
                if d <= -2 && d >= -12 {
                    excess += linear(out, x, y).x - ref[y * 192 + x].x
                    refRed += ref[y * 192 + x].x
                    n += 1
                } else if d >= 4 {
                    subjectRed += linear(sharp, x, y).x
                    m += 1
                }
            }
        }
        let bleed = (excess / n) / (subjectRed / m - refRed / n)
        print("\(quality) still: in focus \(exact)/\(focused) exact, subject colour in the 2-12 px ring \(String(format: "%.2f", bleed * 100)) %")
        #expect(abs(bleed) <= 0.01)
    }

    @Test(arguments: [PixelFormat.rgba8, .i420])
    func aFlatEdgeHasNoOutline(format: PixelFormat) throws {
        // Flat subject on a flat wall: from deep inside to far outside, the luma must move
        // monotonically from one to the other (no dark or bright rim).
        let layers = [BokehTestScenes.wall(SIMD3(0.45, 0.45, 0.45), disparity: 10, contrast: 0),
                      BokehTestScenes.shape(SIMD3(0.08, 0.10, 0.12), disparity: 40, cx: 96, cy: 54, rx: 26, ry: 34, contrast: 0)]
        let sharp = BokehReferenceRenderer.sharpImage(layers: layers, format: format)
        let map = BokehReferenceRenderer.disparityMap(layers: layers)
        for quality in BokehQuality.allCases {
            let out = try renderer(quality).render(sharp, disparity: map, focusDisparity: 40, fNumber: 1.4)
            let row = out.plane(0).row(54, as: UInt8.self)
            let luma: (Int) -> Int = format == .rgba8
                ? { x in (54 * Int(row[4 * x]) + 183 * Int(row[4 * x + 1]) + 19 * Int(row[4 * x + 2]) + 128) >> 8 }
                : { x in Int(row[x]) }
            // Along the centre row, from the subject's centre (x = 96) to the right edge.
            let profile = (96..<192).map(luma)
            var worst = 0
            for i in 1..<profile.count { worst = max(worst, profile[i - 1] - profile[i]) }
            print("\(format) \(quality): flat edge profile \(profile[20]) … \(profile[40]) … \(profile[95]), worst step back \(worst)")
            #expect(worst <= 1)
        }
    }

    @Test(arguments: [PixelFormat.rgba8, .i420])
    func aBlurredForegroundSpreadsOverItsEdgeAndStaysOpaque(format: PixelFormat) throws {
        // Focus on the wall: the subject (in front) blurs by 7.5 px and must spread over the
        // sharp wall beside it, while staying opaque inside (no wall showing through it).
        let layers = BokehTestScenes.portrait
        let sharp = BokehReferenceRenderer.sharpImage(layers: layers, format: format)
        let map = BokehReferenceRenderer.disparityMap(layers: layers)
        let out = try renderer().render(sharp, disparity: map, focusDisparity: 10, fNumber: 2.8)
        let ref = reference.render(layers: layers, focusDisparity: 10, fNumber: 2.8, format: format)
        func luma(_ image: Image, _ x: Int, _ y: Int) -> Double {
            let row = image.plane(0).row(y, as: UInt8.self)
            return format == .rgba8 ? 0.2126 * Double(row[4 * x]) + 0.7152 * Double(row[4 * x + 1]) + 0.0722 * Double(row[4 * x + 2])
                : Double(row[x])
        }
        var deep = 0.0, nDeep = 0.0, spread = 0.0, refSpread = 0.0, nSpread = 0.0
        for y in 0..<108 {
            for x in 0..<192 {
                let d = inside(x, y)
                if d >= 9 {
                    deep += abs(luma(out, x, y) - luma(ref, x, y))
                    nDeep += 1
                } else if d <= -1 && d >= -4 {
                    spread += luma(out, x, y) - luma(sharp, x, y)
                    refSpread += luma(ref, x, y) - luma(sharp, x, y)
                    nSpread += 1
                }
            }
        }
        print("\(format) foreground: inside |error| \(String(format: "%.2f", deep / nDeep)), just outside change \(String(format: "%.2f", spread / nSpread)) (reference \(String(format: "%.2f", refSpread / nSpread)))")
        #expect(deep / nDeep < 2)
        // Just outside the outline the subject's blur lies over the wall, as in the reference
        // (the subject is brighter than the wall: luma rises).
        #expect(refSpread / nSpread > 4)
        #expect(spread / nSpread > 0.6 * refSpread / nSpread)
    }

    @Test func oddSizedAndEmptyStillsAreHandled() throws {
        // RGBA has no chroma subsampling: odd sides are fine; an empty image is refused.
        let odd = Image(width: 31, height: 17, format: .rgba8)
        let map = Image(width: 31, height: 17, format: .float32)
        for y in 0..<17 { for x in 0..<31 { map.plane(0).row(y, as: Float.self)[x] = Float(x) } }
        let out = try renderer().render(odd, disparity: DisparityMap(values: map, referenceWidth: 31, referenceHeight: 17),
                                        focusDisparity: 10, fNumber: 2)
        #expect(out.width == 31 && out.height == 17)
        let oddI420 = Image(width: 31, height: 17, format: .i420)
        #expect(throws: BokehError.unsupportedImage(format: "i420", width: 31, height: 17)) {
            _ = try renderer().render(oddI420, disparity: DisparityMap(values: map, referenceWidth: 31, referenceHeight: 17),
                                      focusDisparity: 10, fNumber: 2)
        }
    }
}
