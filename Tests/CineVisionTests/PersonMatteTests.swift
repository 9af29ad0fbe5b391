// The person matte (selfie segmentation on LiteRT), scored against the synthetic camera's truth:
// a pixel is a person where the exact disparity is a subject's own, inside its body or face box.
import CineMedia
import Testing
@testable import CineVision

@Suite struct PersonMatteTests {
    static func inside(_ r: NormalizedRect, _ x: Double, _ y: Double) -> Bool {
        x >= r.x && x <= r.x + r.width && y >= r.y && y <= r.y + r.height
    }

    /// The truth person mask of frame `index` at `width`×`height` (255 = person), and the frame.
    static func truth(_ scene: SyntheticScene, frame index: Int, width: Int, height: Int) -> (mask: [Bool], frame: Image) {
        let c = scene.configuration
        let l = Image(width: c.width, height: c.height, format: .i420), r = Image(width: c.width, height: c.height, format: .i420)
        let d = Image(width: c.width, height: c.height, format: .float32)
        scene.render(frame: index, left: l, right: r, groundTruth: d)
        let subjects = scene.subjects(at: Double(index) / c.fps)
        var mask = [Bool](repeating: false, count: width * height)
        for y in 0..<height {
            let sy = min(c.height - 1, (2 * y + 1) * c.height / (2 * height))
            let row = d.plane(0).row(sy, as: Float.self)
            for x in 0..<width {
                let sx = min(c.width - 1, (2 * x + 1) * c.width / (2 * width))
                let nx = (Double(sx) + 0.5) / Double(c.width), ny = (Double(sy) + 0.5) / Double(c.height)
                mask[y * width + x] = subjects.contains { s in
                    (inside(s.body, nx, ny) || inside(s.face, nx, ny)) && abs(Double(row[sx]) - s.disparity) < 0.06 * s.disparity + 0.5
                }
            }
        }
        return (mask, l)
    }

    @Test func theMatteCoversThePeopleOfTheSyntheticScene() throws {
        let matte = try PersonMatte()
        #expect(matte.width == 256 && matte.height == 144)
        var c = SyntheticScene.Configuration(width: 640, height: 360, fps: 30, seed: 1)
        c.noise = 0
        let scene = SyntheticScene(c)
        var ious: [Double] = []
        for index in stride(from: 60, to: 1200, by: 90) {
            let (mask, frame) = Self.truth(scene, frame: index, width: 256, height: 144)
            guard mask.filter({ $0 }).count > 500 else { continue }
            let m = try matte.estimate(frame)
            var both = 0, either = 0
            for y in 0..<144 {
                let row = m.plane(0).row(y, as: UInt8.self)
                for x in 0..<256 {
                    let a = row[x] >= 128, b = mask[y * 256 + x]
                    if a && b { both += 1 }
                    if a || b { either += 1 }
                }
            }
            ious.append(Double(both) / Double(max(1, either)))
        }
        let mean = ious.reduce(0, +) / Double(max(1, ious.count))
        print("person matte IoU per frame: \(ious.map { Int($0 * 100) }), mean \(Int(mean * 100)) %")
        #expect(ious.count >= 5)
        #expect(mean > 0.6, "mean IoU \(mean)")
    }
}

@Suite struct PersonMatteFileTests {
    @Test func aModelOfAnotherFamilyOrAMissingFileIsOneErrorNamingIt() {
        for file in [BlazeFaceDetector.shortRangeFile, "no-such-matte.tflite"] {
            do {
                _ = try PersonMatte(file: file)
                Issue.record("\(file) was accepted as a matte model")
            } catch {
                #expect("\(error)".contains(file), "\(error)")
            }
        }
    }
}
