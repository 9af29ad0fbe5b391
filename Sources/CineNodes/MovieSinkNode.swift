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
            "record", [.recordAction],
            "stop: finalise the file and pause; start: a new take from the next frame (a new file; -2, -3 … when the path has no {time})"),
    ]

    @Input("Frames to record") public var video: Image
    @Parameter(default: "take-{time}.mp4", "Output path (.mp4, .mov, .mkv); {time} {date} {node} expand")
    public var path: String
    @Parameter(default: "auto", "Video encoder: auto, x264, openh264, x265, vp9") public var encoder: String
    @Parameter(default: .veryfast, "x264 speed preset") public var preset: X264Preset
    @Parameter(default: 0, range: 0...200_000, "Bitrate in kbit/s (0 = encoder default)") public var bitrate: Int
    @Parameter(default: 30, range: 1...240, "Frame rate written in the file") public var fps: Double
    @Parameter(default: "none", "Audio: none, default, test, or a GStreamer source description") public var audio: String
    @Parameter(default: 0, range: 0...4, "Audio channels: 0 = as negotiated (stereo), 1, 2, or 4 (ambisonic / quad, kept)")
    public var audioChannels: Int
    @Parameter(default: "", "Copy the audio of this movie or asset into the recording (offline re-renders)")
    public var audioFrom: String
    @Parameter(default: 8, range: 8...10, "Bits per sample: 8, or 10 (x264/x265 High 10)") public var bitDepth: Int

    private var take = RecordingTake<MovieRecorder>(savedEvent: "movie-saved")

    public init() {}

    public func validate() throws {
        let expanded = PathTemplate.expand(path, node: "movie")
        do { _ = try MovieFormat.muxer(forPath: expanded) } catch { throw ParameterError("path", "\(error)") }
        if !audioFrom.isEmpty && audio != "none" {
            throw ParameterError("audio-from", "record audio from a device (audio) or copy it from a file (audio-from), not both")
        }
        if audioChannels == 3 { throw ParameterError("audio-channels", "must be 0, 1, 2 or 4, got 3") }
        if bitDepth != 8 && bitDepth != 10 { throw ParameterError("bit-depth", "\(bitDepth) is not 8 or 10") }
    }

    public func preflight() throws {
        if !audioFrom.isEmpty && !FileManager.default.fileExists(atPath: audioFrom) {
            throw ParameterError("audio-from", "no such file: \(audioFrom)")
        }
    }

    public mutating func process(_ ctx: inout NodeContext) throws {
        let settings = self  // the recorder is made from the parameters only on a take's first frame
        try take.file(&ctx, template: path) { try settings.makeRecorder(at: $0) }?.append(video, at: ctx.timestamp)
    }

    /// A take's file at `path`, for frames like the current one.
    private func makeRecorder(at path: String) throws -> MovieRecorder {
        var options = MovieRecorder.Options()
        options.encoder = encoder
        options.speedPreset = preset.rawValue
        options.bitrateKbps = bitrate
        options.audio = audio == "none" ? nil : audio
        options.audioFile = audioFrom.isEmpty ? nil : audioFrom
        options.audioChannels = audioChannels
        options.bitDepth = bitDepth
        return try MovieRecorder(path: path, width: video.width, height: video.height, fps: fps, format: video.format,
                                 options: options)
    }

    public mutating func finish(_ ctx: inout NodeContext) throws { try take.finish(&ctx) }

    public mutating func handle(_ command: NodeCommand, _ ctx: inout NodeContext) throws -> String {
        try take.handle(command, &ctx, kind: Self.kind)
    }
}
