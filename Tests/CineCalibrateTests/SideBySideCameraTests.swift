// SideBySideCameraTests: a side-by-side USB stereo camera as it comes — MJPEG, both views in one
// 2560×720 frame — through the camera node, rectified with a calibration cinegraph made.
import CineGStreamer
import CineGraph
import CineMedia
import CineNodes
import CineVision
import Foundation
import Testing

@testable import CineCalibrate

@Suite struct SideBySideCameraTests {
    @Test func mjpegSideBySideIsSplitAndRectified() throws {
        let rig = calibrated.rig
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sbs-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let pose = rig.poses(count: 1, seed: 123)[0]
        try ImageFile.write(rig.sideBySide(pose, seed: 5), to: dir + "/frame.jpg", jpegQuality: 90)
        try CalibrationFiles.openCVYAML(calibrated.report).write(toFile: dir + "/stereo.yml", atomically: true, encoding: .utf8)
        // The camera's stream: the JPEG again and again at 30 fps, parsed as a UVC camera's MJPEG.
        var h = try NodeHarness(CameraNode.self, parameters: [
            "source": "multifilesrc location=\(dir)/frame.jpg loop=true caps=image/jpeg,framerate=30/1 ! jpegparse",
            "format": "mjpeg", "size": "2560x720", "layout": "side-by-side", "calibration": dir + "/stereo.yml",
        ])
        try h.start()
        var stereo: [StereoFrame] = []
        while !h.hasEnded && stereo.count < 3 {
            if let s = try h.process()[\.$stereo] { stereo.append(s) }
        }
        try h.finish()
        #expect(stereo.count == 3)
        let frame = try #require(stereo.last)
        #expect(frame.left.width == 1280 && frame.left.height == 720 && frame.left.format == .i420)
        let finder = ChessboardFinder(board: rig.board)
        let l = try #require(try finder.corners(in: frame.left)), r = try #require(try finder.corners(in: frame.right))
        let pair = BoardViewPair(name: "", left: l, right: r)
        let dy = zip(pair.left, pair.right).map { Double(abs($0.y - $1.y)) }.reduce(0, +) / Double(l.count)
        #expect(dy <= 0.3, "rectified rows differ by \(dy) px on average")
        // Rectified from a distorted lens, the board's rows are straight: the corners of a row lie on a line.
        let row = Array(pair.left.prefix(rig.board.columns))
        let slope = (row.last!.y - row.first!.y) / (row.last!.x - row.first!.x)
        let bend = row.map { abs($0.y - (row.first!.y + slope * ($0.x - row.first!.x))) }.max()!
        #expect(bend < 0.5, "a rectified row of corners bends by \(bend) px")
    }
}
