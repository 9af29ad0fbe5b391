// VirtualCameraNode: kind `virtual-camera` — the rendered frames as a webcam other programs open
// (video-call apps, OBS, a browser), through a v4l2loopback device and GStreamer's v4l2sink.
import CineGStreamer
import CineGraph
import CineMedia
import Foundation

/// Kind `virtual-camera`: frames out to a V4L2 loopback device at a fixed size and format.
public struct VirtualCameraNode: Node {
    public static let kind = "virtual-camera"
    /// A call's picture gives way to a recording: frames are late rather than the take short.
    public static var priority: NodePriority? { .preview }
    public static let summary = "Sends frames to a v4l2loopback device: a webcam video-call apps can open."
    public static let details = """
        Scales each frame to `size` (borders keep the aspect), converts it to `format` (YUY2, the \
        format every call app takes; or I420) and writes it to `device` with `v4l2sink`. Load the \
        kernel module first: `sudo modprobe v4l2loopback devices=1 video_nr=10 \
        card_label=cinegraph exclusive_caps=1` (`exclusive_caps=1` makes Chrome and Zoom list it \
        as a camera), then pick "cinegraph" as the camera in the call app. `cinegraph devices` \
        lists loopback devices as outputs. A missing device is an error at load time that says \
        how to create it. `output` replaces the `v4l2sink` (tests use it as a stand-in where the \
        module cannot be loaded). See docs/virtual-camera.md.
        """

    @Input(formats: [.i420, .nv12, .rgba8, .gray8], "Frames to send") public var video: Image
    @Parameter(default: "/dev/video10", "The v4l2loopback device") public var device: String
    @Parameter(default: FrameSize(width: 1280, height: 720), "Frame size the call app sees") public var size: FrameSize
    @Parameter(default: "YUY2", "Pixel format on the device: YUY2 or I420") public var format: String
    @Parameter(default: 30, range: 1...120, "Frame rate announced on the device") public var fps: Double
    @Parameter(default: "", "GStreamer description instead of v4l2sink (a stand-in; empty = the device)")
    public var output: String

    private var sink: VideoSinkPipeline?

    public init() {}

    /// The modprobe line that creates the default device.
    public static let modprobe = "sudo modprobe v4l2loopback devices=1 video_nr=10 card_label=cinegraph exclusive_caps=1"

    public func validate() throws {
        guard ["YUY2", "I420"].contains(format) else {
            throw ParameterError("format", "'\(format)' is not offered; use YUY2 (what call apps take) or I420")
        }
        if size.width % 2 != 0 || size.height % 2 != 0 { throw ParameterError("size", "\(size) has an odd side") }
        if output.contains("appsrc") { throw ParameterError("output", "leave out the source; cinegraph adds an appsrc") }
    }

    public func preflight() throws {
        guard output.isEmpty else { return }
        guard FileManager.default.fileExists(atPath: device) else {
            throw ParameterError("device", "no such device: \(device) (the v4l2loopback module is not loaded)",
                                 hint: "create it with: \(Self.modprobe)")
        }
        if let name = V4L2Loopback.deviceName(device), !V4L2Loopback.outputs().contains(where: { $0.path == device }) {
            throw ParameterError("device", "\(device) (\(name)) is a real camera, not a v4l2loopback device",
                                 hint: "create one with: \(Self.modprobe)")
        }
    }

    public mutating func start(_ ctx: inout NodeContext) throws { try preflight() }

    /// What follows `appsrc ! videoconvert !`: scale, convert, then the device (or the stand-in).
    var tail: String {
        let caps = "video/x-raw,format=\(format),width=\(size.width),height=\(size.height),pixel-aspect-ratio=1/1"
        let out = output.isEmpty ? "v4l2sink device=\(Pipeline.quoted(device)) sync=false" : output
        return "videoscale add-borders=true ! videoconvert ! \(caps) ! \(out)"
    }

    public mutating func process(_ ctx: inout NodeContext) throws {
        if sink == nil {
            sink = try VideoSinkPipeline(tail: tail, for: video, fps: fps)
            ctx.logger.notice("virtual-camera: sending \(size) \(format) to \(output.isEmpty ? device : output)")
        }
        try sink?.push(video, at: ctx.timestamp)
    }

    public mutating func finish(_ ctx: inout NodeContext) throws {
        guard let sink else { return }
        if try !sink.finish(timeout: 10) { ctx.logger.warning("virtual-camera: no end-of-stream within 10 s; stopped anyway") }
    }
}

/// The V4L2 loopback devices of this machine, from sysfs: devices of the `video4linux` class
/// that sit under `/sys/devices/virtual` (a loopback has no bus; a real camera does).
public enum V4L2Loopback {
    /// A loopback device: its node and its card label.
    public struct Device: Sendable, Equatable {
        public var path: String
        public var name: String
    }

    /// The loopback devices under `root` (default: the real sysfs), sorted by path.
    public static func outputs(sysfs root: String = "/sys/class/video4linux") -> [Device] {
        let fm = FileManager.default
        guard let entries = try? fm.contentsOfDirectory(atPath: root) else { return [] }
        return entries.sorted().compactMap { entry in
            let link = root + "/" + entry
            let target = (try? fm.destinationOfSymbolicLink(atPath: link)) ?? link
            guard target.contains("/devices/virtual/") else { return nil }
            let name = (try? String(contentsOfFile: link + "/name", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? entry
            return Device(path: "/dev/" + entry, name: name)
        }
    }

    /// The card name sysfs gives the device node at `path` (`/dev/videoN`), if it has one.
    static func deviceName(_ path: String, sysfs root: String = "/sys/class/video4linux") -> String? {
        let entry = (path as NSString).lastPathComponent
        return (try? String(contentsOfFile: "\(root)/\(entry)/name", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
