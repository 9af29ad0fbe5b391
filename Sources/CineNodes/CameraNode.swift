// CameraNode: live V4L2 cameras through GStreamer — one device (mono, side-by-side or
// top-bottom) or two devices joined by timestamp.
import CineGStreamer
import CineGraph
import CineMedia

/// Pixel formats to ask a camera for.
public enum CameraFormat: String, ParameterEnum {
    /// Let GStreamer pick (raw if offered, else MJPEG decoded).
    case auto
    case yuy2, nv12, i420, mjpeg
}

/// Kind `camera`: a live camera.
public struct CameraNode: Node {
    public static let kind = "camera"
    public static let summary = "A live camera (V4L2): one stereo device, a mono webcam, or two devices joined by time."
    public static let details = """
        `device: auto` takes the first camera the GStreamer device monitor lists; a path such as \
        `/dev/video2` takes that one. A missing device is an error at load time that lists the \
        cameras present (`cinegraph devices` lists them with their formats). With `right-device` \
        set, two cameras are read together and frames are paired by timestamp (within half a \
        frame); unpaired frames are dropped and counted. `size` is the size of the device's \
        frame: for a side-by-side stereo camera, both views together (for example 2560x720).
        Timestamps are GStreamer running time. Views are I420.
        """

    @Output("Both views of each instant (not produced for mono)") public var stereo: StereoFrame
    @Output(formats: [.i420], "The left (reference) view, or the whole frame for mono") public var left: Image
    @Output(formats: [.i420], "The right view (not produced for mono)") public var right: Image
    @Output("With `microphone`: the sound captured since the last frame (48 kHz mono, stamped on the frames' clock)")
    public var sound: AudioBlock

    @Parameter(default: "auto", "Device path such as /dev/video0, or auto") public var device: String
    @Parameter(default: "", "A second device for the right view (two-camera rigs)") public var rightDevice: String
    @Parameter(default: FrameSize(width: 2560, height: 720), "Frame size the device delivers") public var size: FrameSize
    @Parameter(default: 30, range: 1...240, "Frames per second") public var fps: Double
    @Parameter(default: .auto, "Pixel format to request from the device") public var format: CameraFormat
    @Parameter(default: .sideBySide, "How the views share a frame") public var layout: StereoLayout
    @Parameter(default: "v4l2src", "GStreamer source element (v4l2src; another for tests or other capture APIs)")
    public var source: String
    @Parameter(default: "none",
               "Microphone heard with the frames (the sound output): none, default (the system's input), or a GStreamer source description")
    public var microphone: String
    @Parameter(default: "", "Stereo calibration to rectify with: OpenCV YAML/XML, or the left ROS camera_info")
    public var calibration: String
    @Parameter(default: "", "The right camera's ROS camera_info (with calibration: the left one's)")
    public var calibrationRight: String
    private var rectification = StereoRectification()

    private var readers: [(Pipeline, AppSinkReader)] = []
    private var dropped = 0
    /// The microphone branch of the first camera's pipeline (with `microphone`).
    private var mic: AudioSinkReader?

    public init() {}

    public var isLive: Bool { true }

    public func validate() throws {
        if microphone.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ParameterError("microphone", "is empty; use none, default or a GStreamer source description")
        }
        if layout != .mono && !rightDevice.isEmpty {
            throw ParameterError("layout", "two devices give one view each; use layout: mono with right-device")
        }
        if !calibration.isEmpty && layout == .mono && rightDevice.isEmpty {
            throw ParameterError("calibration", "rectifies a stereo pair, but this camera is mono",
                                 hint: "set layout (side-by-side, top-bottom) or right-device")
        }
    }

    public func preflight() throws {
        try StereoRectification(path: calibration, rightPath: calibrationRight).preflight()
        guard source == "v4l2src" else { return }
        let cameras = DeviceMonitor.devices(.camera)
        let present = cameras.compactMap { c in c.path.map { "\($0) (\(c.name))" } }
        let list = present.isEmpty ? "no cameras are present" : "present: " + present.joined(separator: ", ")
        for (name, value) in [("device", device), ("right-device", rightDevice)] where !value.isEmpty {
            if value == "auto" {
                if cameras.isEmpty {
                    throw ParameterError(name, "no camera found", hint: "connect one, or use 'kind: synthetic'")
                }
            } else if !cameras.contains(where: { $0.path == value }) {
                throw ParameterError(name, "no camera at \(value); \(list)", hint: "run 'cinegraph devices'")
            }
        }
    }

    private func description(for dev: String) -> String {
        let caps: String
        let w = size.width, h = size.height, rate = fpsFraction(fps)
        switch format {
        case .auto: caps = "video/x-raw,width=\(w),height=\(h),framerate=\(rate)"
        case .mjpeg: caps = "image/jpeg,width=\(w),height=\(h),framerate=\(rate) ! jpegdec"
        default: caps = "video/x-raw,format=\(format.rawValue.uppercased()),width=\(w),height=\(h),framerate=\(rate)"
        }
        var src = source
        if source == "v4l2src" {
            let path = dev == "auto" ? (DeviceMonitor.devices(.camera).first?.path ?? "/dev/video0") : dev
            src += " device=\(path)"
        }
        return "\(src) ! \(caps) ! videoconvert ! video/x-raw,format=I420 ! appsink name=sink max-buffers=2 drop=true sync=false"
    }

    /// The microphone's branch, in the first camera's pipeline (so both share its clock).
    private var microphoneBranch: String {
        let src = microphone == "default" ? "autoaudiosrc" : microphone
        return " \(src) ! audioconvert ! audioresample ! audio/x-raw,format=F32LE,layout=interleaved,channels=1,rate=48000 ! "
            + "appsink name=mic sync=false max-buffers=0 drop=false"
    }

    /// A read, with a failure after frames have arrived reported as the camera being lost.
    private func lost(_ read: @autoclosure () throws -> ReadResult) throws -> ReadResult {
        do {
            return try read()
        } catch {
            guard let frames = readers.first?.1.framesRead, frames > 0 else { throw error }
            throw SourceLostError(
                "the camera stopped delivering frames after \(frames) (unplugged, or its driver failed): \(error)")
        }
    }

    public mutating func start(_ ctx: inout NodeContext) throws {
        rectification = StereoRectification(path: calibration, rightPath: calibrationRight)
        for dev in [device] + (rightDevice.isEmpty ? [] : [rightDevice]) {
            let hears = readers.isEmpty && microphone != "none"
            let p = try Pipeline(description(for: dev) + (hears ? microphoneBranch : ""))
            let r = try AppSinkReader(pipeline: p, name: "sink", pool: ctx.pool)
            if hears { mic = try AudioSinkReader(pipeline: p, name: "mic") }
            try p.play()
            readers.append((p, r))
        }
        ctx.logger.info("camera started: \(readers.map(\.0.description).joined(separator: " | "))")
    }

    public mutating func process(_ ctx: inout NodeContext) throws {
        guard let first = readers.first else { return }
        switch try lost(first.1.next(timeout: 0.1)) {
        case .timeout: return
        case .endOfStream:
            ctx.endOfStream()
        case .frame(let image, let t):
            if let mic, let heard = try mic.drain() { sound = heard }
            if readers.count == 1 {
                let views = layout.split(image)
                ctx.timestamp = t
                try StereoOutputs.assign(views.left, views.right, rectifying: &rectification, left: _left, right: _right, stereo: _stereo, ctx)
                return
            }
            // Two devices: pair with the right frame nearest in time (within half a frame).
            let half = Int64(5e8 / fps)
            while true {
                switch try lost(readers[1].1.next(timeout: 0.2)) {
                case .timeout: return
                case .endOfStream:
                    ctx.endOfStream()
                    return
                case .frame(let other, let tr):
                    if tr.nanoseconds < t.nanoseconds - half {
                        dropped += 1
                        continue
                    }
                    if tr.nanoseconds > t.nanoseconds + half {
                        dropped += 1
                        return
                    }
                    ctx.timestamp = t
                    try StereoOutputs.assign(image, other, rectifying: &rectification, left: _left, right: _right, stereo: _stereo, ctx)
                    return
                }
            }
        }
    }

    public mutating func finish(_ ctx: inout NodeContext) throws {
        mic = nil
        for (p, _) in readers { p.stop() }
        if dropped > 0 { ctx.logger.info("camera: \(dropped) unpaired frames dropped") }
        readers.removeAll()
    }
}

/// `30` → `30/1`, `29.97` → `30000/1001`.
func fpsFraction(_ fps: Double) -> String {
    if fps == fps.rounded() { return "\(Int(fps))/1" }
    let ntsc = (fps * 1001 / 1000).rounded()
    if abs(ntsc * 1000 / 1001 - fps) < 0.001 { return "\(Int(ntsc) * 1000)/1001" }
    return "\(Int((fps * 1000).rounded()))/1000"
}
