// `cinegraph stabilize`: removes camera shake from any movie GStreamer can read — builds and runs
// the graph file → stabilizer → movie, with a progress line.
import ArgumentParser
import CineGStreamer
import CineGraph
import CineMedia
import CineNodes
import Foundation

struct StabilizeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stabilize",
        abstract: "Stabilize a shaky movie (any format GStreamer reads) into a new movie.",
        discussion: """
            Builds and runs the graph file → stabilizer → movie. Modes: off, standard, cinematic, \
            cinematic-extended, cinematic-extended-enhanced (more smoothing, more crop, more \
            lookahead; see docs/stabilizer.md). The output has the input's size and frame rate; \
            writes any container the movie node writes (.mp4, .mkv, .mov). Audio is not copied.
            """)

    @Argument(help: "The shaky movie.") var input: String
    @Option(name: .shortAndLong, help: "Output movie (.mp4, .mkv, .mov).") var output: String
    @Option(help: "How strongly to smooth, and how much to crop.")
    var mode: StabilizerMode = .cinematicExtended
    @Option(help: "Lookahead instead of the mode's, e.g. 2s or 500ms.") var lookahead: String?
    @Option(help: "Never rotate (keep stereo geometry).") var stereoSafe: StereoSafety = .off
    @Option(help: "Video bitrate in kbit/s (0 = encoder default).") var bitrate: Int = 0
    @Option(help: "x264 speed preset (ultrafast … veryslow).") var preset: String = "veryfast"
    @Option(help: "Video encoder: auto, x264, openh264, x265, vp9.") var encoder: String = "auto"
    @Flag(help: "No progress line.") var quiet = false
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard bitrate >= 0 else { throw ValidationError("--bitrate must be 0 or more kbit/s") }
    }

    func run() throws {
        let logger = try logging.bootstrap()
        let source = try MovieTool.describe(input)
        var spec = GraphSpec(name: "stabilize")
        spec.add("file", kind: "file", ["path": input, "fps": source.fps])
        var stabilizer: [String: any ParameterValue] = ["mode": mode, "stereo-safe": stereoSafe]
        if let lookahead { stabilizer["lookahead"] = lookahead }
        spec.add("stabilizer", kind: "stabilizer", inputs: ["video": "file.left"], stabilizer)
        spec.add("movie", kind: "movie", inputs: ["video": "stabilizer.stabilized-video"],
                 ["path": output, "fps": source.fps, "preset": preset, "bitrate": bitrate, "encoder": encoder])
        let run = try ToolGraph.run(spec, logger: logger, quiet: quiet,
                                    progress: source.frames.map { (node: "movie", total: $0) })
        let frames = run.frames(of: "movie")
        printError(
            String(
                format: "stabilized %d frames of %dx%d (%@) in %.1f s, %.1f fps → %@", frames, source.width,
                source.height, mode.rawValue, run.seconds, Double(frames) / max(run.seconds, 1e-6), output))
        if run.aborted { throw ExitCode(130) }
    }

    /// Size, frame rate and (when the container says) frame count of the first video stream,
    /// from decoding its first frame.
    static func describe(_ path: String) throws -> (width: Int, height: Int, fps: Double, frames: Int?) {
        let p = try Pipeline(
            "filesrc location=\(Pipeline.quoted(path)) ! decodebin ! videoconvert ! video/x-raw,format=I420 "
                + "! appsink name=sink sync=false max-buffers=2")
        let reader = try AppSinkReader(pipeline: p, name: "sink")
        try p.play()
        defer { p.stop() }
        switch try reader.next(timeout: 10) {
        case .frame(let image, _):
            let fps = reader.frameRate.flatMap { $0 > 0 ? $0 : nil } ?? 30
            let frames = p.durationSeconds().map { Int(($0 * fps).rounded()) }
            return (image.width, image.height, fps, frames)
        case .endOfStream: throw GStreamerError(element: nil, message: "the file holds no video frames")
        case .timeout: throw GStreamerError(element: nil, message: "no frame decoded within 10 s")
        }
    }
}
