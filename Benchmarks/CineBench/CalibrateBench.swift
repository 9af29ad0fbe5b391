// CalibrateBench: `cinegraph calibrate` against the truth of a simulated rig and beside OpenCV's
// own stereoCalibrate in Python (the same images), and a side-by-side USB camera's MJPEG through
// the camera node (decode + rectify) beside gst-launch-1.0 decoding the same stream.
import CineCalibrate
import CineGStreamer
import CineGraph
import CineMedia
import CineNodes
import CineVision
import Foundation

func runCalibrateBench() throws {
    print("\ncalibration — a simulated rig's known numbers, OpenCV's stereo photos, and side-by-side MJPEG")
    let dir = NSTemporaryDirectory() + "cinebench-calibrate-\(getpid())"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let cinegraph = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("cinegraph").path
    let python = try benchPython()
    let peer = "Benchmarks/peers/calib_peer.py"

    // The simulated USB camera, three seeds of 20 side-by-side pictures (a calibration session); cinegraph and OpenCV's
    // Python recipe on the same files, both judged against the truth.
    let rig = SyntheticStereoRig.usbCamera()
    let t = rig.truth
    for seed: UInt64 in [1, 2, 3] {
        let folder = "\(dir)/rig\(seed)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var lefts: [String] = [], rights: [String] = [], sbs: [String] = []
        for (i, pose) in rig.poses(count: 20, seed: seed).enumerated() {
            let l = "\(folder)/l\(i).png", r = "\(folder)/r\(i).png", s = "\(folder)/s\(i).png"
            try ImageFile.write(rig.render(pose, view: 0, seed: seed &* 100 &+ UInt64(2 * i)), to: l)
            try ImageFile.write(rig.render(pose, view: 1, seed: seed &* 100 &+ UInt64(2 * i + 1)), to: r)
            try ImageFile.write(rig.sideBySide(pose, seed: seed &* 100 &+ UInt64(2 * i)), to: s)
            (lefts, rights, sbs) = (lefts + [l], rights + [r], sbs + [s])
        }
        let ours = try decode(OurCalibration.self, capture(([cinegraph, "calibrate"] + sbs + ["--layout", "sbs", "--board", "9x6", "--square", "25", "-o", "\(folder)/c.yml", "--json"]).map(quoted).joined(separator: " ")))
        let theirs = try decode(PeerCalibration.self, capture(([python, peer, "--board", "9x6", "--square", "25", "--sb"] + lefts + ["--right"] + rights).map(quoted).joined(separator: " ")))
        let c = try StereoCalibration.load(contentsOf: "\(folder)/c.yml")
        func pct(_ a: Double, _ b: Double) -> String { String(format: "%.3f %%", abs(a / b - 1) * 100) }
        let focal = [abs(c.left.matrix[0] / t.left.matrix[0] - 1), abs(c.left.matrix[4] / t.left.matrix[4] - 1),
                     abs(c.right.matrix[0] / t.right.matrix[0] - 1), abs(c.right.matrix[4] / t.right.matrix[4] - 1)].max()!
        let principal = [abs(c.left.matrix[2] - t.left.matrix[2]), abs(c.left.matrix[5] - t.left.matrix[5]),
                         abs(c.right.matrix[2] - t.right.matrix[2]), abs(c.right.matrix[5] - t.right.matrix[5])].max()!
        let peerFocal = [abs(theirs.fx_left / t.left.matrix[0] - 1), abs(theirs.fy_left / t.left.matrix[4] - 1),
                         abs(theirs.fx_right / t.right.matrix[0] - 1)].max()!
        report("rig seed \(seed): focal length error, worst of 4 (target ≤ 0.5 %)",
               String(format: "%.3f %% (OpenCV Python %.3f %%)", focal * 100, peerFocal * 100))
        report("rig seed \(seed): baseline error (target ≤ 1 %)",
               "\(pct(c.baseline, t.baseline)) (OpenCV Python \(pct(theirs.baseline, t.baseline)))")
        report("rig seed \(seed): principal point error, worst (target ≤ 2 px)",
               String(format: "%.2f px (OpenCV Python left %.2f px)", principal,
                      max(abs(theirs.cx_left - t.left.matrix[2]), abs(theirs.cy_left - t.left.matrix[5]))))
        report("rig seed \(seed): rectified vertical error, mean (target ≤ 0.3 px)",
               String(format: "%.3f px (OpenCV Python %.3f px)", ours.epipolarMean, theirs.epipolar_mean))
    }

    // OpenCV's real stereo photos (13 pairs of a 9×6 board, 640×480): RMS and the whole process.
    let photos = ".testdata/opencv-stereo"
    let names = try FileManager.default.contentsOfDirectory(atPath: photos).sorted()
    let lefts = names.filter { $0.hasPrefix("left") }.map { "\(photos)/\($0)" }
    let rights = names.filter { $0.hasPrefix("right") }.map { "\(photos)/\($0)" }
    let ourCommand = [cinegraph, "calibrate"] + lefts + ["--right"] + rights + ["--board", "9x6", "-o", "\(dir)/real.yml", "--json"]
    let ours = try decode(OurCalibration.self, capture(ourCommand.map(quoted).joined(separator: " ")))
    var runs: [(String, PeerCalibration, [String])] = []
    for flag in ["", "--sb"] {
        let command = [python, peer, "--board", "9x6"] + (flag.isEmpty ? [] : [flag]) + lefts + ["--right"] + rights
        runs.append((flag.isEmpty ? "classic corners + cornerSubPix" : "findChessboardCornersSB", try decode(PeerCalibration.self, capture(command.map(quoted).joined(separator: " "))), command))
    }
    for (name, theirs, _) in runs {
        report("real photos: RMS, cinegraph / OpenCV Python (\(name))",
               String(format: "%.3f / %.3f px = %.2f (%d / %d pairs)", ours.rms, theirs.rms, ours.rms / theirs.rms,
                      ours.pairsUsed, theirs.pairs_used))
    }
    let ourWall = median(try (0..<3).map { _ in try spawnWall(ourCommand, output: "/dev/null") })
    for (name, _, command) in runs {
        let theirWall = median(try (0..<3).map { _ in try spawnWall(command, output: "/dev/null") })
        report("real photos: whole process, cinegraph / OpenCV Python (\(name))",
               String(format: "%.2f / %.2f s = %.2f×", ourWall, theirWall, ourWall / theirWall))
    }

    try runMJPEGMeasure(calibration: "\(dir)/rig1/c.yml", dir: dir)
}

/// The side-by-side MJPEG measure alone (`CineBench mjpeg`): the simulated rig's first session
/// calibrated, then its stream through the camera node.
func runMJPEGBench() throws {
    print("\nside-by-side MJPEG through the camera node")
    let dir = NSTemporaryDirectory() + "cinebench-mjpeg-\(getpid())"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let cinegraph = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("cinegraph").path
    let rig = SyntheticStereoRig.usbCamera()
    var sbs: [String] = []
    for (i, pose) in rig.poses(count: 20, seed: 1).enumerated() {
        let s = "\(dir)/s\(i).png"
        try ImageFile.write(rig.sideBySide(pose, seed: 100 &+ UInt64(2 * i)), to: s)
        sbs.append(s)
    }
    _ = try capture(([cinegraph, "calibrate"] + sbs + ["--layout", "sbs", "--board", "9x6", "--square", "25", "-o", "\(dir)/c.yml", "--json"]).map(quoted).joined(separator: " "))
    try runMJPEGMeasure(calibration: "\(dir)/c.yml", dir: dir)
}

/// A side-by-side USB stereo camera's MJPEG at 2560×720 through the camera node with `calibration`.
private func runMJPEGMeasure(calibration: String, dir: String) throws {
    // A side-by-side USB stereo camera's MJPEG at 2560×720, 30 fps, through the camera node
    // (jpegdec, split, rectification with the written calibration), CPU per frame; the peer is
    // gst-launch-1.0 decoding the same stream to I420.
    let scene = SyntheticScene(SyntheticScene.Configuration(width: 1280, height: 720, fps: 30, seed: 1))
    let left = Image(width: 1280, height: 720, format: .i420), right = Image(width: 1280, height: 720, format: .i420)
    scene.render(frame: 60, left: left, right: right, groundTruth: nil)
    let joined = Image(width: 2560, height: 720, format: .i420)
    for p in 0..<3 {
        let d = joined.plane(p), a = left.plane(p), b = right.plane(p)
        for y in 0..<d.height {
            d.row(y).copyMemory(from: a.row(y), byteCount: a.width)
            (d.row(y) + a.width).copyMemory(from: b.row(y), byteCount: b.width)
        }
    }
    // Rectification alone, both views in colour, on the joined frame's halves.
    let rectifier = try StereoRectifier(calibration: StereoCalibration.load(contentsOf: calibration), width: 1280, height: 720)
    let halves = StereoLayout.sideBySide.split(joined)
    let pool = ImagePool()
    let rectifyCPU0 = processCPUSeconds(), rectifyWall0 = now()
    for _ in 0..<100 { _ = rectifier.rectifyColor(StereoFrame(left: halves.left, right: halves.right!), pool: pool) }
    report("rectify 2 × 1280x720 I420, CPU per frame",
           String(format: "%.2f ms (%.2f ms wall)", (processCPUSeconds() - rectifyCPU0) * 10, (now() - rectifyWall0) * 10))
    let jpeg = "\(dir)/sbs.jpg"
    try ImageFile.write(joined, to: jpeg, jpegQuality: 85)
    let frames = Int(ProcessInfo.processInfo.environment["BENCH_MJPEG_FRAMES"] ?? "") ?? 300
    var h = try NodeHarness(CameraNode.self, parameters: [
        "source": "multifilesrc location=\(jpeg) loop=true caps=image/jpeg,framerate=30/1 ! jpegparse ! identity sync=true",
        "format": "mjpeg", "size": "2560x720", "layout": "side-by-side", "calibration": calibration,
    ])
    try h.start()
    let cpu0 = processCPUSeconds(), wall0 = now()
    var got = 0
    while !h.hasEnded && got < frames {
        if try h.process()[\.$stereo] != nil { got += 1 }
    }
    let cpu = processCPUSeconds() - cpu0, wall = now() - wall0
    try h.finish()
    let c0 = childrenCPUSeconds()
    _ = try capture("gst-launch-1.0 -q multifilesrc location=\(jpeg) loop=true num-buffers=\(frames) caps=image/jpeg,framerate=30/1 ! jpegparse ! jpegdec ! videoconvert ! video/x-raw,format=I420 ! fakesink")
    let peerCPU = childrenCPUSeconds() - c0
    report("MJPEG 2560x720 → split → rectified, CPU per frame (target ≤ 8 ms)",
           String(format: "%.2f ms (%d frames in %.1f s: %.2f ms a frame on both cores; gst-launch decode alone %.2f ms = %.2f×)",
                  cpu / Double(got) * 1000, got, wall, wall / Double(got) * 1000, peerCPU / Double(frames) * 1000, cpu / peerCPU * Double(frames) / Double(got)))
}

/// What `cinegraph calibrate --json` says, the part the bench reads.
private struct OurCalibration: Decodable {
    var rms: Double
    var pairsUsed: Int
    var epipolarMean: Double
}

/// What Benchmarks/peers/calib_peer.py prints.
private struct PeerCalibration: Decodable {
    var rms: Double
    var pairs_used: Int
    var fx_left, fy_left, cx_left, cy_left, fx_right, baseline, epipolar_mean: Double
}

/// The last line of `text` that is a JSON object, decoded.
private func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
    let line = text.split(separator: "\n").last { $0.hasPrefix("{") } ?? ""
    return try JSONDecoder().decode(T.self, from: Data(line.utf8))
}

private func quoted(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }
