// Sources that rectify with a calibration file: the camera and file nodes.
import CineGStreamer
import CineGraph
import CineMedia
import CineNodes
import CineViewfinder
import CineVision
import Foundation
import Testing

@Suite(.serialized) struct SourceCalibrationTests {
    private func matrix(_ name: String, _ rows: Int, _ cols: Int, _ v: [Double]) -> String {
        "\(name): !!opencv-matrix\n   rows: \(rows)\n   cols: \(cols)\n   dt: d\n   data: [ "
            + v.map { String($0) }.joined(separator: ", ") + " ]\n"
    }

    /// The mean absolute luma difference between `a` row y and `b` row y + shift, over the middle rows.
    private func rowDifference(_ a: Image, _ b: Image, shift: Int) -> Double {
        var sum = 0.0, n = 0
        for y in 20..<(a.height - 20) {
            let ra = a.plane(0).row(y, as: UInt8.self), rb = b.plane(0).row(y + shift, as: UInt8.self)
            for x in 10..<(a.width - 10) {
                sum += abs(Double(ra[x]) - Double(rb[x]))
                n += 1
            }
        }
        return sum / Double(n)
    }

    @Test func fileSourceRectifiesBothViewsInColourWithACalibration() throws {
        let folder = temporaryFolder("calibrated-pair")
        let image = folder.appendingPathComponent("view.png").path
        let p = try Pipeline("videotestsrc num-buffers=1 pattern=pinwheel foreground-color=0xffff2000 background-color=0xff0030ff ! video/x-raw,width=160,height=120 ! pngenc ! filesink location=\(image)")
        try p.play()
        #expect(try p.waitForEndOfStream(timeout: 10))
        p.stop()
        // Rectified-form calibration: the left view tilted so that content moves ~6 rows, the right untouched.
        let t = atan(6.0 / 300.0)
        let tilt: [Double] = [1, 0, 0, 0, cos(t), -sin(t), 0, sin(t), cos(t)]
        let identity: [Double] = [1, 0, 0, 0, 1, 0, 0, 0, 1]
        let p1: [Double] = [300, 0, 80, 0, 0, 300, 60, 0, 0, 0, 1, 0]
        let p2: [Double] = [300, 0, 80, -18, 0, 300, 60, 0, 0, 0, 1, 0]
        let calibration = folder.appendingPathComponent("stereo.yml").path
        try ("%YAML:1.0\n---\n" + matrix("R1", 3, 3, tilt) + matrix("R2", 3, 3, identity) + matrix("P1", 3, 4, p1)
            + matrix("P2", 3, 4, p2)).write(toFile: calibration, atomically: true, encoding: .utf8)

        func pair(_ parameters: [String: String]) throws -> StereoFrame {
            var h = try NodeHarness(FileSourceNode.self, parameters: ["path": image, "right-path": image].merging(parameters) { $1 })
            try h.instance.preflight()
            try h.start()
            let out = try #require(try h.process()[\.$stereo])
            try h.finish()
            return out
        }
        let raw = try pair([:])
        let rectified = try pair(["calibration": calibration])
        #expect(rectified.left.format == .i420 && rectified.left.width == 160 && rectified.right.height == 120)
        // The right view is unchanged (identity), the left moved by about six rows one way or the other.
        #expect(rowDifference(rectified.right, raw.right, shift: 0) < 2)
        let moved = min(rowDifference(raw.left, rectified.left, shift: 6), rowDifference(rectified.left, raw.left, shift: 6))
        #expect(moved < 0.5 * rowDifference(rectified.left, raw.left, shift: 0), "moved \(moved)")
        // Chroma is remapped too, not left grey: the pinwheel's colours survive.
        let u = rectified.left.plane(1)
        let centre = u.row(u.height / 2, as: UInt8.self)
        #expect((0..<u.width).contains { abs(Int(centre[$0]) - 128) > 20 })
    }

    @Test func calibrationErrorsNameTheParameterAndFile() throws {
        let bad = temporaryFolder("bad-calibration").appendingPathComponent("bad.yml").path
        try "%YAML:1.0\nK1: 1\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let h = try NodeHarness(FileSourceNode.self, parameters: ["path": bad, "right-path": bad, "calibration": bad])
        do {
            try h.instance.preflight()
            Issue.record("a bad calibration passed preflight")
        } catch let e as ParameterError {
            #expect(e.parameter == "calibration" && "\(e)".contains("bad.yml"), "\(e)")
        }
        #expect(throws: ParameterError.self) {
            try NodeHarness(FileSourceNode.self, parameters: ["path": bad, "calibration": bad])  // mono: nothing to rectify
        }
        #expect(throws: ParameterError.self) {
            try NodeHarness(FileSourceNode.self, parameters: ["path": bad, "layout": "side-by-side", "calibration-right": bad]).instance.preflight()
        }
    }
}
