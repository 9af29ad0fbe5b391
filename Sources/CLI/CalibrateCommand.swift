// `cinegraph calibrate`: a stereo camera's calibration from chessboard pictures — found, solved
// and judged with OpenCV's calib3d — written as OpenCV YAML the camera node reads (and
// optionally a ROS camera_info pair), with a rectified picture to check it by eye.
import ArgumentParser
import CineCalibrate
import CineGStreamer
import CineMedia
import CineNodes
import CineVision
import Foundation
import Synchronization

/// How the pictures hold the two views.
enum CalibrationLayout: String, ExpressibleByArgument, CaseIterable {
    /// LEFT files and --right files, one view each.
    case pairs
    /// Each file holds both views side by side (left half, right half).
    case sbs
    /// Each file holds both views, left on top.
    case tb
}

struct CalibrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibrate",
        abstract: "Calibrate a stereo camera from pictures of a chessboard.",
        discussion: """
            Finds the board's inner corners in every picture, calibrates each camera and then the pair \
            (OpenCV's calibrateCamera and stereoCalibrate), rectifies (stereoRectify), and prints the RMS \
            reprojection error, the focal lengths, the baseline and the rectified views' vertical error. A \
            result that should not be trusted is refused with the reason (fewer than 10 pairs, corners seen in \
            under half of the frame, RMS over 1 px) and nothing is written. The file is OpenCV FileStorage \
            YAML (K1 D1 K2 D2 R T R1 R2 P1 P2 Q, imageSize): give it to the camera node as `calibration:`. \
            Guide: docs/stereo-rig.md.
            """)

    @Argument(help: "Pictures from the left camera (with --layout sbs or tb: pictures holding both views).")
    var images: [String] = []
    @Option(parsing: .upToNextOption, help: "Pictures from the right camera, in the same order as the left ones.")
    var right: [String] = []
    @Option(help: "How the pictures hold the views: pairs (left and --right files), sbs (side by side), tb (top-bottom).")
    var layout: CalibrationLayout = .pairs
    @Option(help: "The board's inner corners, COLSxROWS (a board of 10×7 squares is 9x6).") var board: String
    @Option(help: "The side of one square, in any unit (mm, say); the baseline comes out in that unit.")
    var square: Double = 1
    @Option(name: .shortAndLong, help: "Where to write the calibration (OpenCV YAML).") var output: String
    @Option(help: "Also write ROS camera_info files PREFIX-left.yaml and PREFIX-right.yaml.") var ros: String?
    @Option(help: "Write the first pair rectified side by side, with level lines to check rows by eye (.jpg/.png).")
    var rectified: String?
    @Flag(help: "Print the result as JSON instead of text.") var json = false
    @OptionGroup(title: "Live, from a camera") var live: LiveCalibrationOptions

    func run() throws {
        let chessboard: Chessboard
        do { chessboard = try Chessboard(parsing: board, square: square) } catch { throw ValidationError(error.message) }
        if live.isLive {
            guard images.isEmpty else { throw ValidationError("give pictures, or --device to calibrate live; not both") }
            let folder = try live.capture(board: chessboard, layout: layout)
            return try calibrate(chessboard, files: try live.keptPairs(in: folder), layout: .sbs)
        }
        try calibrate(chessboard, files: try pairFiles(), layout: layout)
    }

    func calibrate(_ chessboard: Chessboard, files: [[String]], layout: CalibrationLayout) throws {
        let finder = ChessboardFinder(board: chessboard)
        // Each pair is decoded and searched on its own core.
        let results = Mutex<[Result<FoundPair, any Error>?]>(Array(repeating: nil, count: files.count))
        DispatchQueue.concurrentPerform(iterations: files.count) { i in
            let r = Result { try find(files[i], finder, layout) }
            results.withLock { $0[i] = r }
        }
        let found = try results.withLock { $0 }.map { try $0!.get() }
        guard !found.isEmpty else { throw ToolError("no pictures to calibrate from") }
        let size = (found[0].width, found[0].height)
        for f in found where (f.width, f.height) != size {
            throw ToolError("\(f.name) is \(f.width)x\(f.height) but \(found[0].name) is \(size.0)x\(size.1); every view must be the same size")
        }
        let missed = found.filter { $0.pair == nil }
        let pairs = found.compactMap(\.pair)
        if pairs.isEmpty {
            throw ToolError(
                "the \(chessboard) board was found in none of the \(found.count) pairs; --board counts the inner corners "
                    + "(a board of 10×7 squares is 9x6), and the whole board must be in both views")
        }
        if !missed.isEmpty && !json {
            printError("calibrate: the board was not found in both views of \(missed.count) pair(s), left out: " + missed.map(\.name).joined(separator: ", "))
        }
        let report: StereoCalibrationReport
        do {
            report = try StereoCalibrator(board: chessboard, width: size.0, height: size.1).calibrate(pairs)
        } catch { throw ToolError(error.message) }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(CalibrationJSON(report, missed: missed.map(\.name))), as: UTF8.self))
        } else {
            print(report.summary)
            print("worst pairs      " + report.worstPairs(3).map { "\($0.name) \(String(format: "%.3f", $0.error)) px" }.joined(separator: ", "))
        }
        let problems = report.problems
        guard problems.isEmpty else {
            throw ToolError("refused, nothing written:\n  " + problems.joined(separator: "\n  "))
        }
        try write(CalibrationFiles.openCVYAML(report), to: output)
        if let ros {
            let info = CalibrationFiles.rosCameraInfo(report)
            try write(info.left, to: ros + "-left.yaml")
            try write(info.right, to: ros + "-right.yaml")
        }
        if let rectified { try writeRectified(files[0], report.calibration, layout, to: rectified) }
        if !json { print("wrote            \(([output] + (ros.map { [$0 + "-left.yaml", $0 + "-right.yaml"] } ?? []) + (rectified.map { [$0] } ?? [])).joined(separator: ", "))") }
    }

    /// The files of each pair: (left, right) paths, or one path holding both.
    private func pairFiles() throws -> [[String]] {
        if layout != .pairs {
            guard right.isEmpty else { throw ValidationError("--right is for --layout pairs; with \(layout.rawValue) each picture holds both views") }
            guard !images.isEmpty else { throw ValidationError("give the pictures") }
            return images.map { [$0] }
        }
        guard !right.isEmpty else {
            throw ValidationError("give the right camera's pictures with --right (or --layout sbs for side-by-side pictures)")
        }
        guard images.count == right.count else {
            throw ValidationError("\(images.count) left pictures but \(right.count) right ones; give one right picture for each left one, in the same order")
        }
        return zip(images, right).map { [$0, $1] }
    }

    /// One pair's views, searched.
    struct FoundPair {
        var name: String
        var width: Int
        var height: Int
        var pair: BoardViewPair?
    }

    private func find(_ paths: [String], _ finder: ChessboardFinder, _ layout: CalibrationLayout) throws -> FoundPair {
        let views = try self.views(paths, layout)
        let name = paths.map { ($0 as NSString).lastPathComponent }.joined(separator: " + ")
        if (views.left.width, views.left.height) != (views.right.width, views.right.height) {
            throw ToolError("\(paths.last!) is \(views.right.width)x\(views.right.height) but \(paths[0]) is \(views.left.width)x\(views.left.height); every view must be the same size")
        }
        do {
            guard let l = try finder.corners(in: views.left), let r = try finder.corners(in: views.right) else {
                return FoundPair(name: name, width: views.left.width, height: views.left.height)
            }
            return FoundPair(name: name, width: views.left.width, height: views.left.height, pair: BoardViewPair(name: name, left: l, right: r))
        } catch { throw ToolError("\(name): \(error.message)") }
    }

    private func views(_ paths: [String], _ layout: CalibrationLayout) throws -> (left: Image, right: Image) {
        if paths.count == 2 { return (try ImageFile.read(paths[0], as: .gray8), try ImageFile.read(paths[1], as: .gray8)) }
        let whole = try ImageFile.read(paths[0], as: .gray8)
        let views = (layout == .tb ? StereoLayout.topBottom : .sideBySide).split(whole)
        return (views.left, views.right!)
    }

    private func write(_ text: String, to path: String) throws {
        do { try text.write(toFile: path, atomically: true, encoding: .utf8) } catch {
            throw ToolError("\(path): cannot be written (\(error.localizedDescription))")
        }
    }

    /// The first pair through cinegraph's own rectifier, side by side, a green line every 40 rows.
    private func writeRectified(_ paths: [String], _ calibration: StereoCalibration, _ layout: CalibrationLayout, to path: String) throws {
        let v = try views(paths, layout)
        let rectifier = try StereoRectifier(calibration: calibration, width: v.left.width, height: v.left.height)
        let r = rectifier.rectify(StereoFrame(left: v.left, right: v.right))
        let w = v.left.width, h = v.left.height
        let out = Image(width: 2 * w, height: h, format: .rgba8)
        let dst = out.plane(0)
        for (i, view) in [r.left, r.right].enumerated() {
            let src = view.plane(0)
            for y in 0..<h {
                let s = src.row(y, as: UInt8.self), d = dst.row(y, as: UInt32.self) + i * w
                let line = y % 40 == 20
                for x in 0..<w {
                    let g = UInt32(s[x])
                    d[x] = line ? 0xFF00_D000 | (g >> 2) : 0xFF00_0000 | g << 16 | g << 8 | g
                }
            }
        }
        try ImageFile.write(out, to: path)
    }
}

/// `cinegraph calibrate --json`.
struct CalibrationJSON: Encodable {
    struct CameraJSON: Encodable {
        var fx, fy, cx, cy: Double
        var distortion: [Double]
    }
    var pairsUsed: Int, pairsLeftOut: [String]
    var rms, rmsLeft, rmsRight: Double
    var left, right: CameraJSON
    var baseline: Double, translation: [Double], rectifiedFocalLength: Double
    var epipolarMean, epipolarMax, coverage: Double
    var problems: [String]

    init(_ r: StereoCalibrationReport, missed: [String]) {
        func camera(_ c: StereoCalibration.Camera) -> CameraJSON {
            CameraJSON(fx: c.matrix[0], fy: c.matrix[4], cx: c.matrix[2], cy: c.matrix[5], distortion: c.distortion)
        }
        let c = r.calibration
        pairsUsed = r.pairs.count
        pairsLeftOut = missed
        (rms, rmsLeft, rmsRight) = (r.rms.stereo, r.rms.left, r.rms.right)
        (left, right) = (camera(c.left), camera(c.right))
        baseline = c.baseline
        translation = c.translation ?? []
        rectifiedFocalLength = c.focalLength
        (epipolarMean, epipolarMax) = (r.epipolar.mean, r.epipolar.max)
        coverage = r.coverage
        problems = r.problems
    }
}
