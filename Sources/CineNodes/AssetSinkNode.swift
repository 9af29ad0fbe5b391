// AssetSinkNode: records the cinematic asset — what `cinegraph render` re-renders later with
// new focus decisions and aperture, leaving the recording untouched.
import CineGStreamer
import CineGraph
import CineMedia
import CineVision
import Foundation

/// The video quality of an asset.
public enum AssetQuality: String, ParameterEnum {
    /// x264 constant quality 18: visually transparent, a fraction of lossless size.
    case high
    /// x264 quantizer 0: bit-exact, large.
    case lossless
}

/// Kind `asset`: records original video + disparity + per-frame metadata in one Matroska file.
public struct AssetSinkNode: Node {
    public static let kind = "asset"
    public static let summary = "Records the cinematic asset: original video, lossless disparity, per-frame metadata."
    public static let details = """
        One Matroska file (see docs/asset.md): the reference view as H.264, the disparity map at \
        its own resolution as lossless FFV1 16-bit (1/64 px steps), and one JSON record per frame \
        (focus, detections, scene status) after a header with the camera model. Matroska is \
        written as it goes: if the process is killed, the file still opens and plays up to the \
        last frames written. Inputs other than `video` are optional; connected ones are recorded \
        for every frame. `audio` records a microphone beside the video as lossless FLAC, starting \
        with the first frame (`audio-channels: 4` keeps an ambisonic microphone's four channels). \
        `calibration` stores the stereo calibration file in the header and takes the focal \
        length and baseline from it. With `right` (the camera's right view, `video` being its left, \
        unstabilized) the asset keeps the stereo pair — both views' luma at a quarter of the \
        size, side by side — so that `cinegraph render --repair` can match the depth again where a weak machine \
        carried it live. A stabilized take gives `pair` instead: the pair a `keep-pair` node made, \
        moved with its frame by the stabilizer (`stabilized-pair`).
        """
    public static let commands = [
        CommandDescription("status", "Path and frames written so far"),
        CommandDescription(
            "record", [.recordAction],
            "stop: finalise the take and pause; start: a new take from the next frame (a new file; -2, -3 … when the path has no {time})"),
    ]

    @Input(formats: [.i420], "The original (unblurred) reference view") public var video: Image
    @OptionalInput("Disparity of each frame") public var disparity: DisparityMap?
    @OptionalInput("Detections of each frame") public var detections: Detections?
    @OptionalInput("Focus of each frame") public var focus: FocusState?
    @OptionalInput(formats: [.i420, .nv12, .gray8], "The camera's right view (video being its left, unstabilized): the pair is kept, luma at a quarter of the size, for matching depth again after the take (needs disparity)")
    public var right: Image?
    @OptionalInput(name: "pair", formats: [.i420], "A kept stereo pair (keep-pair, or the stabilizer's stabilized-pair) to keep as it is (needs disparity; exclusive with right)")
    public var keptPair: Image?
    @OptionalInput("Sound of each frame's interval (the synthetic camera's sound, a camera's microphone), recorded as it comes as lossless FLAC; a frame without sound records silence. Exclusive with the audio parameter")
    public var sound: AudioBlock?
    @Parameter(default: "take-{time}.cine.mkv", "Output path (.mkv); {time} {date} {node} expand") public var path: String
    @Parameter(default: .high, "Video quality: high (x264 q18) or lossless") public var quality: AssetQuality
    @Parameter(default: .veryfast, "x264 speed preset") public var preset: X264Preset
    @Parameter(default: 30, range: 1...240, "Frame rate written in the file") public var fps: Double
    @Parameter(default: 0, range: 0...100_000, "Focal length of the reference view in pixels (0 = unknown)")
    public var focalLength: Double
    @Parameter(default: 0, range: 0...10, "Stereo baseline in metres (0 = unknown)") public var baseline: Double
    @Parameter(default: "none", "Audio: none, default (the system's input), test (a tone), or a GStreamer source description")
    public var audio: String
    @Parameter(default: 2, range: 1...4, "Audio channels: 1, 2, or 4 (ambisonic / quad, kept as four channels)")
    public var audioChannels: Int
    @Parameter(default: "", "Stereo calibration file stored in the asset (OpenCV YAML/XML or ROS camera_info)")
    public var calibration: String

    private var take = RecordingTake<AssetWriter>(savedEvent: "asset-saved")

    public init() {}

    public func validate() throws {
        let expanded = PathTemplate.expand(path, node: "asset")
        if URL(fileURLWithPath: expanded).pathExtension.lowercased() != "mkv" {
            throw ParameterError("path", "'\(path)' must end in .mkv (a cinematic asset is Matroska)")
        }
        if audioChannels == 3 { throw ParameterError("audio-channels", "must be 1, 2 or 4, got 3") }
        if audio.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ParameterError("audio", "is empty; use none, default, test or a GStreamer source description")
        }
    }

    public func preflight() throws {
        if !calibration.isEmpty {
            do { _ = try StereoCalibration.load(contentsOf: calibration) } catch {
                throw ParameterError("calibration", "\(error)")
            }
        }
    }

    /// Whether the `sound` input is wired (read when a take's file opens).
    private var isSoundConnected = false
    /// Whether the `right` input is wired (read when a take's file opens).
    private var isRightConnected = false
    /// Whether the `pair` input is wired (read when a take's file opens).
    private var isPairConnected = false
    /// The last pair kept: sent again for an instant whose right view skipped.
    private var lastPair: Image?

    public mutating func process(_ ctx: inout NodeContext) throws {
        isSoundConnected = ctx.isWired($sound)
        isRightConnected = ctx.isWired($right)
        isPairConnected = ctx.isWired($keptPair)
        if isRightConnected && isPairConnected {
            throw ParameterError(nil, "right and pair both keep the stereo pair: connect one (pair for a stabilized take, right otherwise)")
        }
        let settings = self  // the writer is made from the parameters only on a take's first frame
        guard let writer = try take.file(&ctx, template: path, open: { try settings.makeWriter(at: $0) }) else { return }
        var record = AssetFrameRecord(time: 0, focus: focus, detections: detections ?? [],
                                      sceneStatus: focus?.sceneStatuses.names ?? [],
                                      carried: ctx.carried.isEmpty ? nil : ctx.carried)
        let carriedInputs = [("disparity", ctx.isCarried($disparity)), ("detections", ctx.isCarried($detections))]
            .filter(\.1).map(\.0)
        record.carriedInputs = carriedInputs.isEmpty ? nil : carriedInputs
        var pair: Image?
        if isPairConnected || isRightConnected {
            if let right {
                guard right.width == video.width, right.height == video.height else {
                    throw ParameterError(nil, "the right view is \(right.width)x\(right.height) but the video is \(video.width)x\(video.height): the views of a pair have one size")
                }
                pair = KeptPair.recorded(left: video, right: right, pool: ctx.pool)
            } else {
                // This instant's pair, else the last one (its producer skipped an instant), else
                // the video paired with itself (none yet).
                pair = keptPair ?? lastPair ?? KeptPair.recorded(left: video, right: video, pool: ctx.pool)
            }
            lastPair = pair
        }
        try writer.append(video: video, disparity: disparity, pair: pair, record: record, at: ctx.timestamp, pool: ctx.pool)
        if isSoundConnected { try writer.append(audio: sound, at: ctx.timestamp) }
    }

    /// A take's file at `path`, for frames like the current one.
    private func makeWriter(at path: String) throws -> AssetWriter {
        var header = AssetHeader(referenceWidth: video.width, referenceHeight: video.height,
                                 disparityWidth: disparity?.values.width, disparityHeight: disparity?.values.height,
                                 fps: fps, focalLengthPixels: focalLength > 0 ? focalLength : nil,
                                 baselineMetres: baseline > 0 ? baseline : nil)
        if !calibration.isEmpty { try Self.apply(calibrationFile: calibration, to: &header) }
        if isRightConnected || isPairConnected {
            guard header.disparityWidth != nil else {
                throw ParameterError(nil, "the \(isPairConnected ? "pair" : "right") input keeps the stereo pair for matching depth again: connect disparity too")
            }
            (header.pairWidth, header.pairHeight) = keptPair.map { ($0.width, $0.height) }
                ?? KeptPair.size(width: video.width, height: video.height)
        }
        var options = AssetWriter.Options()
        options.quality = quality.rawValue
        options.speedPreset = preset.rawValue
        options.audio = audio == "none" ? nil : audio
        options.audioChannels = audioChannels
        if let sound {
            options.audioInput = AssetWriter.AudioInputFormat(of: sound)
        } else if isSoundConnected {
            options.audioInput = AssetWriter.AudioInputFormat(channels: 1, sampleRate: 48_000)  // silence until it comes
        }
        if options.audio != nil && options.audioInput != nil {
            throw ParameterError("audio", "the sound input is connected: record it or a microphone (audio: \(audio)), not both")
        }
        return try AssetWriter(path: path, header: header, options: options)
    }

    /// Stores the calibration's text in the header and fills in focal length and baseline where the
    /// parameters left them unknown. A translation above 10 is taken to be in millimetres.
    static func apply(calibrationFile path: String, to header: inout AssetHeader) throws {
        let calibration: StereoCalibration
        do { calibration = try StereoCalibration.load(contentsOf: path) } catch {
            throw ParameterError("calibration", "\(error)")
        }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ParameterError("calibration", "cannot read \(path) as UTF-8 text")
        }
        header.calibration = text
        if header.focalLengthPixels == nil { header.focalLengthPixels = calibration.focalLength }
        if header.baselineMetres == nil {
            let b = abs(calibration.baseline)
            if b > 0 { header.baselineMetres = b > 10 ? b / 1000 : b }
        }
    }

    public mutating func finish(_ ctx: inout NodeContext) throws { try take.finish(&ctx) }

    public mutating func handle(_ command: NodeCommand, _ ctx: inout NodeContext) throws -> String {
        try take.handle(command, &ctx, kind: Self.kind)
    }
}
