// `cinegraph disparity`: match one stereo pair from image files and write the disparity as a
// Middlebury PFM (and optionally a colour-mapped PNG preview).
import ArgumentParser
import CineGStreamer
import CineMedia
import CineVision
import Foundation
import Synchronization

struct DisparityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "disparity",
        abstract: "Compute the disparity of a rectified stereo pair of images.",
        discussion: """
            Reads LEFT and RIGHT (PNG, JPEG and PGM directly; other formats through GStreamer), matches them with the census + \
            semi-global matcher of the `disparity` node, and writes OUT.pfm in the Middlebury \
            convention: little-endian float PFM, rows bottom to top, disparity in pixels of the \
            full-resolution left image (right x = left x − d), invalid pixels +inf.
            """)

    @Argument(help: "The left (reference) image.") var left: String
    @Argument(help: "The right image.") var right: String
    @Option(name: .shortAndLong, help: "Output PFM file.") var output: String
    @Option(help: "Largest disparity searched, in full-resolution pixels.") var maxDisparity = 128
    @Option(help: "Processing scale (1 = full resolution; the map is upsampled back edge-aware).") var scale = 1.0
    @Option(help: "Aggregation paths: 3 or 5.") var paths = 5
    @Option(help: "Threads for the kernels.") var threads = ProcessInfo.processInfo.activeProcessorCount
    @Flag(inversion: .prefixedNo, help: "Fill invalid pixels with the background disparity.") var fillHoles = true
    @Option(help: "Write a colour-mapped PNG of the disparity here (near = warm, far = cool, invalid = black).")
    var preview: String?
    @Option(
        help: """
            Stereo calibration: one OpenCV FileStorage file (YAML/XML: K1 D1 K2 D2 R T, or R1 R2 P1 P2), or \
            the option twice for a pair of ROS camera_info files (left, then right). The pair is rectified first.
            """)
    var calibration: [String] = []

    func run() throws {
        guard calibration.count <= 2 else {
            throw ValidationError("--calibration takes one file, or two ROS camera_info files")
        }
        guard paths == 3 || paths == 5 else { throw ValidationError("--paths must be 3 or 5, got \(paths)") }
        // The two views decode at once, one per core.
        let views = Mutex<[Result<Image, any Error>?]>([nil, nil])
        let files = [left, right]
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            let result = Result { try ImageFile.read(files[i], as: .gray8) }
            views.withLock { $0[i] = result }
        }
        let decoded = views.withLock { $0 }
        var l = try decoded[0]!.get(), r = try decoded[1]!.get()
        if !calibration.isEmpty {
            guard l.width == r.width && l.height == r.height else {
                throw ToolError("\(left) is \(l.width)x\(l.height) but \(right) is \(r.width)x\(r.height)")
            }
            do {
                let c =
                    calibration.count == 1
                    ? try StereoCalibration.load(contentsOf: calibration[0])
                    : try StereoCalibration.load(rosLeft: calibration[0], rosRight: calibration[1])
                let rectified = try StereoRectifier(
                    calibration: c, width: l.width, height: l.height,
                    file: calibration.joined(separator: ", ")
                )
                .rectify(StereoFrame(left: l, right: r))
                (l, r) = (rectified.left, rectified.right)
            } catch {
                throw ToolError("\(error)")
            }
        }
        var c = StereoMatcher.Configuration(
            scale: scale, maxDisparity: maxDisparity, paths: paths == 3 ? .three : .five, fillHoles: fillHoles,
            upsampling: scale < 1 ? .edgeAware : .none, threads: threads)
        c.speckleSize = max(20, Int(40 * scale * scale * Double(l.width * l.height) / (480 * 270 * 16 * 0.0625)))
        let map: DisparityMap
        do {
            let matcher = try StereoMatcher(c)
            let t0 = Date()
            map = try matcher.match(left: l, right: r)
            printError(
                String(format: "disparity: %dx%d, %.0f ms", l.width, l.height, Date().timeIntervalSince(t0) * 1000))
        } catch {
            throw ToolError("\(left), \(right): \(error)")
        }
        do {
            try PortableFloatMap(values: map.values).write(to: output)
        } catch {
            throw ToolError("\(error)")
        }
        if let preview { try Self.writePreview(map.values, maxDisparity: Float(maxDisparity), to: preview) }
    }

    /// Writes a colour-mapped PNG.
    static func writePreview(_ values: Image, maxDisparity: Float, to path: String) throws {
        let w = values.width, h = values.height
        let rgba = Image(width: w, height: h, format: .rgba8)
        let src = values.plane(0), dst = rgba.plane(0)
        for y in 0..<h {
            let s = src.row(y, as: Float.self), d = dst.row(y, as: UInt8.self)
            for x in 0..<w {
                let (r, g, b) = colour(s[x].isFinite ? min(1, max(0, s[x] / maxDisparity)) : -1)
                d[4 * x] = r; d[4 * x + 1] = g; d[4 * x + 2] = b; d[4 * x + 3] = 255
            }
        }
        try ImageFile.write(rgba, to: path)
    }

    /// A perceptual-ish ramp: far (0) dark blue → cyan → yellow → near (1) red; black if invalid.
    static func colour(_ t: Float) -> (UInt8, UInt8, UInt8) {
        if t < 0 { return (0, 0, 0) }
        let stops: [(Float, Float, Float)] = [(0.05, 0.05, 0.4), (0.0, 0.6, 0.9), (0.95, 0.9, 0.1), (0.85, 0.05, 0.05)]
        let f = t * 3, i = min(2, Int(f)), u = f - Float(i)
        let a = stops[i], b = stops[i + 1]
        func c(_ x: Float, _ y: Float) -> UInt8 { UInt8(max(0, min(255, (x + (y - x) * u) * 255))) }
        return (c(a.0, b.0), c(a.1, b.1), c(a.2, b.2))
    }
}
