// Tests of SyntheticScene's pixels: determinism, exact stereo geometry, light and noise, and
// the checks on the images callers pass in.
import CineMedia
import Foundation
import Testing

@testable import CineVision

@Suite struct SyntheticSceneRenderingTests {
    /// 320 × 180, no noise, a baseline chosen so that the 10 m wall has a disparity of exactly 6.
    static func exactScene(seed: UInt64 = 5) -> SyntheticScene {
        let baseline = 6 * 10 / focalLength(width: 320)
        return SyntheticScene(.init(width: 320, height: 180, seed: seed, baseline: baseline, noise: 0))
    }

    @Test func sameSeedAndFrameRenderIdenticalBytes() {
        let config = SyntheticScene.Configuration(width: 160, height: 90, seed: 7)
        let a = SyntheticScene(config).renderFrame(190), b = SyntheticScene(config).renderFrame(190)
        #expect(planeBytes(a.left) == planeBytes(b.left))
        #expect(planeBytes(a.right) == planeBytes(b.right))
        #expect(planeBytes(a.truth) == planeBytes(b.truth))
    }

    @Test func theSetPaintedOnceGivesTheSameBytesAsPaintedEveryFrame() {
        // Noise, a dark spell and people passing: the cached set changes nothing a frame shows.
        var config = SyntheticScene.Configuration(width: 322, height: 182, seed: 3, subjectCount: 4)
        config.lightDrop = .init(start: 5, duration: 4, level: 0.4)
        let cached = SyntheticScene(config), painted = SyntheticScene(config, cachingTheSet: false)
        for index in [0, 150, 200, 390, 520] {
            let a = cached.renderFrame(index), b = painted.renderFrame(index)
            #expect(planeBytes(a.left) == planeBytes(b.left), "frame \(index) left")
            #expect(planeBytes(a.right) == planeBytes(b.right), "frame \(index) right")
            #expect(planeBytes(a.truth) == planeBytes(b.truth), "frame \(index) truth")
        }
    }

    @Test func differentSeedsRenderDifferentFrames() {
        let a = SyntheticScene(.init(width: 160, height: 90, seed: 7)).renderFrame(190)
        let b = SyntheticScene(.init(width: 160, height: 90, seed: 8)).renderFrame(190)
        #expect(planeBytes(a.left) != planeBytes(b.left))
        #expect(planeBytes(a.truth) != planeBytes(b.truth))
    }

    @Test func rightViewIsLeftViewShiftedByTheGroundTruthDisparity() {
        let scene = Self.exactScene()
        #expect(abs(scene.disparity(atDepth: scene.backdropDepth) - 6) < 1e-9)
        let maxDisparity = Int(scene.disparity(atDepth: 1.2).rounded(.up))
        var exactChecked = 0, exactEqual = 0, exactWorst = 0
        var fractionalChecked = 0, fractionalError = 0.0, wrongShiftError = 0.0
        var chromaChecked = 0, chromaEqual = 0
        // Two instants with subjects passing in front of the set.
        for index in [180, 390] {
            let frame = scene.renderFrame(index)
            let w = frame.left.width, h = frame.left.height
            for y in stride(from: 4, to: h - 4, by: 2) {
                for x in stride(from: 8, to: w - maxDisparity - 4, by: 1) {
                    let d = frame.disparity(x, y)
                    // Away from layer edges: the same disparity all around.
                    guard (-3...3).allSatisfy({ frame.disparity(x + $0, y) == d }),
                        frame.disparity(x, y - 1) == d, frame.disparity(x, y + 1) == d
                    else { continue }
                    let target = Double(x) - Double(d)
                    guard target >= 3 else { continue }
                    // Not occluded in the right view by a nearer surface landing on the same spot.
                    let occluded = (x + 1..<w).contains { x2 in
                        let d2 = frame.disparity(x2, y)
                        return d2 > d + 0.001 && abs(Double(x2) - Double(d2) - target) < 3
                    }
                    guard !occluded else { continue }
                    let left = frame.luma(frame.left, x, y)
                    if abs(Double(d) - Double(d).rounded()) < 1e-4 {
                        let right = frame.luma(frame.right, Int(target.rounded()), y)
                        exactChecked += 1
                        exactWorst = max(exactWorst, abs(left - right))
                        if left == right { exactEqual += 1 }
                        // Chroma: an even disparity shifts chroma by a whole sample.
                        if x % 2 == 0 && y % 2 == 0 && Int(d.rounded()) % 2 == 0 && frame.disparity(x + 1, y + 1) == d {
                            chromaChecked += 1
                            let cx = x / 2, cy = y / 2, shift = Int(d.rounded()) / 2
                            if frame.cb(frame.left, cx, cy) == frame.cb(frame.right, cx - shift, cy) {
                                chromaEqual += 1
                            }
                        }
                    } else {
                        func rightAt(_ position: Double) -> Double {
                            let i = Int(position.rounded(.down)), a = position - Double(i)
                            return Double(frame.luma(frame.right, i, y)) * (1 - a)
                                + Double(frame.luma(frame.right, i + 1, y)) * a
                        }
                        fractionalChecked += 1
                        fractionalError += abs(Double(left) - rightAt(target))
                        wrongShiftError += abs(Double(left) - rightAt(target - 2))
                    }
                }
            }
        }
        // The wall (integer disparity): byte-exact.
        #expect(exactChecked > 2000)
        #expect(exactWorst <= 2)
        #expect(Double(exactEqual) >= 0.99 * Double(exactChecked))
        #expect(chromaChecked > 200)
        #expect(Double(chromaEqual) >= 0.99 * Double(chromaChecked))
        // Fractional disparities (columns, furniture, people): close, and much closer than a wrong shift.
        #expect(fractionalChecked > 2000)
        let meanError = fractionalError / Double(fractionalChecked)
        let meanWrong = wrongShiftError / Double(fractionalChecked)
        #expect(meanError < 4, "mean error \(meanError)")
        #expect(meanError * 2.5 < meanWrong, "mean error \(meanError) vs wrong shift \(meanWrong)")
    }

    @Test func groundTruthIsTheFrontMostLayersDisparity() {
        let scene = Self.exactScene()
        let f = focalLength(width: 320), baseline = scene.configuration.baseline
        #expect(abs(scene.focalLengthPixels - f) < 1e-9)
        #expect(abs(scene.disparity(atDepth: 2) - f * baseline / 2) < 1e-9)
        #expect(abs(scene.depth(atDisparity: scene.disparity(atDepth: 3.3)) - 3.3) < 1e-9)

        let index = 180
        let frame = scene.renderFrame(index)
        var minimum = Float.infinity, maximum = -Float.infinity
        for y in 0..<180 {
            for x in 0..<320 {
                let d = frame.disparity(x, y)
                #expect(d.isFinite)
                minimum = min(minimum, d)
                maximum = max(maximum, d)
            }
        }
        // The backdrop is the farthest surface; nothing is farther.
        #expect(minimum == Float(scene.disparity(atDepth: scene.backdropDepth)))
        let subjects = scene.subjects(at: scene.time(ofFrame: index))
        #expect(subjects.count >= 1)
        for subject in subjects {
            // Nearer is larger, and it is f·B/Z.
            #expect(subject.disparity > scene.disparity(atDepth: scene.backdropDepth))
            #expect(abs(subject.disparity - f * baseline / subject.depth) < 1e-9)
            #expect(subject.depth >= 1.2 && subject.depth <= 3.0)
        }
        let nearest = subjects.map(\.disparity).max()!
        #expect(maximum == Float(nearest))
    }

    @Test func subjectBoundsMatchTheRenderedFace() throws {
        let config = SyntheticScene.Configuration(width: 640, height: 360, seed: 1, noise: 0)
        let scene = SyntheticScene(config)
        var empty = config
        empty.subjectCount = 0
        let backdrop = SyntheticScene(empty)
        // An instant where a subject faces the camera, its face fully in frame and nobody else over it.
        var found: (index: Int, subject: SyntheticSubject)?
        search: for index in stride(from: 0, to: scene.frameCount, by: 5) {
            let subjects = scene.subjects(at: scene.time(ofFrame: index))
            for s in subjects where s.facingCamera && s.face.x > 0.01 && s.face.x + s.face.width < 0.99 {
                let covered = subjects.contains { other in
                    other.id != s.id && other.depth < s.depth && other.body.x < s.face.x + s.face.width
                        && other.body.x + other.body.width > s.face.x
                }
                if !covered {
                    found = (index, s)
                    break search
                }
            }
        }
        let (index, subject) = try #require(found)
        let frame = scene.renderFrame(index), plain = backdrop.renderFrame(index)
        let (x0, x1, y0, y1) = frame.pixelRange(subject.face, frame.left)
        // The box is where the subject is: mostly its disparity, and unlike the bare backdrop.
        var onSubject = 0, total = 0, difference = 0
        for y in y0..<y1 {
            for x in x0..<x1 {
                total += 1
                if abs(Double(frame.disparity(x, y)) - subject.disparity) < 1e-3 { onSubject += 1 }
                difference += abs(frame.luma(frame.left, x, y) - plain.luma(plain.left, x, y))
            }
        }
        #expect(Double(onSubject) >= 0.8 * Double(total))
        #expect(Double(difference) / Double(total) > 15)
        // The face pattern: the eye band is darker than the cheeks below it.
        let face = subject.face
        func band(_ top: Double, _ bottom: Double) -> NormalizedRect {
            NormalizedRect(
                x: face.x + 0.15 * face.width, y: face.y + top * face.height,
                width: 0.7 * face.width, height: (bottom - top) * face.height)
        }
        let eyes = frame.meanLuma(frame.left, in: band(0.2, 0.3))
        let cheeks = frame.meanLuma(frame.left, in: band(0.42, 0.52))
        #expect(eyes + 8 < cheeks, "eye band \(eyes), cheeks \(cheeks)")
    }

    @Test func lightDropDimsLumaToItsLevelAndNeutralisesChroma() {
        let normal = SyntheticScene.Configuration(width: 320, height: 180, seed: 2, noise: 0)
        var dark = normal
        dark.lightDrop = .init(start: 8, duration: 4, level: 0.3)
        let bright = SyntheticScene(normal), dim = SyntheticScene(dark)
        #expect(dim.lightLevel(at: 7) == 1)
        #expect(abs(dim.lightLevel(at: 10) - 0.3) < 1e-12)
        #expect(dim.lightLevel(at: 8.2) < 1 && dim.lightLevel(at: 8.2) > 0.3)
        #expect(dim.lightLevel(at: 12.5) == 1)

        let index = 300  // 10 s
        let a = bright.renderFrame(index), b = dim.renderFrame(index)
        let ratio = b.meanLuma(b.left) / a.meanLuma(a.left)
        #expect(ratio > 0.3 * 0.85 && ratio < 0.3 * 1.15, "luma ratio \(ratio)")
        var chromaA = 0, chromaB = 0
        for y in 0..<90 {
            for x in 0..<160 {
                chromaA += abs(a.cb(a.left, x, y) - 128)
                chromaB += abs(b.cb(b.left, x, y) - 128)
            }
        }
        #expect(Double(chromaB) < 0.4 * Double(chromaA))
        // Outside the drop nothing changes.
        #expect(planeBytes(bright.renderFrame(150).left) == planeBytes(dim.renderFrame(150).left))
    }

    @Test func sensorNoiseIsDeterministicMildAndChangesEveryFrame() {
        let clean = SyntheticScene(.init(width: 320, height: 180, seed: 4, noise: 0))
        let noisy = SyntheticScene(.init(width: 320, height: 180, seed: 4, noise: 0.01))
        func noise(_ index: Int) -> [Int] {
            let a = clean.renderFrame(index), b = noisy.renderFrame(index)
            return zip(planeBytes(a.left).prefix(320 * 180), planeBytes(b.left).prefix(320 * 180)).map {
                Int($1) - Int($0)
            }
        }
        let first = noise(40)
        #expect(first == noise(40))
        let mean = Double(first.reduce(0, +)) / Double(first.count)
        let deviation = (first.map { pow(Double($0) - mean, 2) }.reduce(0, +) / Double(first.count)).squareRoot()
        #expect(abs(mean) < 0.2)
        #expect(deviation > 0.01 * 255 * 0.75 && deviation < 0.01 * 255 * 1.25, "noise deviation \(deviation)")
        #expect(first != noise(41))
        // The two sensors have their own noise.
        let a = clean.renderFrame(40), b = noisy.renderFrame(40)
        let rightNoise = zip(planeBytes(a.right).prefix(320 * 180), planeBytes(b.right).prefix(320 * 180)).map {
            Int($1) - Int($0)
        }
        #expect(rightNoise != first)
    }

    @Test func rendersIntoCroppedViewsAndOddSizes() {
        let scene = SyntheticScene(.init(width: 320, height: 180, seed: 9))
        let reference = scene.renderFrame(200)
        let big = Image(width: 400, height: 240, format: .i420),
            bigRight = Image(width: 400, height: 240, format: .i420)
        let left = big.cropped(x: 16, y: 8, width: 320, height: 180)
        let right = bigRight.cropped(x: 40, y: 50, width: 320, height: 180)
        scene.render(frame: 200, left: left, right: right, groundTruth: nil)
        #expect(planeBytes(left) == planeBytes(reference.left))
        #expect(planeBytes(right) == planeBytes(reference.right))

        let odd = SyntheticScene(
            .init(width: 161, height: 91, seed: 9, lightDrop: .init(start: 6, duration: 3, level: 0.5)))
        let frame = odd.renderFrame(200)
        let backdrop = Float(odd.disparity(atDepth: odd.backdropDepth))
        var ok = true
        for y in 0..<91 {
            for x in 0..<161 where !(frame.disparity(x, y) >= backdrop) { ok = false }
        }
        #expect(ok)
    }

    @Test func renderRejectsAViewOfTheWrongFormat() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let scene = SyntheticScene(.init(width: 64, height: 36))
            scene.render(
                frame: 0, left: Image(width: 64, height: 36, format: .nv12),
                right: Image(width: 64, height: 36, format: .i420), groundTruth: nil)
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("left must be a i420 image of 64x36, got nv12 64x36"), "\(message)")
    }

    @Test func renderRejectsGroundTruthOfTheWrongSize() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let scene = SyntheticScene(.init(width: 64, height: 36))
            scene.render(
                frame: 0, left: Image(width: 64, height: 36, format: .i420),
                right: Image(width: 64, height: 36, format: .i420),
                groundTruth: Image(width: 32, height: 18, format: .float32))
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("groundTruth must be a float32 image of 64x36, got float32 32x18"), "\(message)")
    }
}
