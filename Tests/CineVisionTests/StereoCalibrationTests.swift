// Calibration tests: OpenCV FileStorage YAML and XML and ROS camera_info pairs parse to the same
// numbers; malformed files fail naming file and field; and rectification undoes a known camera
// rotation on a synthetic pair (matching works again).
import CineTestSupport
import CineMedia
import CineVision
import Foundation
import Testing

private func write(_ text: String, _ name: String) -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cinegraph-calib-\(getpid())")
    try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let path = dir.appendingPathComponent(name).path
    try! text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
}

private func list(_ v: [Double]) -> String { v.map { String($0) }.joined(separator: ", ") }

private func yamlMatrix(_ name: String, _ rows: Int, _ cols: Int, _ v: [Double]) -> String {
    "\(name): !!opencv-matrix\n   rows: \(rows)\n   cols: \(cols)\n   dt: d\n   data: [ \(list(v)) ]\n"
}

private func xmlMatrix(_ name: String, _ rows: Int, _ cols: Int, _ v: [Double]) -> String {
    "<\(name) type_id=\"opencv-matrix\">\n  <rows>\(rows)</rows>\n  <cols>\(cols)</cols>\n  <dt>d</dt>\n  <data>\n    \(v.map { String($0) }.joined(separator: " "))</data></\(name)>\n"
}

private let k: [Double] = [300, 0, 160, 0, 300, 90, 0, 0, 1]
private let d: [Double] = [-0.1, 0.01, 0.001, -0.001, 0]
private let identity: [Double] = [1, 0, 0, 0, 1, 0, 0, 0, 1]

private func rotation(z: Double, x: Double) -> [Double] {
    let cz = cos(z), sz = sin(z), cx = cos(x), sx = sin(x)
    // Rz · Rx
    return [cz, -sz * cx, sz * sx, sz, cz * cx, -cz * sx, 0, sx, cx]
}

@Suite struct StereoCalibrationTests {
    @Test func openCVYAMLAndXMLGiveTheSameCalibration() throws {
        let r = rotation(z: 0.01, x: 0.005), t: [Double] = [-65, 0.5, 0.2]
        let yaml =
            "%YAML:1.0\n---\nimageSize: [ 320, 180 ]\n" + yamlMatrix("K1", 3, 3, k) + yamlMatrix("D1", 1, 5, d)
            + yamlMatrix("K2", 3, 3, k) + yamlMatrix("D2", 1, 5, d) + yamlMatrix("R", 3, 3, r)
            + yamlMatrix("T", 3, 1, t)
        let xml =
            "<?xml version=\"1.0\"?>\n<opencv_storage>\n<imageSize>320 180</imageSize>\n" + xmlMatrix("K1", 3, 3, k)
            + xmlMatrix("D1", 1, 5, d) + xmlMatrix("K2", 3, 3, k) + xmlMatrix("D2", 1, 5, d) + xmlMatrix("R", 3, 3, r)
            + xmlMatrix("T", 3, 1, t) + "</opencv_storage>\n"
        let a = try StereoCalibration.load(contentsOf: write(yaml, "stereo.yml"))
        let b = try StereoCalibration.load(contentsOf: write(xml, "stereo.xml"))
        #expect(a == b)
        #expect(a.left.matrix == k && a.right.distortion == d && a.rotation == r)
        #expect(a.imageWidth == 320 && a.imageHeight == 180)
        #expect(abs(a.baseline - (65 * 65 + 0.25 + 0.04).squareRoot()) < 1e-9)
        #expect(a.focalLength == 300)
        // Rectification from K D R T (Bouguet) gives a usable map with the common focal length.
        let rect = try StereoRectifier(calibration: a, width: 320, height: 180)
        #expect(rect.focalLength == 300)
    }

    @Test func rosCameraInfoPairParses() throws {
        func info(_ p: [Double]) -> String {
            "image_width: 320\nimage_height: 180\ncamera_name: cam\ncamera_matrix:\n  rows: 3\n  cols: 3\n  data: [\(list(k))]\n"
                + "distortion_model: plumb_bob\ndistortion_coefficients:\n  rows: 1\n  cols: 5\n  data: [\(list(d))]\n"
                + "rectification_matrix:\n  rows: 3\n  cols: 3\n  data: [\(list(identity))]\n"
                + "projection_matrix:\n  rows: 3\n  cols: 4\n  data: [\(list(p))]\n"
        }
        let c = try StereoCalibration.load(
            rosLeft: write(info([300, 0, 160, 0, 0, 300, 90, 0, 0, 0, 1, 0]), "left.yaml"),
            rosRight: write(info([300, 0, 160, -19.5, 0, 300, 90, 0, 0, 0, 1, 0]), "right.yaml"))
        #expect(c.imageWidth == 320 && c.left.distortion == d)
        #expect(abs(c.baseline - 0.065) < 1e-12)
        #expect(c.right.projection?[3] == -19.5)
    }

    @Test func malformedCalibrationsNameFileAndField() throws {
        func failure(_ text: String, _ name: String) -> String {
            do {
                _ = try StereoCalibration.load(contentsOf: write(text, name))
                return "accepted"
            } catch {
                return error.description
            }
        }
        let good = yamlMatrix("K1", 3, 3, k) + yamlMatrix("K2", 3, 3, k) + yamlMatrix("R", 3, 3, identity)
        let noT = failure("%YAML:1.0\n" + good, "no-t.yml")
        #expect(noT.hasSuffix("no-t.yml: T: is missing (a 3x1 matrix)"))
        let short = failure("%YAML:1.0\n" + yamlMatrix("K1", 3, 3, [1, 2, 3]) + yamlMatrix("K2", 3, 3, k), "short.yml")
        #expect(short.contains("short.yml: K1: says 3x3 but has 3 values"))
        let text = failure(
            "%YAML:1.0\n" + good.replacingOccurrences(of: "300.0, 0.0, 160.0", with: "300.0, abc, 160.0")
                + yamlMatrix("T", 3, 1, [-65, 0, 0]), "text.yml")
        #expect(text.contains("text.yml: K1: has \"abc\" where a number belongs"))
        let notRotation = failure(
            "%YAML:1.0\n" + yamlMatrix("K1", 3, 3, k) + yamlMatrix("K2", 3, 3, k)
                + yamlMatrix("R", 3, 3, [2, 0, 0, 0, 1, 0, 0, 0, 1]) + yamlMatrix("T", 3, 1, [-65, 0, 0]), "rot.yml")
        #expect(notRotation.contains("rot.yml: R: is not a rotation"))
        #expect(failure("", "empty.yml").contains("empty.yml: K1: is missing"))
        do {
            _ = try StereoCalibration.load(contentsOf: "/nonexistent/calib.yml")
            Issue.record("missing file accepted")
        } catch {
            #expect(error.description == "/nonexistent/calib.yml: cannot be read (missing or not readable)")
        }
        // A calibration for another image size is refused when rectifying.
        let c = try StereoCalibration.load(
            contentsOf: write(
                "%YAML:1.0\nimageSize: [ 640, 360 ]\n" + good + yamlMatrix("T", 3, 1, [-65, 0, 0]), "size.yml"))
        #expect(throws: CalibrationError.self) {
            try StereoRectifier(calibration: c, width: 320, height: 180, file: "size.yml")
        }
    }

    @Test func rectificationUndoesARotatedRightCamera() throws {
        // The true rectified pair, and the right view as a camera rotated by R2 would see it.
        let pair = StereoTestPair(.slantedPlanes, width: 320, height: 180)
        let r2 = rotation(z: 0.02, x: 0.012)
        let raw = Image(width: 320, height: 180, format: .gray8)
        let src = pair.right.plane(0)
        for y in 0..<180 {
            let row = raw.plane(0).row(y, as: UInt8.self)
            for x in 0..<320 {
                // raw(p) = rectified(K · R2 · K⁻¹ · p)
                let rx = (Double(x) - 160) / 300, ry = (Double(y) - 90) / 300
                let X = r2[0] * rx + r2[1] * ry + r2[2], Y = r2[3] * rx + r2[4] * ry + r2[5],
                    Z = r2[6] * rx + r2[7] * ry + r2[8]
                let u = 300 * X / Z + 160, v = 300 * Y / Z + 90
                let ui = Int(u.rounded()), vi = Int(v.rounded())
                row[x] = ui >= 0 && vi >= 0 && ui < 320 && vi < 180 ? src.row(vi, as: UInt8.self)[ui] : 0
            }
        }
        let p1: [Double] = [300, 0, 160, 0, 0, 300, 90, 0, 0, 0, 1, 0]
        let p2: [Double] = [300, 0, 160, -19.5, 0, 300, 90, 0, 0, 0, 1, 0]
        let file = write(
            "%YAML:1.0\n---\n" + yamlMatrix("R1", 3, 3, identity) + yamlMatrix("R2", 3, 3, r2)
                + yamlMatrix("P1", 3, 4, p1) + yamlMatrix("P2", 3, 4, p2), "rectified.yml")
        let calibration = try StereoCalibration.load(contentsOf: file)
        #expect(abs(calibration.baseline - 0.065) < 1e-12)
        let rectifier = try StereoRectifier(calibration: calibration, width: 320, height: 180)
        let rectified = rectifier.rectify(StereoFrame(left: pair.left, right: raw))
        let matcher = try StereoMatcher(StereoMatcher.Configuration(scale: 1, maxDisparity: 48))
        func bad2(_ map: DisparityMap) -> Double {
            var bad = 0
            for y in 20..<160 {
                let v = map.values.plane(0).row(y, as: Float.self), t = pair.truth.plane(0).row(y, as: Float.self)
                for x in 60..<300 where !v[x].isFinite || abs(v[x] - t[x]) > 2 { bad += 1 }
            }
            return Double(bad) / Double(140 * 240) * 100
        }
        let unrectified = bad2(try matcher.match(left: pair.left, right: raw))
        let fixed = bad2(try matcher.match(rectified))
        #expect(fixed < 5, "rectified bad-2.0 \(fixed) %")
        #expect(unrectified > 3 * fixed, "unrectified \(unrectified) % vs rectified \(fixed) %")
    }
}
