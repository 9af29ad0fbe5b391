// ImageFile: still images and movie frames to and from files — PNG and JPEG decoded directly
// (libpng, libjpeg-turbo: no pipeline per image, so a tool starts in milliseconds), binary
// PGM/PPM parsed, anything else and every encode through GStreamer.
import CImageCodecs
import CineMedia
import Foundation

/// Reads and writes image files, and reads a movie's frames.
///
/// ```swift
/// let gray = try ImageFile.read("left.png", as: .gray8)         // PNG, JPEG, PGM/PPM, or GStreamer
/// try ImageFile.write(sheet, to: "out/sheet.png")              // PNG or JPEG, by extension
/// try ImageFile.forEachFrame(ofMovie: "take.mp4", format: .i420) { index, frame in … }
/// ```
public enum ImageFile {
    /// Reads the still image at `path` as `format`: `.gray8` or `.rgba8` (decoded directly for
    /// 8-bit PNG, JPEG and binary PGM/PPM, recognised by their first bytes; 16-bit PNG samples
    /// keep their top 8 bits), or any format an appsink
    /// gives (`.i420`, …) through `filesrc ! decodebin ! videoconvert`, which also reads every
    /// other file type GStreamer knows. Throws ``ImageFileError`` naming the file.
    public static func read(_ path: String, as format: PixelFormat) throws -> Image {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ImageFileError(path: path, message: "no such file, or it is not readable")
        }
        guard !data.isEmpty else { throw ImageFileError(path: path, message: "the file is empty") }
        if format == .gray8 || format == .rgba8 {
            let bytes = [UInt8](data.prefix(8))
            // 16-bit PNGs go through GStreamer, which keeps the samples' top 8 bits (libpng's
            // simplified API would take samples without a gamma chunk as linear light).
            if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) && (data.count < 25 || data[data.startIndex + 24] != 16) {
                return try decodePNG(data, path: path, as: format)
            }
            if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return try decodeJPEG(data, path: path, as: format) }
            if bytes.starts(with: [0x50, 0x35]) || bytes.starts(with: [0x50, 0x36]) {
                return try decodePNM(data, path: path, as: format)
            }
        }
        return try decodeWithGStreamer(path, as: format)
    }

    /// PNG through libpng's simplified API (any bit depth and colour type; 16-bit samples are
    /// reduced to 8). Cost: inflate + unfilter, ≈ 2 ms for 741×500 gray.
    private static func decodePNG(_ data: Data, path: String, as format: PixelFormat) throws -> Image {
        var png = png_image()
        png.version = cg_png_image_version
        defer { png_image_free(&png) }
        let begun = data.withUnsafeBytes { png_image_begin_read_from_memory(&png, $0.baseAddress, $0.count) }
        guard begun != 0 else { throw ImageFileError(path: path, message: "not a readable PNG: \(pngMessage(&png))") }
        png.format = format == .gray8 ? cg_png_format_gray : cg_png_format_rgba
        let image = Image(width: Int(png.width), height: Int(png.height), format: format)
        let plane = image.plane(0)
        // row_stride counts components, one byte each here.
        guard png_image_finish_read(&png, nil, plane.base, Int32(plane.stride), nil) != 0, cg_png_failed(&png) == 0 else {
            throw ImageFileError(path: path, message: "PNG data is damaged: \(pngMessage(&png))")
        }
        return image
    }

    private static func pngMessage(_ png: inout png_image) -> String {
        withUnsafeBytes(of: &png.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// JPEG through TurboJPEG. Cost: ≈ 1–2 ms for 640×480.
    private static func decodeJPEG(_ data: Data, path: String, as format: PixelFormat) throws -> Image {
        guard let handle = tjInitDecompress() else { throw ImageFileError(path: path, message: "TurboJPEG did not start") }
        defer { tjDestroy(handle) }
        func failure(_ what: String) -> ImageFileError {
            ImageFileError(path: path, message: "\(what): " + (tjGetErrorStr2(handle).map { String(cString: $0) } ?? "unknown error"))
        }
        return try data.withUnsafeBytes { raw -> Image in
            let bytes = raw.bindMemory(to: UInt8.self)
            var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colourspace: Int32 = 0
            guard tjDecompressHeader3(handle, bytes.baseAddress, UInt(bytes.count), &width, &height, &subsampling,
                                      &colourspace) == 0, width > 0, height > 0
            else { throw failure("not a readable JPEG") }
            let image = Image(width: Int(width), height: Int(height), format: format)
            let plane = image.plane(0)
            let pixelFormat = format == .gray8 ? TJPF_GRAY : TJPF_RGBA
            guard tjDecompress2(handle, bytes.baseAddress, UInt(bytes.count), plane.base.assumingMemoryBound(to: UInt8.self),
                                width, Int32(plane.stride), height, Int32(pixelFormat.rawValue), 0) == 0
            else { throw failure("JPEG data is damaged") }
            return image
        }
    }

    /// Binary 8-bit PGM (P5) or PPM (P6).
    private static func decodePNM(_ data: Data, path: String, as format: PixelFormat) throws -> Image {
        let bytes = [UInt8](data)
        var i = 2, fields: [Int] = []
        while fields.count < 3 {
            while i < bytes.count, bytes[i] == 0x23 || bytes[i] <= 0x20 {  // whitespace and # comments
                if bytes[i] == 0x23 { while i < bytes.count, bytes[i] != 0x0A { i += 1 } } else { i += 1 }
            }
            var v = 0, digits = 0
            while i < bytes.count, (0x30...0x39).contains(bytes[i]) {
                v = v * 10 + Int(bytes[i] - 0x30)
                digits += 1
                i += 1
                guard v < 1 << 20 else { throw ImageFileError(path: path, message: "PNM header value too large") }
            }
            guard digits > 0 else { throw ImageFileError(path: path, message: "PNM header is damaged") }
            fields.append(v)
        }
        i += 1  // the single whitespace after maxval
        let (w, h, maxval) = (fields[0], fields[1], fields[2])
        let channels = bytes[1] == 0x35 ? 1 : 3
        guard w > 0, h > 0, maxval == 255 else {
            throw ImageFileError(path: path, message: "only 8-bit PNM (maxval 255) is read, this one has \(maxval)")
        }
        guard bytes.count - i >= w * h * channels else {
            throw ImageFileError(path: path, message: "PNM data is cut short (\(bytes.count - i) of \(w * h * channels) bytes)")
        }
        let image = Image(width: w, height: h, format: format)
        let plane = image.plane(0)
        for y in 0..<h {
            let row = plane.row(y, as: UInt8.self), src = i + y * w * channels
            for x in 0..<w {
                if channels == 1 {
                    if format == .gray8 { row[x] = bytes[src + x] } else {
                        for c in 0..<3 { row[4 * x + c] = bytes[src + x] }
                        row[4 * x + 3] = 255
                    }
                } else {
                    let r = bytes[src + 3 * x], g = bytes[src + 3 * x + 1], b = bytes[src + 3 * x + 2]
                    if format == .gray8 {
                        let luma: Int = 77 * Int(r) + 150 * Int(g) + 29 * Int(b) + 128
                        row[x] = UInt8(luma >> 8)
                    } else {
                        row[4 * x] = r; row[4 * x + 1] = g; row[4 * x + 2] = b; row[4 * x + 3] = 255
                    }
                }
            }
        }
        return image
    }

    /// Any image GStreamer decodes, as `format`. Polls in short steps so that a file GStreamer
    /// cannot type is an error at once, not after the timeout.
    private static func decodeWithGStreamer(_ path: String, as format: PixelFormat) throws -> Image {
        do {
            let (pipeline, reader) = try decoding(path, as: format)
            defer { pipeline.stop() }
            for _ in 0..<200 {
                switch try reader.next(timeout: 0.05) {
                case .frame(let image, _): return image
                case .endOfStream: throw ImageFileError(path: path, message: "the file holds no image")
                case .timeout: continue
                }
            }
            throw ImageFileError(path: path, message: "no image decoded within 10 s")
        } catch let e as GStreamerError {
            throw ImageFileError(path: path, message: "cannot be read as an image: \(e)")
        }
    }

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
        let (pipeline, reader) = try decoding(path, as: format)
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

    /// A playing `filesrc ! decodebin ! videoconvert ! FORMAT ! appsink` on `path`, and its reader.
    private static func decoding(_ path: String, as format: PixelFormat) throws -> (Pipeline, AppSinkReader) {
        try GStreamer.initialize()
        guard let caps = format.gstreamerName else {
            throw GStreamerError(element: nil, message: "\(path): GStreamer has no format for \(format)")
        }
        let pipeline = try Pipeline(
            "filesrc location=\(Pipeline.quoted(path)) ! decodebin ! videoconvert ! video/x-raw,format=\(caps) "
                + "! appsink name=sink sync=false")
        let reader = try AppSinkReader(pipeline: pipeline, name: "sink")
        try pipeline.play()
        return (pipeline, reader)
    }
}
