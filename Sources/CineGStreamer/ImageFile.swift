// ImageFile: still images and movie frames to and from files through GStreamer — one place for
// the pipelines the tools use and for quoting file paths inside pipeline descriptions.
import CineMedia

/// Reads and writes image files, and reads a movie's frames, with GStreamer's own decoders and
/// encoders.
///
/// ```swift
/// try ImageFile.write(sheet, to: "out/sheet.png")              // PNG or JPEG, by extension
/// try ImageFile.forEachFrame(ofMovie: "take.mp4", format: .i420) { index, frame in … }
/// ```
public enum ImageFile {
    /// Writes `image` (any format `videoconvert` takes) to `path`: PNG for `.png`, JPEG for
    /// `.jpg`/`.jpeg` at `jpegQuality`. Throws ``GStreamerError`` naming the element that failed
    /// (an unwritable folder is `filesink`'s error).
    public static func write(_ image: Image, to path: String, jpegQuality: Int = 92) throws {
        let ext = path.split(separator: ".").last.map { $0.lowercased() } ?? ""
        let encoder: String
        switch ext {
        case "png": encoder = "pngenc snapshot=true"
        case "jpg", "jpeg": encoder = "jpegenc quality=\(max(1, min(100, jpegQuality))) snapshot=true"
        default: throw GStreamerError(element: nil, message: "\(path): write .png, .jpg or .jpeg")
        }
        let sink = try VideoSinkPipeline(tail: "\(encoder) ! filesink location=\(Pipeline.quoted(path))", for: image, fps: 1)
        try sink.push(image, at: .zero)
        guard try sink.finish(timeout: 30) else {
            throw GStreamerError(element: "filesink", message: "\(path): encoding timed out")
        }
    }

    /// Decodes every frame of the movie at `path` as `format` and hands each to `body` with its
    /// index, in order. Returns the number of frames. Stops early when `body` returns `false`.
    @discardableResult
    public static func forEachFrame(ofMovie path: String, format: PixelFormat = .i420, timeout: Double = 30,
                                    _ body: (Int, Image) throws -> Bool) throws -> Int {
        try GStreamer.initialize()
        guard let caps = format.gstreamerName else {
            throw GStreamerError(element: nil, message: "\(path): GStreamer has no format for \(format)")
        }
        let pipeline = try Pipeline(
            "filesrc location=\(Pipeline.quoted(path)) ! decodebin ! videoconvert ! video/x-raw,format=\(caps) "
                + "! appsink name=sink sync=false")
        let reader = try AppSinkReader(pipeline: pipeline, name: "sink")
        try pipeline.play()
        defer { pipeline.stop() }
        var index = 0
        while true {
            switch try reader.next(timeout: timeout) {
            case .frame(let image, _):
                let more = try body(index, image)
                index += 1
                if !more { return index }
            case .endOfStream:
                return index
            case .timeout:
                throw GStreamerError(element: "decodebin", message: "\(path): no frame for \(Int(timeout)) s after frame \(index)")
            }
        }
    }
}
