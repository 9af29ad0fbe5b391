// Doctor: what this machine has of what cinegraph (or one graph) needs — GStreamer and its
// plugins, the models and LiteRT, v4l2loopback, cameras and their permissions, the CPU's vector
// unit, free disk — each a check with a fix. `cinegraph doctor` prints them.
import CineGStreamer
import CineGraph
import CineInference
import CineNodes
import Foundation

/// One finding: what was checked, what was found, and the fix when it failed.
struct DoctorCheck: Sendable, Equatable {
    enum Status: String, Sendable { case ok, missing, optional }
    var status: Status
    var what: String
    var found: String
    var fix: String?
}

/// The checks, given what the graph needs. Plain functions of the machine's state.
struct Doctor {
    /// Node kinds the graph uses (every kind when no graph is named).
    var kinds: Set<String>
    /// GStreamer elements named in the graph's own descriptions (`gst-source`, `gst-sink`).
    var describedElements: [String] = []
    /// Whether the check covers a named graph (else: the demo is required, the rest optional).
    var forGraph: Bool

    /// The Debian package that ships each element cinegraph uses.
    static let packages: [String: String] = [
        "x264enc": "gstreamer1.0-plugins-ugly", "avenc_ffv1": "gstreamer1.0-libav", "avdec_h264": "gstreamer1.0-libav",
        "matroskamux": "gstreamer1.0-plugins-good", "matroskademux": "gstreamer1.0-plugins-good",
        "qtmux": "gstreamer1.0-plugins-good", "mp4mux": "gstreamer1.0-plugins-good", "qtdemux": "gstreamer1.0-plugins-good", "jpegdec": "gstreamer1.0-plugins-good",
        "v4l2src": "gstreamer1.0-plugins-good", "v4l2sink": "gstreamer1.0-plugins-good", "flacenc": "gstreamer1.0-plugins-good",
        "srtsink": "gstreamer1.0-plugins-bad", "srtsrc": "gstreamer1.0-plugins-bad", "h264parse": "gstreamer1.0-plugins-bad",
        "appsrc": "gstreamer1.0-plugins-base", "appsink": "gstreamer1.0-plugins-base", "videoconvert": "gstreamer1.0-plugins-base",
        "decodebin": "gstreamer1.0-plugins-base", "autoaudiosrc": "gstreamer1.0-plugins-good",
    ]

    /// Elements each node kind needs; an asset's are the asset writer's own list. (A movie's
    /// encoder is chosen from what is installed: ``movieEncoder(required:)`` asks the same code.)
    static let elements: [String: [String]] = [
        "asset": AssetWriter.requiredElements(audio: false), "asset-source": ["matroskademux", "avdec_h264"],
        "movie": ["mp4mux"], "camera": ["v4l2src", "jpegdec"], "virtual-camera": ["v4l2sink"],
        "file": ["decodebin", "qtdemux"], "gst-source": ["appsink"], "gst-sink": ["appsrc"],
    ]
    /// Kinds that run the learned models.
    static let modelKinds: Set<String> = ["detector", "matte", "mono-depth", "depth-refine"]
    /// The model files the learned kinds load.
    static let modelFiles = [
        "face_detection_short_range.tflite", "face_detection_full_range_sparse.tflite", "face_landmark.tflite",
        "pose_detection.tflite", "palm_detection_lite.tflite", "selfie_segmentation.tflite",
        "selfie_segmentation_landscape.tflite",
    ]

    /// What is needed, by this graph or (with none) by the demo.
    func required(_ kind: String) -> Bool { !forGraph ? Self.demoKinds.contains(kind) : kinds.contains(kind) }
    static let demoKinds: Set<String> = ["synthetic", "disparity", "detector", "focus", "asset", "asset-source", "bokeh", "movie"]

    func run() -> [DoctorCheck] {
        var out: [DoctorCheck] = []
        out.append(gstreamer())
        var seen = Set<String>()
        for kind in kinds.sorted() {
            for e in Self.elements[kind] ?? [] where seen.insert(e).inserted {
                out.append(element(e, for: kind, required: required(kind)))
            }
        }
        if kinds.contains("movie") { out.append(movieEncoder(required: required("movie"))) }
        for e in describedElements where seen.insert(e).inserted {
            out.append(element(e, for: "a gst description", required: true))
        }
        if !kinds.isDisjoint(with: Self.modelKinds) {
            out.append(contentsOf: models(required: Self.modelKinds.contains { required($0) }))
        }
        if kinds.contains("camera") { out.append(cameras(required: required("camera"))) }
        if kinds.contains("virtual-camera") { out.append(loopback(required: required("virtual-camera"))) }
        out.append(cpu())
        out.append(disk())
        return out
    }

    func gstreamer() -> DoctorCheck {
        let version = GStreamer.version
        let numbers = version.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        let ok = (try? GStreamer.initialize()) != nil && numbers.count >= 2 && (numbers[0], numbers[1]) >= (1, 20)
        return DoctorCheck(
            status: ok ? .ok : .missing, what: "GStreamer ≥ 1.20", found: version,
            fix: ok ? nil : "sudo apt install libgstreamer1.0-0 gstreamer1.0-plugins-base gstreamer1.0-plugins-good")
    }

    func element(_ name: String, for kind: String, required: Bool) -> DoctorCheck {
        if GStreamer.hasElement(name) { return DoctorCheck(status: .ok, what: "element \(name) (\(kind))", found: "installed") }
        let fix = Self.packages[name].map { "sudo apt install \($0)" } ?? "install the GStreamer plugin that provides \(name)"
        return DoctorCheck(status: required ? .missing : .optional, what: "element \(name) (\(kind))", found: "not installed", fix: fix)
    }

    /// The encoder a movie gets with `encoder: auto` (an .mp4), chosen as the movie node chooses it.
    func movieEncoder(required: Bool) -> DoctorCheck {
        do {
            let encoder = try MovieFormat.videoEncoder(preference: "auto", container: "mp4")
            return DoctorCheck(status: .ok, what: "a video encoder (movie)", found: encoder)
        } catch {
            return DoctorCheck(
                status: required ? .missing : .optional, what: "a video encoder (movie)", found: "\(error)",
                fix: "sudo apt install gstreamer1.0-plugins-ugly")
        }
    }

    func models(required: Bool) -> [DoctorCheck] {
        let fix = ModelFiles.installHint
        var out: [DoctorCheck] = []
        do {
            // Loaded and run-ready: the runtime opens, and compiles the face model.
            let path = try ModelFiles.resolve("libLiteRt.so")
            _ = try InferenceModel(file: try ModelFiles.resolve("face_detection_short_range.tflite"))
            out.append(DoctorCheck(status: .ok, what: "LiteRT runtime", found: path))
        } catch {
            out.append(DoctorCheck(status: required ? .missing : .optional, what: "LiteRT runtime", found: "\(error)", fix: fix))
        }
        let found = Self.modelFiles.compactMap { try? ModelFiles.resolve($0) }
        let missing = Self.modelFiles.filter { (try? ModelFiles.resolve($0)) == nil }
        if missing.isEmpty, let first = found.first {
            out.append(
                DoctorCheck(
                    status: .ok, what: "models (\(found.count))", found: URL(fileURLWithPath: first).deletingLastPathComponent().path))
        } else {
            out.append(
                DoctorCheck(
                    status: required ? .missing : .optional, what: "models", found: "missing: \(missing.joined(separator: ", "))",
                    fix: fix))
        }
        return out
    }

    func cameras(required: Bool) -> DoctorCheck {
        let outputs = Set(V4L2Loopback.outputs().map(\.path))
        let nodes = ((try? FileManager.default.contentsOfDirectory(atPath: "/dev")) ?? []).filter { $0.hasPrefix("video") }
            .sorted().map { "/dev/" + $0 }.filter { !outputs.contains($0) }
        guard !nodes.isEmpty else {
            return DoctorCheck(
                status: required ? .missing : .optional, what: "a camera", found: "no /dev/video* device",
                fix: "plug in a camera (or use graphs with the synthetic camera: cinegraph demo)")
        }
        let unreadable = nodes.filter { access($0, R_OK | W_OK) != 0 }
        if unreadable.count == nodes.count {
            return DoctorCheck(
                status: required ? .missing : .optional, what: "a camera", found: "\(nodes.joined(separator: ", ")) not readable",
                fix: "sudo usermod -aG video $USER, then log in again")
        }
        return DoctorCheck(status: .ok, what: "a camera", found: nodes.filter { !unreadable.contains($0) }.joined(separator: ", "))
    }

    func loopback(required: Bool) -> DoctorCheck {
        let modprobe = "sudo apt install v4l2loopback-dkms; " + VirtualCameraNode.modprobe
        guard FileManager.default.fileExists(atPath: "/sys/module/v4l2loopback") else {
            return DoctorCheck(status: required ? .missing : .optional, what: "v4l2loopback", found: "module not loaded", fix: modprobe)
        }
        let caps = (try? String(contentsOfFile: "/sys/module/v4l2loopback/parameters/exclusive_caps", encoding: .utf8)) ?? ""
        guard caps.contains("Y") || caps.contains("1") else {
            return DoctorCheck(
                status: required ? .missing : .optional, what: "v4l2loopback", found: "loaded without exclusive_caps (browsers will not list it)",
                fix: "sudo modprobe -r v4l2loopback; " + VirtualCameraNode.modprobe)
        }
        let outputs = V4L2Loopback.outputs().map(\.path)
        return DoctorCheck(status: .ok, what: "v4l2loopback", found: outputs.isEmpty ? "loaded" : outputs.joined(separator: ", "))
    }

    /// The release build targets AVX2 (haswell) where the CPU has it, AVX-512 where it has that.
    func cpu() -> DoctorCheck {
        let info = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let flags = Set(info.split(separator: "\n").first { $0.hasPrefix("flags") }?.split(separator: " ").map(String.init) ?? [])
        let unit = flags.contains("avx512bw") ? "AVX-512" : flags.contains("avx2") ? "AVX2" : "SSE only"
        let cores = ProcessInfo.processInfo.activeProcessorCount
        return DoctorCheck(
            status: flags.contains("avx2") ? .ok : .optional, what: "CPU vector unit", found: "\(unit), \(cores) cores",
            fix: flags.contains("avx2") ? nil : "this CPU has no AVX2: build with `make ARCH= release` (about 2-3x slower per frame)")
    }

    /// A 1080p30 cinematic asset takes about 0.5 GB a minute (H.264 near-lossless plus FFV1 disparity).
    func disk(folder: String = FileManager.default.currentDirectoryPath) -> DoctorCheck {
        var s = statvfs()
        guard statvfs(folder, &s) == 0 else {
            return DoctorCheck(status: .optional, what: "free disk", found: "cannot read \(folder)")
        }
        let gib = Double(s.f_bavail) * Double(s.f_frsize) / Double(1 << 30)
        let found = String(format: "%.1f GiB in %@ (about %.0f min of 1080p asset)", gib, folder, gib * 2)
        return DoctorCheck(
            status: gib >= 1 ? .ok : .missing, what: "free disk", found: found,
            fix: gib >= 1 ? nil : "free some space, or record to another folder (--set asset.path=…)")
    }
}
