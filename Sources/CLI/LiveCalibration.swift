// LiveCalibration: `cinegraph calibrate --device`: the camera, the chessboard node and the
// viewfinder run as one graph; the page shows the corners and the frame's coverage, pairs are
// kept by themselves, and the run ends when there are enough (or on Ctrl-C).
import ArgumentParser
import CineCalibrate
import CineGraph
import Foundation
import Logging

struct LiveCalibrationOptions: ParsableArguments {
    @Option(help: "Calibrate live from this camera (/dev/videoN, or auto); the page is at http://127.0.0.1:PORT/.")
    var device: String?
    @Option(help: "A second camera for the right view (two-camera rigs; with --layout pairs).") var rightDevice: String?
    @Option(help: "The frame size the device delivers (both views for side-by-side).") var size = "2560x720"
    @Option(help: "Pixel format to ask the camera for: auto, mjpeg, yuy2, nv12, i420.") var format = "auto"
    @Option(help: "Frames per second.") var fps = 30.0
    @Option(help: "A GStreamer source description instead of the device (tests, other capture APIs).") var source: String?
    @Option(help: "The viewfinder's port (0: any free one).") var port = 8080
    @Option(help: "Pairs that are enough (the run ends when they cover 70 % of the frame).") var pairs = 15
    @Option(help: "Where kept pairs are written (default out/calibration-TIME).") var keep: String?

    var isLive: Bool { device != nil || source != nil }

    /// Runs the live graph until enough pairs are kept (or Ctrl-C); the folder holding them.
    func capture(board: Chessboard, layout: CalibrationLayout) throws -> String {
        let folder = keep ?? "out/calibration-\(Self.stamp())"
        var camera: [String] = ["kind: camera", "size: \(size)", "fps: \(fps)", "format: \(format)"]
        switch layout {
        case .sbs: camera.append("layout: side-by-side")
        case .tb: camera.append("layout: top-bottom")
        case .pairs:
            guard let rightDevice else {
                throw ValidationError("live, --layout pairs needs --right-device (or use --layout sbs for a side-by-side camera)")
            }
            camera += ["layout: mono", "right-device: \(Self.quoted(rightDevice))"]
        }
        camera.append("device: \(Self.quoted(device ?? "auto"))")
        if let source { camera.append("source: \(Self.quoted(source))") }
        let text = """
            graph: calibrate
            nodes:
              camera: { \(camera.joined(separator: ", ")) }
              board: { kind: chessboard, stereo: camera.stereo, board: "\(board)", folder: \(Self.quoted(folder)), pairs: \(pairs) }
              viewfinder: { kind: viewfinder, video: board.overlay, port: \(port), width: 1280 }
            """
        let spec: GraphSpec
        do { spec = try GraphSpec.parse(text, file: "<calibrate>") } catch { throw ToolError("\(error)") }
        printError("calibrate: hold the \(board) board still in view of both cameras, then move it — near the edges and corners, nearer and farther, tilted; pairs are kept by themselves (\(folder))")
        var logger = Logger(label: "cinegraph")
        logger.logLevel = .notice
        let run = try ToolGraph.run(spec, logger: logger, quiet: true, progress: nil) { event, runner in
            if event.name == "calibration-enough" { runner.drain() }
        }
        if run.aborted { throw ExitCode(130) }
        return folder
    }

    /// The kept pairs of a live run, in order.
    func keptPairs(in folder: String) throws -> [[String]] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { $0.hasPrefix("pair-") && $0.hasSuffix(".png") }.sorted()
        guard !names.isEmpty else {
            throw ToolError("no pair was kept in \(folder): the whole board was never held still in both views")
        }
        return names.map { [folder + "/" + $0] }
    }

    static func quoted(_ s: String) -> String {
        String(decoding: (try? JSONEncoder().encode(s)) ?? Data("\"\"".utf8), as: UTF8.self)
    }

    static func stamp() -> String {
        let f = DateFormatter()
        f.dateFormat = "yyyyMMdd-HHmmss"
        return f.string(from: Date())
    }
}
