// `cinegraph demo`: the first thing a newcomer runs — a synthetic take recorded as a cinematic
// asset with automatic focus, rendered with bokeh and rack focus, its focus story plotted and a
// contact sheet drawn; then the next three things to try.
import ArgumentParser
import CineCalibrate
import CineGStreamer
import CineGraph
import CineMedia
import CineNodes
import CineViewfinder
import CineVision
import Foundation

struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "The cinematic demo: record a synthetic take with automatic focus, render it with bokeh, plot it.",
        discussion: """
            Needs no camera. Four steps: (1) records the built-in demo graph (graphs/demo.conf: a \
            synthetic stereo camera with people who enter, turn away and come back → disparity → \
            face detection and tracking → the focus director → the cinematic asset); (2) renders \
            the asset with the depth of field and rack focus burned in (`cinegraph render`); \
            (3) writes the focus story as an SVG chart (`cinegraph inspect --plot`); (4) draws a \
            contact sheet: frames across the take with the focus target in yellow. `cinegraph run` \
            with no graph runs this too.
            """)

    @Option(help: "Length of the take, e.g. 10s.") var duration: String = "10s"
    @Option(help: "Size of the camera's views, e.g. 1280x720.") var size: String = "1280x720"
    @Option(help: "Folder for what the demo makes.") var out: String = "out"
    @Option(help: "Simulated aperture of the render (f-number, 1.4 … 16).") var aperture: Double = 2.0
    @Option(name: .customLong("set"), help: "Override in the demo graph: node.key=value (repeatable).")
    var overrides: [String] = []
    @Flag(help: "No progress bars.") var quiet = false
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        if !CinematicScript.fNumberRange.contains(aperture) {
            let r = CinematicScript.fNumberRange
            throw ValidationError("--aperture \(aperture) is outside \(r.lowerBound)...\(r.upperBound)")
        }
    }

    func run() throws {
        let logger = try logging.bootstrap()
        let started = Date()
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        let base = (out as NSString).appendingPathComponent("demo-" + formatter.string(from: Date()))
        let asset = base + ".cine.mkv", movie = base + ".mp4", plot = base + ".focus.svg", sheet = base + ".sheet.png"

        // 1. The take.
        step(1, "recording the take: synthetic stereo camera → disparity → faces → focus director → asset")
        // The user's overrides may change anything but where the take goes.
        let settings = ["camera.duration=\(duration)", "camera.size=\(size)"] + overrides + ["asset.path=\(asset)"]
        let expected = try? expectedFrames(settings)
        let take = try ToolGraph.run(try GraphSpec.parse(DefaultGraphs.demo, file: "<built-in demo>"), overrides: settings, logger: logger,
                                     quiet: quiet, progress: expected.map { (node: "asset", total: $0) })
        if take.aborted { throw ExitCode(130) }
        let captured = take.frames(of: "camera"), recorded = take.frames(of: "asset")
        let (header, records): (AssetHeader, [AssetFrameRecord])
        do {
            (header, records) = try AssetTrackReader.readMetadata(path: asset)
        } catch {
            throw ToolError("\(asset): the take could not be read back: \(error)")
        }
        guard let first = records.first else { throw ToolError("\(asset): the take holds no frame") }

        // 2. The render.
        step(2, String(format: "rendering it with the bokeh and rack focus burned in, f/%g", aperture))
        let render = try RenderCommand.render(asset: asset, header: header, first: first, to: movie, aperture: aperture,
                                              changes: nil, focusDisparity: nil, quality: .standard,
                                              preset: "veryfast", logger: logger, quiet: quiet)
        if render.aborted { throw ExitCode(130) }

        // 3 and 4. The pictures.
        step(3, "plotting the focus story and drawing the contact sheet")
        try FocusPlot.write(asset: asset, changes: nil, to: plot)
        let picture = try ContactSheet().make(movie: movie, records: records)
        try ImageFile.write(picture, to: sheet)

        let subjects = Set(records.flatMap { $0.detections.map(\.id) }).count
        let racks = Self.racks(in: records)
        let seconds = Date().timeIntervalSince(started)
        print("""

            cinegraph demo: a \(String(format: "%.0f", Double(records.count) / header.fps)) s take in \
            \(String(format: "%.0f", seconds)) s — \(recorded) of \(captured) camera frames recorded, \
            \(subjects) subject IDs, \(racks) rack focus\(racks == 1 ? "" : "es")
              \(asset)    the take: original video, disparity, detections, focus (cinegraph inspect)
              \(movie)          rendered: depth of field and focus pulls burned in, f/\(String(format: "%g", aperture))
              \(plot)    the focus story: who was in focus when
              \(sheet)    contact sheet: frames across the take, the focus target in yellow

            Next:
              cinegraph run \(GraphFiles.hint("viewfinder"))                 the live viewfinder: http://127.0.0.1:8080/, tap to focus
              cinegraph script \(asset) list    every subject and decision; then `add --time 4 --id N --strong`
              cinegraph render \(asset) -o \(base)-f8.mp4 --aperture 8    render again, deeper focus
            """)
    }

    /// The frames the camera will deliver with `settings`, for the progress bar.
    private func expectedFrames(_ settings: [String]) throws -> Int? {
        let graph = try Graph.parse(DefaultGraphs.demo, file: "<built-in demo>", registry: NodeRegistry.standard().withViewfinder().withCalibration(), overrides: settings)
        guard let camera = graph.node(named: "camera"), let fps = camera.parameterTexts["fps"].flatMap(Double.init),
              let d = camera.parameterTexts["duration"] else { return nil }
        return Int((fps * (try Duration(config: .text(d)).seconds)).rounded())
    }

    private func step(_ n: Int, _ text: String) {
        printError("cinegraph demo [\(n)/3]: \(text)")
    }

    /// Rack focus pulls in a take: changes of focus target between two subjects.
    static func racks(in records: [AssetFrameRecord]) -> Int {
        var count = 0, previous: Int?
        for r in records {
            guard let t = r.focus?.targetDetectionID else { continue }
            if let p = previous, p != t { count += 1 }
            previous = t
        }
        return count
    }
}
