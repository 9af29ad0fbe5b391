// The blur's edge drawn by the person matte, judged against the truth: a synthetic stereo frame
// is rendered three ways — with the camera's exact disparity (the reference), with the stereo
// matcher's 240×135 map as the live graph has it, and with that map redrawn along the selfie
// model's matte (MatteEdgeRefiner); the maps are judged by where they draw the blur's edge in a
// band around the subject's true outline.
import CineTestSupport
import CineMedia
import CineVision
import Foundation
import Testing

@Suite struct MatteEdgeRefinerTests {
    /// Mean |Y − Y_other| over `band`.
    private func error(_ a: Image, _ b: Image, _ band: [Bool]) -> Double {
        var sum = 0.0, count = 0
        for y in 0..<a.height {
            let p = a.plane(0).row(y, as: UInt8.self), q = b.plane(0).row(y, as: UInt8.self)
            for x in 0..<a.width where band[y * a.width + x] {
                sum += abs(Double(p[x]) - Double(q[x]))
                count += 1
            }
        }
        return sum / Double(max(1, count))
    }

    @Test func theBlursEdgeFollowsTheMatteNotTheMapsGrid() throws {
        let w = 960, h = 540
        let scene = SyntheticScene(SyntheticScene.Configuration(width: w, height: h, fps: 30, seed: 1))
        let left = Image(width: w, height: h, format: .i420), right = Image(width: w, height: h, format: .i420)
        let truth = Image(width: w, height: h, format: .float32)
        scene.render(frame: 150, left: left, right: right, groundTruth: truth)
        let coarse = try StereoMatcher().match(left: left, right: right)
        #expect(coarse.values.width == 240)
        let truthMap = DisparityMap(values: truth, referenceWidth: w, referenceHeight: h)
        let matte = try PersonMatte().estimate(left)

        // Focus on the nearest person: the largest true disparity under the matte's core.
        var subject: [Float] = []
        let sx = Double(matte.width) / Double(w), sy = Double(matte.height) / Double(h)
        for y in 0..<h {
            let m = matte.plane(0).row(min(matte.height - 1, Int(Double(y) * sy)), as: UInt8.self)
            let t = truth.plane(0).row(y, as: Float.self)
            for x in 0..<w where m[min(matte.width - 1, Int(Double(x) * sx))] > 240 { subject.append(t[x]) }
        }
        subject.sort()
        let focus = subject[subject.count * 9 / 10]
        // The subject's true silhouette: pixels within 3 % of the focus disparity; the band: 12 px either side of its outline.
        var inside = [Bool](repeating: false, count: w * h)
        for y in 0..<h {
            let t = truth.plane(0).row(y, as: Float.self)
            for x in 0..<w { inside[y * w + x] = abs(t[x] - focus) < 0.03 * focus }
        }
        let distance = MatteEdgeQuality.distanceToEdge(inside, width: w, height: h)
        let band = distance.map { $0 <= 12 }

        let renderer = BokehRenderer()
        let render = { (map: DisparityMap) in try renderer.render(left, disparity: map, focusDisparity: Double(focus), fNumber: 2) }
        var refiner = MatteEdgeRefiner()
        let refinedMap = refiner.refine(coarse, matte: matte, guide: left)
        // Half the frame's resolution (the renderer brings it up along the frame's luma).
        #expect(refinedMap.values.width == w / 2 && refinedMap.values.height == h / 2)

        // Where the blur's edge is drawn: the share of the band whose pixels are sharp or blurred
        // (a circle of confusion under one pixel at f/2) against the truth's say.
        let k = Float(LensModel().radiusPerDisparity(fNumber: 2))
        func misdrawn(_ map: DisparityMap) -> Double {
            var bad = 0, count = 0
            let mw = map.values.width, mh = map.values.height
            for y in 0..<h {
                let t = truth.plane(0).row(y, as: Float.self), d = map.values.plane(0).row(y * mh / h, as: Float.self)
                for x in 0..<w where band[y * w + x] {
                    count += 1
                    if (abs(k * (t[x] - focus)) < 1) != (abs(k * (d[x * mw / w] - focus)) < 1) { bad += 1 }
                }
            }
            return Double(bad) / Double(count)
        }
        // The same map upsampled with no matte (an empty one leaves no outline to redraw), and
        // the matcher's own edge-aware upsampling (guided by the frame's luma).
        let empty = Image(width: 2, height: 2, format: .gray8)
        empty.plane(0).fill(byte: 0)
        var plainRefiner = MatteEdgeRefiner()
        let bilinear = plainRefiner.refine(coarse, matte: empty, guide: left)
        var configuration = StereoMatcher.Configuration()
        configuration.upsampling = .edgeAware
        let edgeAware = try StereoMatcher(configuration).match(left: left, right: right)
        let (plain, guided, refined) = (misdrawn(bilinear), misdrawn(edgeAware), misdrawn(refinedMap))
        print("blur's edge misdrawn within 12 px of the subject's outline: map \(plain), edge-aware map \(guided), map + matte \(refined)")
        #expect(refined < 0.8 * plain)
        // (About as good as the matcher's own edge-aware upsampling, which costs a full-resolution pass of its own.)
        // Away from any outline the map is only upsampled: the same render.
        let far = distance.map { $0 > 40 }
        #expect(error(try render(refinedMap), try render(coarse), far) < 0.5)

        let artifacts = FileManager.default.currentDirectoryPath + "/.build/test-artifacts/matte"
        try FileManager.default.createDirectory(atPath: artifacts, withIntermediateDirectories: true)
        for (name, image) in [("frame", left), ("truth", try render(truthMap)), ("map", try render(coarse)),
                              ("map-matte", try render(refinedMap))] {
            try LumaPicture.write(image, to: "\(artifacts)/edge-\(name).pgm")
        }
    }
}
