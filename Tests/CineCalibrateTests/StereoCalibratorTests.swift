// StereoCalibratorTests: cinegraph's calibration judged against a simulated rig whose every
// number is known, and the files it writes read back by cinegraph and by OpenCV.
import CineMedia
import CineVision
import Foundation
import Synchronization
import Testing

@testable import CineCalibrate

/// One calibration of the simulated USB camera, shared by the tests that judge it.
let calibrated: (rig: SyntheticStereoRig, pairs: [BoardViewPair], report: StereoCalibrationReport, cornerError: Double) = {
    let rig = SyntheticStereoRig.usbCamera()
    let finder = ChessboardFinder(board: rig.board)
    let poses = rig.poses(count: 14, seed: 7)
    // Each pair rendered and searched on its own core.
    let found = Mutex<[Int: (BoardViewPair, [Double])]>([:])
    DispatchQueue.concurrentPerform(iterations: poses.count) { i in
        let pose = poses[i]
        let l = try! finder.corners(in: rig.render(pose, view: 0, seed: UInt64(2 * i)))!
        let r = try! finder.corners(in: rig.render(pose, view: 1, seed: UInt64(2 * i + 1)))!
        let pair = BoardViewPair(name: "pair \(i + 1)", left: l, right: r)
        // The detector may number the corners from either end of the board.
        let truthLeft = rig.corners(pose, view: 0), truthRight = rig.corners(pose, view: 1)
        let d = pair.left[0] - truthLeft[0]
        let ordered = (d * d).sum() > 1 ? pair.left.reversed() + pair.right.reversed() : pair.left + pair.right
        let errors = zip(ordered, truthLeft + truthRight).map { Double((($0 - $1) * ($0 - $1)).sum()).squareRoot() }
        found.withLock { $0[i] = (pair, errors) }
    }
    let results = found.withLock { $0 }.sorted { $0.key < $1.key }.map(\.value)
    let pairs = results.map(\.0), errors = results.flatMap(\.1)
    let report = try! StereoCalibrator(board: rig.board, width: 1280, height: 720).calibrate(pairs)
    return (rig, pairs, report, errors.reduce(0, +) / Double(errors.count))
}()

@Suite struct StereoCalibratorTests {
    @Test func cornersAreFoundWhereTheyAre() {
        // The detector's corners against the rig's true ones, over every view.
        #expect(calibrated.cornerError < 0.15, "mean corner error \(calibrated.cornerError) px")
    }

    @Test func calibrationMatchesTheTruth() {
        let (rig, _, report, _) = calibrated
        let c = report.calibration, t = rig.truth
        for (found, truth) in [(c.left, t.left), (c.right, t.right)] {
            for i in [0, 4] {
                #expect(abs(found.matrix[i] / truth.matrix[i] - 1) < 0.005, "focal \(found.matrix[i]) vs \(truth.matrix[i])")
            }
            for i in [2, 5] {
                #expect(abs(found.matrix[i] - truth.matrix[i]) < 2, "principal point \(found.matrix[i]) vs \(truth.matrix[i])")
            }
        }
        #expect(abs(c.baseline / t.baseline - 1) < 0.01, "baseline \(c.baseline) vs \(t.baseline)")
        #expect(report.epipolar.mean <= 0.3, "rectified vertical error \(report.epipolar.mean) px")
        #expect(report.rms.stereo < 0.3)
        #expect(report.problems.isEmpty, "\(report.problems)")
    }

    @Test func rectifiedViewsShareTheirRows() throws {
        // The written file, read back by cinegraph, rectifies the rig's pictures with cinegraph's own
        // rectifier: the same corner lands on the same row in both views.
        let (rig, _, report, _) = calibrated
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("calib-\(UUID()).yml").path
        try CalibrationFiles.openCVYAML(report).write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let loaded = try StereoCalibration.load(contentsOf: path)
        let rectifier = try StereoRectifier(calibration: loaded, width: 1280, height: 720)
        let finder = ChessboardFinder(board: rig.board)
        var dy: [Double] = []
        for (i, pose) in rig.poses(count: 3, seed: 99).enumerated() {
            let pair = StereoFrame(left: rig.render(pose, view: 0, seed: UInt64(100 + i)), right: rig.render(pose, view: 1, seed: UInt64(200 + i)))
            let rectified = rectifier.rectify(pair)
            let l = try #require(try finder.corners(in: rectified.left)), r = try #require(try finder.corners(in: rectified.right))
            let p = BoardViewPair(name: "", left: l, right: r)
            dy += zip(p.left, p.right).map { Double(abs($0.y - $1.y)) }
            // Disparity is positive everywhere: the left view sees the board further right.
            #expect(zip(p.left, p.right).allSatisfy { $0.x > $1.x })
        }
        let mean = dy.reduce(0, +) / Double(dy.count)
        #expect(mean <= 0.3, "vertical error after cinegraph's rectification \(mean) px")
    }

    @Test func filesRoundTrip() throws {
        let report = calibrated.report
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("calib-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try CalibrationFiles.openCVYAML(report).write(toFile: dir + "/stereo.yml", atomically: true, encoding: .utf8)
        let ros = CalibrationFiles.rosCameraInfo(report)
        try ros.left.write(toFile: dir + "/left.yaml", atomically: true, encoding: .utf8)
        try ros.right.write(toFile: dir + "/right.yaml", atomically: true, encoding: .utf8)
        let yaml = try StereoCalibration.load(contentsOf: dir + "/stereo.yml")
        let fromROS = try StereoCalibration.load(rosLeft: dir + "/left.yaml", rosRight: dir + "/right.yaml")
        #expect(yaml == report.calibration)
        #expect(fromROS.left == report.calibration.left && fromROS.right == report.calibration.right)
        #expect(abs(fromROS.baseline - report.calibration.baseline) < 1e-9)
        // OpenCV's own FileStorage reads the same file.
        let k1 = try OpenCVFileStorage.read(dir + "/stereo.yml", key: "K1")
        let t = try OpenCVFileStorage.read(dir + "/stereo.yml", key: "T")
        #expect(k1 == report.calibration.left.matrix)
        #expect(t == report.calibration.translation)
    }

    @Test func tooFewPairsAreRefusedWithTheReason() throws {
        let rig = calibrated.rig
        let pairs = Array(calibrated.pairs.prefix(5))
        let report = try StereoCalibrator(board: rig.board, width: 1280, height: 720).calibrate(pairs)
        #expect(report.problems.contains { $0.contains("only 5 pairs") })
        #expect(throws: CalibrateError.self) {
            try StereoCalibrator(board: rig.board, width: 1280, height: 720).calibrate(Array(pairs.prefix(2)))
        }
    }

    @Test func aWrongBoardIsNotFound() throws {
        let rig = calibrated.rig
        let pose = rig.poses(count: 1, seed: 5)[0]
        let picture = rig.render(pose, view: 0, seed: 1)
        #expect(try ChessboardFinder(board: Chessboard(columns: 8, rows: 5, square: 1)).corners(in: picture) == nil)
        #expect(try ChessboardFinder(board: rig.board).corners(in: picture) != nil)
        #expect(throws: CalibrateError.self) { try Chessboard(parsing: "9by6", square: 1) }
        #expect(throws: CalibrateError.self) { try Chessboard(parsing: "7x7", square: 1) }
    }

    @Test func coverageCountsTheFrame() {
        var c = BoardCoverage(width: 800, height: 600)
        #expect(c.gain([SIMD2(10, 10), SIMD2(20, 20), SIMD2(790, 590)]) == 2)
        c.add([SIMD2(10, 10)])
        #expect(c.gain([SIMD2(20, 20)]) == 0)
        #expect(c.fraction == 1.0 / 48)
        #expect(calibrated.report.coverage >= StereoCalibrationReport.minimumCoverage)
    }
}
