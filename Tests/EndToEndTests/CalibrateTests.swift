// End to end: `cinegraph calibrate` as a user runs it — on OpenCV's real stereo photos, on
// side-by-side pictures from a simulated rig whose numbers are known, and on bad input.
import CineCalibrate
import CineGStreamer
import CineMedia
import CineTestSupport
import CineVision
import Foundation
import Testing

/// OpenCV's sample stereo photos (scripts/fetch-testdata.sh, run by setup): 13 pairs of a 9×6 board.
let opencvStereo = root.appendingPathComponent(".testdata/opencv-stereo").path

func opencvPhotos(_ side: String) throws -> [String] {
    let names = try FileManager.default.contentsOfDirectory(atPath: opencvStereo)
        .filter { $0.hasPrefix(side) && $0.hasSuffix(".jpg") }.sorted()
    return names.map { opencvStereo + "/" + $0 }
}

@Suite(.serialized) struct CalibrateTests {
    @Test func realPhotosCalibrateAndRectify() throws {
        let dir = scratch("calibrate-real")
        let left = try opencvPhotos("left"), right = try opencvPhotos("right")
        #expect(left.count == 13 && right.count == 13, "run scripts/fetch-testdata.sh")
        let r = try cinegraph(
            ["calibrate"] + left + ["--right"] + right
                + ["--board", "9x6", "--square", "25", "-o", dir + "/stereo.yml", "--ros", dir + "/cam", "--rectified", dir + "/check.jpg"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("RMS error") && r.stdout.contains("baseline"), "\(r.stdout)")
        let c = try StereoCalibration.load(contentsOf: dir + "/stereo.yml")
        // The sample's board has 25 mm squares seen from about 3.3 squares apart (OpenCV's own
        // sample recovers 3.3 squares with either corner finder).
        #expect(c.baseline > 80 && c.baseline < 86, "baseline \(c.baseline) mm")
        #expect(c.imageWidth == 640 && c.imageHeight == 480)
        _ = try StereoCalibration.load(rosLeft: dir + "/cam-left.yaml", rosRight: dir + "/cam-right.yaml")
        let check = try ImageFile.read(dir + "/check.jpg", as: .gray8)
        #expect(check.width == 1280 && check.height == 480)
        // The written file rectifies the pair with cinegraph's rectifier: same corner, same row.
        let rectifier = try StereoRectifier(calibration: c, width: 640, height: 480)
        let finder = ChessboardFinder(board: try Chessboard(columns: 9, rows: 6, square: 25))
        let pair = rectifier.rectify(StereoFrame(left: try ImageFile.read(left[0], as: .gray8), right: try ImageFile.read(right[0], as: .gray8)))
        let l = try #require(try finder.corners(in: pair.left)), rr = try #require(try finder.corners(in: pair.right))
        let aligned = BoardViewPair(name: "", left: l, right: rr)
        let dy = zip(aligned.left, aligned.right).map { Double(abs($0.y - $1.y)) }.reduce(0, +) / Double(l.count)
        #expect(dy < 0.5, "rectified rows differ by \(dy) px on average")
    }

    @Test func sideBySidePicturesOfAKnownRig() throws {
        let dir = scratch("calibrate-sbs")
        let rig = SyntheticStereoRig.usbCamera()
        var files: [String] = []
        for (i, pose) in rig.poses(count: 12, seed: 21).enumerated() {
            let path = dir + "/sbs\(i).png"
            try ImageFile.write(rig.sideBySide(pose, seed: UInt64(i)), to: path)
            files.append(path)
        }
        let r = try cinegraph(["calibrate"] + files + ["--layout", "sbs", "--board", "9x6", "--square", "25", "-o", dir + "/rig.yml", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let c = try StereoCalibration.load(contentsOf: dir + "/rig.yml")
        #expect(abs(c.left.matrix[0] / rig.truth.left.matrix[0] - 1) < 0.005, "fx \(c.left.matrix[0])")
        #expect(abs(c.right.matrix[4] / rig.truth.right.matrix[4] - 1) < 0.005, "fy \(c.right.matrix[4])")
        #expect(abs(c.baseline / rig.truth.baseline - 1) < 0.01, "baseline \(c.baseline)")
        #expect(abs(c.left.matrix[2] - rig.truth.left.matrix[2]) < 2 && abs(c.left.matrix[5] - rig.truth.left.matrix[5]) < 2)
        #expect(r.stdout.contains("\"epipolarMean\""), "\(r.stdout)")
    }

    @Test func badInputIsRefusedWithTheReason() throws {
        let dir = scratch("calibrate-bad")
        let left = try opencvPhotos("left"), right = try opencvPhotos("right")
        func refused(_ args: [String], _ words: String) throws {
            let r = try cinegraph(["calibrate"] + args)
            #expect(r.status != 0)
            #expect(r.stderr.contains(words), "\(args.suffix(4)): \(r.stderr)")
            #expect(!r.stderr.contains("Fatal error"))
        }
        try refused(left + ["--right"] + right.dropLast() + ["--board", "9x6", "-o", dir + "/a.yml"], "13 left pictures but 12 right ones")
        try refused(left + ["--right"] + right + ["--board", "9by6", "-o", dir + "/a.yml"], "COLSxROWS")
        try refused(Array(left.prefix(3)) + ["--right"] + right.prefix(3) + ["--board", "8x5", "-o", dir + "/a.yml"], "found in none")
        try refused(Array(left.prefix(5)) + ["--right"] + right.prefix(5) + ["--board", "9x6", "-o", dir + "/a.yml"], "only 5 pairs")
        #expect(!FileManager.default.fileExists(atPath: dir + "/a.yml"))
        // A right picture of another size.
        let small = dir + "/small.png"
        try ImageFile.write(Image(width: 320, height: 240, format: .gray8), to: small)
        try refused(Array(left.prefix(4)) + ["--right"] + right.prefix(3) + [small, "--board", "9x6", "-o", dir + "/a.yml"], "small.png is 320x240")
        try refused([dir + "/missing.jpg", "--right", small, "--board", "9x6", "-o", dir + "/a.yml"], "missing.jpg")
    }

    @Test func liveCalibrationInTheBrowser() async throws {
        // A side-by-side camera showing a board held at 12 places in turn, each for 1.6 s (24
        // frames at 15 fps): the pictures of a known rig, played in real time.
        let dir = scratch("calibrate-live")
        let rig = SyntheticStereoRig.usbCamera()
        var frame = 0
        for (i, pose) in rig.poses(count: 12, seed: 31).enumerated() {
            let path = dir + "/pose\(i).png"
            try ImageFile.write(rig.sideBySide(pose, seed: UInt64(i)), to: path)
            for _ in 0..<24 {
                try FileManager.default.createSymbolicLink(atPath: dir + String(format: "/f%04d.png", frame), withDestinationPath: path)
                frame += 1
            }
        }
        let port = try WebDriver.freePort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: releaseBinary ?? binary)
        process.currentDirectoryURL = root
        process.arguments = [
            "calibrate", "--source", "multifilesrc location=\(dir)/f%04d.png caps=image/png,framerate=15/1 ! pngdec ! identity sync=true ! videoconvert",
            "--size", "2560x720", "--fps", "15", "--layout", "sbs", "--port", "\(port)", "--board", "9x6", "--square", "25",
            "--pairs", "10", "--keep", dir + "/kept", "-o", dir + "/live.yml",
        ]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let stderr = Task.detached { String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }

        // The page shows both views with the corners drawn, and says when a pair is kept.
        let browser = try await WebDriver(width: 1300, height: 560)
        defer { browser.quit() }
        try await eventually(20, "the calibration page") {
            (try? await browser.open(URL(string: "http://127.0.0.1:\(port)/")!)) != nil
        }
        try await eventually(20, "both views at half size in the page") {
            try await browser.execute("return document.getElementById('frame').naturalWidth") as? Int == 1280
        }
        try await eventually(40, "three kept pairs announced") {
            let toast = try await browser.execute("return document.getElementById('toast').textContent") as? String ?? ""
            let kept = try await browser.execute("return cg.events.filter((e) => e.name === 'calibration-pair').length") as? Int ?? 0
            return toast.contains("kept") && kept >= 3
        }
        try await browser.screenshot("calibrate-live")

        // When the board has been everywhere (or the camera's stream ends) the pair is calibrated.
        try await eventually(90, "the live calibration to finish") { !process.isRunning }
        let log = await stderr.value
        #expect(process.terminationStatus == 0, "\(log)")
        #expect(log.contains("calibration-pair"), "\(log)")
        let kept = try FileManager.default.contentsOfDirectory(atPath: dir + "/kept").filter { $0.hasPrefix("pair-") }
        #expect(kept.count >= 10 && kept.count <= 12, "\(kept)")
        let c = try StereoCalibration.load(contentsOf: dir + "/live.yml")
        #expect(abs(c.left.matrix[0] / rig.truth.left.matrix[0] - 1) < 0.005, "fx \(c.left.matrix[0])")
        #expect(abs(c.baseline / rig.truth.baseline - 1) < 0.01, "baseline \(c.baseline)")
    }
}
