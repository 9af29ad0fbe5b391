// MovieSinkNode: records a movie file — encoder chosen from what is installed, container from
// the path, written so that an interrupted recording stays playable, always finalised.
import CineGStreamer
import CineGraph
import CineMedia
import Foundation

/// Kind `movie`: records frames to a movie file.
public struct MovieSinkNode: Node {
    public static let kind = "movie"
    public static let summary = "Records a movie file (H.264 in MP4/MOV/MKV), finalised on stop, playable after a crash."
    public static let details = """
        The container follows the path's extension: `.mp4` and `.mov` are written fragmented \
        (a fragment a second) so a recording cut short by a crash or power loss still plays up \
        to its last fragment; `.mkv` (Matroska) survives the same way. `encoder: auto` takes the \
        first installed of x264enc, openh264enc. `{time}`, `{date}` and `{node}` in the path are \
        expanded when recording starts; missing folders are created. On stop (end of input, \
        Ctrl-C, an error elsewhere) the file is finalised. `audio` records from a GStreamer audio \
        source beside the video: `default` (the system's default microphone), `test` (a tone), \
        or a source description such as `pulsesrc device=...`.
        """
    public static let commands = [
        CommandDescription("status", "Path and frames written so far"),
        CommandDescription(
            "record", arguments: "start or stop",
            "stop: finalise the file and pause; start: record again from the next frame (a new file when the path has {time})"),
    ]

    @Input("Frames to record") public var video: Image
    @Parameter(default: "take-{time}.mp4", "Output path (.mp4, .mov, .mkv); {time} {date} {node} expand")
    public var path: String
    @Parameter(default: "auto", "Video encoder: auto, x264, openh264, x265, vp9") public var encoder: String
    @Parameter(default: "veryfast", "x264 speed preset (ultrafast ... veryslow)") public var preset: String
    @Parameter(default: 0, range: 0...200_000, "Bitrate in kbit/s (0 = encoder default)") public var bitrate: Int
    @Parameter(default: 30, range: 1...240, "Frame rate written in the file") public var fps: Double
    @Parameter(default: "none", "Audio: none, default, test, or a GStreamer source description") public var audio: String
    @Parameter(default: 0, range: 0...4, "Audio channels: 0 = as negotiated (stereo), 1, 2, or 4 (ambisonic / quad, kept)")
    public var audioChannels: Int
    @Parameter(default: "", "Copy the audio of this movie or asset into the recording (offline re-renders)")
    public var audioFrom: String
    @Parameter(default: 8, range: 8...10, "Bits per sample: 8, or 10 (x264/x265 High 10)") public var bitDepth: Int

    private var recorder: MovieRecorder?
    private var outputPath = ""
    private var record = RecordSwitch()

    public init() {}

    public func validate() throws {
        let expanded = PathTemplate.expand(path, node: "movie")
        do { _ = try MovieFormat.muxer(forPath: expanded) } catch { throw ParameterError("path", "\(error)") }
        if !audioFrom.isEmpty && audio != "none" {
            throw ParameterError("audio-from", "record audio from a device (audio) or copy it from a file (audio-from), not both")
        }
        if audioChannels == 3 { throw ParameterError("audio-channels", "must be 0, 1, 2 or 4, got 3") }
        if bitDepth != 8 && bitDepth != 10 { throw ParameterError("bit-depth", "\(bitDepth) is not 8 or 10") }
        let valid = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow"]
        if !valid.contains(preset) {
            throw ParameterError("preset", "'\(preset)' is not an x264 preset",
                                 hint: closestMatch(to: preset, in: valid).map { "did you mean '\($0)'?" })
        }
    }

    public func preflight() throws {
        if !audioFrom.isEmpty && !FileManager.default.fileExists(atPath: audioFrom) {
            throw ParameterError("audio-from", "no such file: \(audioFrom)")
        }
    }

    public mutating func process(_ ctx: inout NodeContext) throws {
        if record.paused { return }
        if recorder == nil {
            try GStreamer.initialize()
            outputPath = PathTemplate.expand(path, node: ctx.nodeName)
            try PathTemplate.prepareFolder(for: outputPath)
            var options = MovieRecorder.Options()
            options.encoder = encoder
            options.speedPreset = preset
            options.bitrateKbps = bitrate
            options.audio = audio == "none" ? nil : audio
            options.audioFile = audioFrom.isEmpty ? nil : audioFrom
            options.audioChannels = audioChannels
            options.bitDepth = bitDepth
            recorder = try MovieRecorder(path: outputPath, width: video.width, height: video.height, fps: fps,
                                         format: video.format, options: options)
            ctx.logger.info("recording \(outputPath): \(recorder!.pipelineDescription)")
            ctx.post("recording-started", ["path": outputPath])
        }
        try recorder!.append(video, at: ctx.timestamp)
    }

    public mutating func finish(_ ctx: inout NodeContext) throws {
        guard let recorder else { return }
        self.recorder = nil
        try recorder.finish(timeout: 15)
        ctx.post("movie-saved", ["path": outputPath, "frames": String(recorder.framesWritten)])
    }

    public mutating func handle(_ command: NodeCommand, _ ctx: inout NodeContext) throws -> String {
        if command.name == "record" {
            var toggle = record  // the closure below finishes the file, which touches self
            defer { record = toggle }
            return try toggle.handle(command, current: recorder == nil ? nil : outputPath) {
                guard recorder != nil else { return nil }
                let path = outputPath
                try finish(&ctx)
                return path
            }
        }
        guard command.name == "status" else {
            throw NodeCommandError("movie has no command '\(command.name)'; try 'status' or 'record start|stop'")
        }
        if record.paused { return "paused (record start resumes)" }
        guard let recorder else { return "not recording yet" }
        return "\(outputPath): \(recorder.framesWritten) frames"
    }
}
