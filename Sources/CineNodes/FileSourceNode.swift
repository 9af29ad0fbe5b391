// FileSourceNode: frames from files — any movie GStreamer decodes (mono, side-by-side or
// top-bottom), a still image pair, or numbered image sequences.
import CineGStreamer
import CineGraph
import CineMedia
import Foundation

/// Kind `file`: reads recorded media.
public struct FileSourceNode: Node {
    public static let kind = "file"
    public static let summary = "Frames from a movie, an image pair, or numbered image sequences."
    public static let details = """
        `path` is a movie (anything GStreamer decodes), an image (PNG, JPEG), or a numbered \
        sequence written printf-style (`frames/left-%04d.png`, numbered from 0). With \
        `right-path` the right view comes from a second file of the same kind, frame for frame; \
        otherwise `layout` says how one file holds both views. Offline by default: the graph \
        reads as fast as it processes and drops nothing; `live: true` paces frames at their \
        timestamps. Frames without timestamps (images) are stamped at `fps`.
        """

    @Output("Both views of each instant (not produced for mono)") public var stereo: StereoFrame
    @Output(formats: [.i420], "The left (reference) view, or the whole frame for mono") public var left: Image
    @Output(formats: [.i420], "The right view") public var right: Image

    @Parameter(default: "", "Movie, image, or printf-style numbered image sequence") public var path: String
    @Parameter(default: "", "The right view from a second file (same kind as path)") public var rightPath: String
    @Parameter(default: .mono, "How one file holds the views (ignored with right-path)") public var layout: StereoLayout
    @Parameter(default: 30, range: 1...240, "Frame rate for images and sequences") public var fps: Double
    @Parameter(default: false, "Pace frames in real time") public var live: Bool
    @Parameter(default: "", "Stereo calibration to rectify with: OpenCV YAML/XML, or the left ROS camera_info")
    public var calibration: String
    @Parameter(default: "", "The right camera's ROS camera_info (with calibration: the left one's)")
    public var calibrationRight: String
    private var rectification = StereoRectification()

    private var readers: [AppSinkReader] = []
    private var pipelines: [Pipeline] = []
    private var index = 0
    private var lastTimestamp: Timestamp?

    public init() {}

    public var isLive: Bool { live }

    public func validate() throws {
        if path.isEmpty { throw ParameterError("path", "no file given", hint: "set path: to a movie or image") }
        if !calibration.isEmpty && layout == .mono && rightPath.isEmpty {
            throw ParameterError("calibration", "rectifies a stereo pair, but this source is mono",
                                 hint: "set layout (side-by-side, top-bottom) or right-path")
        }
    }

    public func preflight() throws {
        try StereoRectification(path: calibration, rightPath: calibrationRight).preflight()
        for (name, value) in [("path", path), ("right-path", rightPath)] where !value.isEmpty {
            if value.contains("%") {
                let first = String(format: value, 0)
                if !FileManager.default.fileExists(atPath: first) {
                    throw ParameterError(name, "the sequence \(value) has no first file \(first)")
                }
            } else if !FileManager.default.fileExists(atPath: value) {
                throw ParameterError(name, "no such file: \(value)")
            }
        }
    }

    static func isImage(_ p: String) -> Bool {
        ["png", "jpg", "jpeg", "bmp", "tif", "tiff", "pnm", "ppm", "pgm"].contains(
            URL(fileURLWithPath: p).pathExtension.lowercased())
    }

    func pipelineDescription(_ file: String) -> String {
        let tail = "videoconvert ! video/x-raw,format=I420 ! appsink name=sink sync=false max-buffers=4 drop=false"
        if file.contains("%") {
            let ext = URL(fileURLWithPath: file).pathExtension.lowercased()
            let caps = ext == "png" ? "image/png" : "image/jpeg"
            return "multifilesrc location=\(Pipeline.quoted(file)) index=0 caps=\"\(caps),framerate=\(fpsFraction(fps))\" ! decodebin ! \(tail)"
        }
        return "filesrc location=\(Pipeline.quoted(file)) ! decodebin ! \(tail)"
    }

    public mutating func start(_ ctx: inout NodeContext) throws {
        rectification = StereoRectification(path: calibration, rightPath: calibrationRight)
        for file in [path] + (rightPath.isEmpty ? [] : [rightPath]) {
            let p = try Pipeline(pipelineDescription(file))
            readers.append(try AppSinkReader(pipeline: p, name: "sink", pool: ctx.pool))
            try p.play()
            pipelines.append(p)
        }
    }

    private func read(_ reader: AppSinkReader) throws -> (Image, Timestamp)? {
        while true {
            switch try reader.next(timeout: 1) {
            case .timeout: continue
            case .endOfStream: return nil
            case .frame(let image, let t): return (image, t)
            }
        }
    }

    /// At the end of a movie: throws when the stream stopped well before the duration its
    /// container declares (a file cut short, or truncated while it was being read).
    private func checkComplete(_ file: String, _ pipeline: Pipeline, _ reader: AppSinkReader) throws {
        guard !file.contains("%"), !Self.isImage(file), let last = lastTimestamp,
            let duration = pipeline.durationSeconds(), duration > 0
        else { return }
        let rate = reader.frameRate ?? fps
        let end = last.seconds + 1 / rate
        guard duration - end > max(0.1, 2.5 / rate) else { return }
        throw SourceLostError(
            "\(file) ends at \(String(format: "%.3f", end)) s but its header says \(String(format: "%.3f", duration)) s: "
                + "the file is cut short (truncated); the \(index) frames before the cut were processed")
    }

    public mutating func process(_ ctx: inout NodeContext) throws {
        guard let (frame, stamp) = try read(readers[0]) else {
            try checkComplete(path, pipelines[0], readers[0])
            ctx.endOfStream()
            return
        }
        var t = stamp
        if t.nanoseconds < 0 || (lastTimestamp.map { t <= $0 } ?? false) { t = Timestamp(frame: index, fps: fps) }
        lastTimestamp = t
        index += 1
        if live { ctx.pace(until: t) }
        ctx.timestamp = t
        if readers.count == 2 {
            guard let (other, _) = try read(readers[1]) else {
                ctx.endOfStream()
                return
            }
            guard other.width == frame.width, other.height == frame.height else {
                throw ParameterError("right-path", "the right view is \(other.width)x\(other.height) but the left is \(frame.width)x\(frame.height)")
            }
            try StereoOutputs.assign(frame, other, rectifying: &rectification, left: _left, right: _right, stereo: _stereo, ctx)
        } else {
            let views = layout.split(frame)
            try StereoOutputs.assign(views.left, views.right, rectifying: &rectification, left: _left, right: _right, stereo: _stereo, ctx)
        }
    }

    public mutating func finish(_ ctx: inout NodeContext) throws {
        for p in pipelines { p.stop() }
        pipelines.removeAll()
        readers.removeAll()
    }
}

extension ParameterError: CustomStringConvertible {
    public var description: String {
        (parameter.map { "\($0): " } ?? "") + message + (hint.map { " (\($0))" } ?? "")
    }
}
