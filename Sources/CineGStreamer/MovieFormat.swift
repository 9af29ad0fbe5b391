// MovieFormat: which muxer, video encoder, parser and audio encoder a movie file gets.
import CGStreamer

/// The choices behind a recording: the container follows the path's extension, the encoder
/// follows a preference and what is installed. Exposed so that `cinegraph` can print them.
public enum MovieFormat {
    /// The file extensions a movie can be recorded to.
    public static let supportedExtensions = ["mp4", "mov", "mkv", "webm"]

    /// H.264 encoders in the order `auto` tries them.
    static let h264Encoders = ["x264enc", "openh264enc", "v4l2h264enc", "vah264enc", "vaapih264enc", "avenc_h264_omx"]

    /// Short encoder names and the elements they stand for, in order of preference.
    static let encoderAliases: [String: [String]] = [
        "h264": h264Encoders, "x264": ["x264enc"], "openh264": ["openh264enc"],
        "h265": ["x265enc"], "hevc": ["x265enc"], "x265": ["x265enc"],
        "vp8": ["vp8enc"], "vp9": ["vp9enc"], "av1": ["av1enc", "svtav1enc", "rav1enc"],
    ]

    /// The muxer element for a movie at `path`, chosen by its extension: `mp4mux` (.mp4),
    /// `qtmux` (.mov), `matroskamux` (.mkv) or `webmmux` (.webm).
    ///
    /// - Throws: ``GStreamerError`` naming the path and the supported extensions when the
    ///   extension is none of these.
    public static func muxer(forPath path: String) throws -> String {
        switch try container(forPath: path) {
        case "mp4": return "mp4mux"
        case "mov": return "qtmux"
        case "webm": return "webmmux"
        default: return "matroskamux"
        }
    }

    /// The video encoder element for `preference` in `container`.
    ///
    /// - Parameters:
    ///   - preference: `auto` (the first installed of x264enc, openh264enc, hardware H.264
    ///     encoders, then x265enc; vp8enc or vp9enc for .webm), a short name (`x264`,
    ///     `openh264`, `x265`, `vp8`, `vp9`, `av1`, `h264`, `h265`), or an element name.
    ///   - container: an extension (`mp4`, `.mkv`) or a path ending in one.
    /// - Throws: ``GStreamerError`` when the encoder is not installed, or the container cannot
    ///   carry what it makes.
    public static func videoEncoder(preference: String, container: String) throws -> String {
        try GStreamer.initialize()
        let kind = try self.container(forPath: container.contains(".") ? container : "movie.\(container)")
        let muxer = try self.muxer(forPath: "movie.\(kind)")
        let carried = mediaTypes(of: muxer, direction: GST_PAD_SINK, templatePrefix: "video")
        func fits(_ encoder: String) -> Bool {
            !mediaTypes(of: encoder, direction: GST_PAD_SRC, templatePrefix: "").isDisjoint(with: carried)
        }
        let wanted = preference.lowercased()
        if wanted == "auto" {
            let order =
                kind == "webm"
                ? ["vp8enc", "vp9enc", "av1enc"]
                : h264Encoders + ["x265enc", "vp9enc", "vp8enc", "av1enc"]
            if let found = order.first(where: { GStreamer.hasElement($0) && fits($0) }) { return found }
            throw GStreamerError(
                element: nil,
                message: "no video encoder for .\(kind) is installed (tried \(order.joined(separator: ", "))); "
                    + "install gstreamer1.0-plugins-ugly for x264enc, or gstreamer1.0-plugins-good for vp8enc")
        }
        let candidates = encoderAliases[wanted] ?? [preference]
        guard let installed = candidates.first(where: { GStreamer.hasElement($0) }) else {
            throw GStreamerError(
                element: candidates[0],
                message:
                    "encoder \"\(preference)\" is not available: no element \(candidates.joined(separator: " or ")) "
                    + "is installed")
        }
        guard fits(installed) else {
            let makes = mediaTypes(of: installed, direction: GST_PAD_SRC, templatePrefix: "").sorted()
            throw GStreamerError(
                element: installed,
                message: "\(installed) makes \(makes.joined(separator: ", ")), which \(muxer) (.\(kind)) cannot "
                    + "carry; choose another encoder or container")
        }
        return installed
    }

    /// The lower-case extension of `path`, if it is one of ``supportedExtensions``.
    static func container(forPath path: String) throws -> String {
        let file = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
        let ext = file.contains(".") ? String(file.split(separator: ".").last ?? "").lowercased() : ""
        guard supportedExtensions.contains(ext) else {
            let shown = ext.isEmpty ? "no extension" : "extension \".\(ext)\""
            throw GStreamerError(
                element: nil,
                message: "cannot record to \"\(path)\": \(shown) is not a movie format I can write; use "
                    + supportedExtensions.map { ".\($0)" }.joined(separator: ", "))
        }
        return ext
    }

    /// Between the muxer and the `filesink`: up to 128 MB of muxed data (≈ 30 s of 1080p at the
    /// asset's quality) waits there while the disk stalls — page-cache writeback on a busy
    /// disk blocks `write()` for seconds — so the encoder and the live graph never wait on the
    /// disk. Normally empty (it drains as fast as the disk takes it), so an interruption loses
    /// no more than it did without it.
    static let writeBehindQueue = "queue name=writebehind max-size-buffers=0 max-size-time=0 max-size-bytes=134217728"

    /// The muxer as it appears in a pipeline, named `mux`. MP4 and MOV are written fragmented
    /// (a fragment per second) so that a recording cut short still plays up to its last fragment.
    static func muxerDescription(container: String) -> String {
        switch container {
        case "mp4": return "mp4mux name=mux fragment-duration=1000"
        case "mov": return "qtmux name=mux fragment-duration=1000"
        case "webm": return "webmmux name=mux"
        default: return "matroskamux name=mux"
        }
    }

    /// The encoder as it appears in a pipeline, with its properties.
    static func encoderDescription(_ encoder: String, fps: Double, bitrateKbps: Int, speedPreset: String) -> String {
        let keyInterval = max(1, Int((2 * fps).rounded()))
        var parts = [encoder]
        switch encoder {
        case "x264enc":
            parts += ["speed-preset=\(speedPreset)", "tune=zerolatency", "key-int-max=\(keyInterval)"]
            parts += bitrateKbps > 0 ? ["bitrate=\(bitrateKbps)"] : ["pass=qual", "quantizer=21"]
        case "x265enc":
            parts += ["speed-preset=\(speedPreset)", "tune=zerolatency", "key-int-max=\(keyInterval)"]
            if bitrateKbps > 0 { parts.append("bitrate=\(bitrateKbps)") }
        case "openh264enc":
            parts.append("gop-size=\(keyInterval)")
            if bitrateKbps > 0 { parts.append("bitrate=\(bitrateKbps * 1000)") }
        case "vp8enc", "vp9enc":
            parts += ["deadline=1", "cpu-used=\(encoder == "vp8enc" ? 4 : 8)", "keyframe-max-dist=\(keyInterval)"]
            if encoder == "vp9enc" { parts.append("row-mt=true") }
            if bitrateKbps > 0 { parts.append("target-bitrate=\(bitrateKbps * 1000)") }
        default:
            if bitrateKbps > 0 && encoder.hasPrefix("avenc_") { parts.append("bitrate=\(bitrateKbps * 1000)") }
        }
        return parts.joined(separator: " ")
    }

    /// The parser that puts an encoder's output into the form muxers expect, if one is needed.
    static func parser(forEncoder encoder: String) -> String? {
        let types = mediaTypes(of: encoder, direction: GST_PAD_SRC, templatePrefix: "")
        if types.contains("video/x-h264") { return "h264parse" }
        if types.contains("video/x-h265") { return "h265parse" }
        if types.contains("video/x-av1") && GStreamer.hasElement("av1parse") { return "av1parse" }
        return nil
    }

    /// The audio encoder for `container`: AAC for MP4 and MOV, Opus for Matroska and WebM.
    static func audioEncoder(container: String) throws -> String {
        let order =
            container == "mp4" || container == "mov"
            ? ["avenc_aac", "voaacenc", "fdkaacenc"] : ["opusenc", "vorbisenc"]
        guard let found = order.first(where: GStreamer.hasElement) else {
            throw GStreamerError(
                element: order[0],
                message: "no audio encoder for .\(container) is installed "
                    + "(tried \(order.joined(separator: ", ")))")
        }
        return found
    }

    /// The audio source for a recorder's `audio` option: `default` is the system's default
    /// input, `test` a live sine tone, anything else a GStreamer source description.
    static func audioSourceDescription(_ audio: String) -> String {
        switch audio {
        case "default": return "autoaudiosrc"
        case "test": return "audiotestsrc is-live=true wave=sine"
        default: return audio
        }
    }

    /// The media types (`video/x-h264`, ...) on the pad templates of `factory` in `direction`
    /// whose names start with `templatePrefix`.
    static func mediaTypes(of factory: String, direction: GstPadDirection, templatePrefix: String) -> Set<String> {
        guard let found = gst_element_factory_find(factory) else { return [] }
        defer { gst_object_unref(UnsafeMutableRawPointer(found)) }
        var types = Set<String>()
        var node = gst_element_factory_get_static_pad_templates(found)
        while let current = node {
            let template = current.pointee.data.assumingMemoryBound(to: GstStaticPadTemplate.self)
            if template.pointee.direction == direction,
                String(cString: template.pointee.name_template).hasPrefix(templatePrefix),
                let caps = gst_static_pad_template_get_caps(template)
            {
                for i in 0..<gst_caps_get_size(caps) {
                    if let name = gst_structure_get_name(gst_caps_get_structure(caps, i)) {
                        types.insert(String(cString: name))
                    }
                }
                gst_caps_unref(caps)
            }
            node = UnsafePointer(current.pointee.next)
        }
        return types
    }
}
