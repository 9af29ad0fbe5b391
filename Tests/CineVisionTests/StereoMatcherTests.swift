// StereoMatcher tests: accuracy against exact ground truth (synthetic pairs with slanted planes,
// thin objects, low texture, occlusion edges, and the moving synthetic camera), sign and scale at
// every processing scale, the validity machinery (LR check, uniqueness, confidence, holes),
// upsampling, temporal smoothing, and clear errors for bad input. Debug builds are slow, so the
// images are small (320×180).
import CineTestSupport
import CineMedia
import CineVision
import Foundation
import Testing

/// Error statistics of a map against a full-resolution truth (holes count as bad).
struct DisparityScore {
    var bad1 = 0.0, bad2 = 0.0, averageError = 0.0, density = 0.0, meanSignedError = 0.0, medianSignedError = 0.0
    /// Mean of the matched disparities over the mean of the true ones (1 = right scale).
    var scaleRatio = 0.0

    init(_ map: DisparityMap, truth: Image, where include: (Int, Int) -> Bool = { _, _ in true }) {
        let vw = map.values.width, vh = map.values.height, tw = truth.width, th = truth.height
        var n = 0, b1 = 0, b2 = 0, valid = 0
        var sum = 0.0, signed = 0.0, matchedSum = 0.0, trueSum = 0.0
        var errors: [Float] = []
        for y in 0..<th {
            let t = truth.plane(0).row(y, as: Float.self)
            let v = map.values.plane(0).row(min(vh - 1, y * vh / th), as: Float.self)
            for x in 0..<tw where include(x, y) {
                n += 1
                let d = v[min(vw - 1, x * vw / tw)]
                guard d.isFinite else { b1 += 1; b2 += 1; continue }
                valid += 1
                let e = Double(d - t[x])
                errors.append(d - t[x])
                matchedSum += Double(d); trueSum += Double(t[x])
                sum += abs(e); signed += e
                if abs(e) > 1 { b1 += 1 }
                if abs(e) > 2 { b2 += 1 }
            }
        }
        let count = Double(max(1, n))
        bad1 = Double(b1) / count * 100
        bad2 = Double(b2) / count * 100
        density = Double(valid) / count * 100
        averageError = sum / Double(max(1, valid))
        meanSignedError = signed / Double(max(1, valid))
        errors.sort()
        medianSignedError = errors.isEmpty ? 0 : Double(errors[errors.count / 2])
        scaleRatio = matchedSum / max(1e-9, trueSum)
    }
}

@Suite struct StereoMatcherTests {
    /// Bounds per scene at 320×180, full-resolution matching (measured 0.7 / 4.9 / 3.8 / 6.5 % bad-2.0).
    @Test(arguments: [
        (StereoTestPair.Scene.slantedPlanes, 2.0, 0.5),
        (.thinObjects, 7.0, 1.5),
        (.lowTexture, 6.0, 1.0),
        (.occlusionEdges, 9.0, 1.5),
    ])
    func sceneMeetsAccuracyBounds(scene: StereoTestPair.Scene, maxBad2: Double, maxAverage: Double) throws {
        let pair = StereoTestPair(scene, width: 320, height: 180)
        let matcher = try StereoMatcher(StereoMatcher.Configuration(scale: 1, maxDisparity: 48))
        let map = try matcher.match(left: pair.left, right: pair.right)
        let score = DisparityScore(map, truth: pair.truth)
        #expect(score.density == 100)
        #expect(score.bad2 < maxBad2, "\(scene): bad-2.0 \(score.bad2) %")
        #expect(score.averageError < maxAverage, "\(scene): average error \(score.averageError)")
    }

    @Test func slantedPlanesAreSubpixelAccurate() throws {
        let pair = StereoTestPair(.slantedPlanes, width: 320, height: 180)
        let matcher = try StereoMatcher(StereoMatcher.Configuration(scale: 1, maxDisparity: 48))
        let score = DisparityScore(try matcher.match(left: pair.left, right: pair.right), truth: pair.truth)
        #expect(score.bad1 < 4, "bad-1.0 \(score.bad1) %")
        var off = StereoMatcher.Configuration(scale: 1, maxDisparity: 48)
        off.subpixel = false
        let integer = DisparityScore(
            try StereoMatcher(off).match(left: pair.left, right: pair.right), truth: pair.truth)
        #expect(
            score.averageError < integer.averageError,
            "sub-pixel \(score.averageError) vs integer \(integer.averageError)")
    }

    @Test(arguments: [1.0, 0.5, 0.25])
    func syntheticCameraHasRightSignAndScaleAtEveryScale(scale: Double) throws {
        let scene = SyntheticScene(SyntheticScene.Configuration(width: 480, height: 270, fps: 30, seed: 1))
        let frame = scene.renderFrame(150)
        let matcher = try StereoMatcher(StereoMatcher.Configuration(scale: scale, maxDisparity: 64))
        let map = try matcher.match(left: frame.left, right: frame.right)
        #expect(map.referenceWidth == 480 && map.referenceHeight == 270)
        #expect(map.values.width == Int((480 * scale).rounded()))
        let score = DisparityScore(map, truth: frame.truth)
        // Values are in full-resolution pixels whatever the scale: no bias beyond 0.15 processing
        // pixels, and the right scale away from depth edges (edges fatten at low resolution).
        #expect(abs(score.medianSignedError) < 0.15 / scale, "scale \(scale): median error \(score.medianSignedError)")
        let t = frame.truth.plane(0)
        let interior = DisparityScore(map, truth: frame.truth) { x, y in
            guard x >= 8, y >= 8, x < 472, y < 262 else { return false }
            let d = t.row(y, as: Float.self)[x]
            return abs(t.row(y - 8, as: Float.self)[x - 8] - d) < 0.5
                && abs(t.row(y + 8, as: Float.self)[x + 8] - d) < 0.5
                && abs(t.row(y - 8, as: Float.self)[x + 8] - d) < 0.5
                && abs(t.row(y + 8, as: Float.self)[x - 8] - d) < 0.5
        }
        // (A wrong scale factor would be off by 2× or more; the residual is sub-pixel locking of
        // the wall at 0.7 processing pixels when matching at 0.25.)
        #expect(
            abs(interior.scaleRatio - 1) < (scale == 1 ? 0.05 : 0.25),
            "scale \(scale): matched / true \(interior.scaleRatio)")
        #expect(score.bad2 < (scale == 0.25 ? 25 : 12), "scale \(scale): bad-2.0 \(score.bad2) %")
        #expect(score.density == 100)
    }

    @Test func leftRightCheckAndUniquenessInvalidateOcclusions() throws {
        let pair = StereoTestPair(.occlusionEdges, width: 320, height: 180)
        var c = StereoMatcher.Configuration(scale: 1, maxDisparity: 48)
        c.fillHoles = false
        let map = try StereoMatcher(c).match(left: pair.left, right: pair.right)
        // The wall just left of the near box (box from x 32 at disparity 30, wall at 6): x 8 … 32 is
        // hidden behind the box in the right view.
        let occluded = DisparityScore(map, truth: pair.truth) { x, y in x >= 10 && x < 30 && y > 40 && y < 140 }
        #expect(occluded.density < 30, "occluded strip density \(occluded.density) %")
        let all = DisparityScore(map, truth: pair.truth)
        #expect(all.density > 85 && all.density < 100)
        // What survives the checks is right.
        let validOnly = DisparityScore(map, truth: pair.truth) { x, y in
            map.values.plane(0).row(y, as: Float.self)[x].isFinite
        }
        #expect(validOnly.bad2 < 2.5, "bad-2.0 over valid pixels \(validOnly.bad2) %")
        // Confidence is 0 exactly where the value is invalid.
        let conf = try #require(map.confidence)
        var mismatches = 0
        for y in 0..<180 {
            let v = map.values.plane(0).row(y, as: Float.self), k = conf.plane(0).row(y, as: UInt8.self)
            for x in 0..<320 where v[x].isFinite != (k[x] > 0) { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    @Test func threePathsAlsoMatch() throws {
        let pair = StereoTestPair(.slantedPlanes, width: 320, height: 180)
        let matcher = try StereoMatcher(StereoMatcher.Configuration(scale: 1, maxDisparity: 48, paths: .three))
        let score = DisparityScore(try matcher.match(left: pair.left, right: pair.right), truth: pair.truth)
        #expect(score.bad2 < 4, "bad-2.0 \(score.bad2) %")
    }

    @Test func oneAndTwoThreadsGiveTheSameMap() throws {
        let pair = StereoTestPair(.thinObjects, width: 320, height: 180)
        var c = StereoMatcher.Configuration(scale: 1, maxDisparity: 48, threads: 1)
        let one = try StereoMatcher(c).match(left: pair.left, right: pair.right)
        c.threads = 2
        let two = try StereoMatcher(c).match(left: pair.left, right: pair.right)
        for y in 0..<180 {
            let a = one.values.plane(0).row(y, as: Float.self), b = two.values.plane(0).row(y, as: Float.self)
            for x in 0..<320 where a[x] != b[x] { Issue.record("differs at \(x),\(y)"); return }
        }
    }

    @Test func edgeAwareUpsamplingReachesFullResolutionAndBeatsBilinearAtEdges() throws {
        let pair = StereoTestPair(.occlusionEdges, width: 320, height: 180)
        func score(_ mode: StereoMatcher.Upsampling) throws -> (DisparityMap, DisparityScore) {
            let m = try StereoMatcher(StereoMatcher.Configuration(scale: 0.5, maxDisparity: 48, upsampling: mode))
            let map = try m.match(left: pair.left, right: pair.right)
            // Pixels within 3 px of a depth edge.
            let t = pair.truth.plane(0)
            return (
                map,
                DisparityScore(map, truth: pair.truth) { x, y in
                    let d = t.row(y, as: Float.self)[x]
                    for dx in -3...3 where x + dx >= 0 && x + dx < 320 && abs(t.row(y, as: Float.self)[x + dx] - d) > 3
                    {
                        return true
                    }
                    return false
                }
            )
        }
        let (edgeMap, edge) = try score(.edgeAware)
        let (_, bilinear) = try score(.bilinear)
        #expect(edgeMap.values.width == 320 && edgeMap.values.height == 180)
        #expect(edgeMap.confidence?.width == 320)
        #expect(
            edge.averageError <= bilinear.averageError,
            "edge-aware \(edge.averageError) vs bilinear \(bilinear.averageError)")
    }

    @Test func temporalSmoothingSteadiesStillPixelsWithoutLaggingMotion() throws {
        // A still camera: the same scene, different sensor noise in each frame.
        let frames = (0..<4).map {
            StereoTestPair(.lowTexture, width: 320, height: 180, noise: 3, noiseSeed: 100 + UInt64($0))
        }
        func flicker(_ strength: Double) throws -> Int {
            var c = StereoMatcher.Configuration(scale: 1, maxDisparity: 48)
            c.temporalSmoothing = strength
            let matcher = try StereoMatcher(c)
            var previous: Image?
            var changed = 0
            for f in frames {
                let map = try matcher.match(left: f.left, right: f.right).values.copy()
                if let previous {
                    for y in 0..<180 {
                        let p = previous.plane(0).row(y, as: Float.self), q = map.plane(0).row(y, as: Float.self)
                        for x in 0..<320 where abs(p[x] - q[x]) > 0.1 { changed += 1 }
                    }
                }
                previous = map
            }
            return changed
        }
        let raw = try flicker(0), smoothed = try flicker(0.8)
        #expect(smoothed < raw / 2, "pixels changing between still frames: \(smoothed) smoothed vs \(raw) raw")
        // A cut (everything moved): the new disparities are taken at once.
        var c = StereoMatcher.Configuration(scale: 1, maxDisparity: 48)
        c.temporalSmoothing = 0.8
        let matcher = try StereoMatcher(c)
        _ = try matcher.match(left: frames[0].left, right: frames[0].right)
        let moved = StereoTestPair(.occlusionEdges, width: 320, height: 180)
        let score = DisparityScore(try matcher.match(left: moved.left, right: moved.right), truth: moved.truth)
        #expect(score.bad2 < 9, "after a cut: bad-2.0 \(score.bad2) %")
    }

    @Test func badInputGivesClearErrors() throws {
        let matcher = try StereoMatcher(StereoMatcher.Configuration(scale: 1, maxDisparity: 48))
        let small = Image(width: 320, height: 180, format: .gray8),
            other = Image(width: 322, height: 180, format: .gray8)
        #expect(
            throws: StereoMatchError.sizeMismatch(leftWidth: 320, leftHeight: 180, rightWidth: 322, rightHeight: 180)
        ) {
            try matcher.match(left: small, right: other)
        }
        #expect(throws: StereoMatchError.formatMismatch(left: "gray8", right: "i420")) {
            try matcher.match(left: small, right: Image(width: 320, height: 180, format: .i420))
        }
        let rgba = Image(width: 320, height: 180, format: .rgba8)
        #expect(throws: StereoMatchError.unsupportedFormat("rgba8")) { try matcher.match(left: rgba, right: rgba) }
        let wide = try StereoMatcher(StereoMatcher.Configuration(scale: 1, maxDisparity: 400))
        do {
            _ = try wide.match(left: small, right: small)
            Issue.record("max-disparity 400 on a 320-wide pair was accepted")
        } catch {
            #expect(error.description.contains("max-disparity 400"))
            #expect(error.description.contains("320"))
        }
        do {
            _ = try StereoMatcher(StereoMatcher.Configuration(p1: 50, p2: 20))
            Issue.record("p2 < p1 accepted")
        } catch {
            #expect(error.description.hasPrefix("p2:"))
        }
        // Path costs are bytes: a census cost (≤ 62) plus P2 must stay below 255.
        do {
            _ = try StereoMatcher(StereoMatcher.Configuration(p2: 500))
            Issue.record("p2 500 accepted")
        } catch {
            #expect(error.description.hasPrefix("p2:"))
            #expect(error.description.contains("at most 192"))
        }
        #expect((try? StereoMatcher(StereoMatcher.Configuration(p2: 192))) != nil)
    }
}
