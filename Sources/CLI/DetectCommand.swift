// `cinegraph detect`: run the face model (BlazeFace on LiteRT) or the cascades on image files and
// print what they find.
import ArgumentParser
import CineGStreamer
import CineGraph
import CineInference
import CineMedia
import CineNodes
import CineVision
import Foundation
import Synchronization
import Logging

struct DetectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "detect",
        abstract: "Detect faces (a learned model, as the detector node does), bodies and cat faces in images and movies.",
        discussion: """
            Faces come from MediaPipe's BlazeFace run by LiteRT (`--model blazeface`, the default): \
            the short-range model on the whole photo and on overlapping squares of it at every \
            scale (`--face-tiles auto`), so faces of any size are found; then MediaPipe's face \
            landmark model looks at each one, drops what is not a face (presence below \
            --face-presence) and gives the head's yaw, pitch and roll (degrees) and whether it \
            faces the camera. `--model haar` or `lbp` uses OpenCV's cascades instead. \
            Bodies come from BlazePose's person detector (the body its hips and shoulders points \
            imply), or from cascades with --model haar or lbp; cat faces are always cascades (see \
            docs/detection.md for the type → cascade table), run with OpenCV's detectMultiScale \
            semantics, as are --cascade files. Prints \
            one line per object (`file type x y width height`, pixels) or, with --json, one JSON \
            object per image. A movie (any other file GStreamer decodes) runs through the \
            `detector` node on every frame, tracking IDs across frames, and prints one JSON line \
            per frame (the `metadata` node's lines, docs/metadata.md); --face-tiles auto is the \
            node's default there.
            """)

    @Argument(help: "Image files (PNG or JPEG) or movies.") var images: [String]
    @Option(help: "Comma-separated types: humanFace, humanBody, catFace.") var types = "humanFace"
    @Option(help: "Face model: blazeface (learned, LiteRT) or the cascade family haar or lbp.")
    var model: DetectorModel = .blazeface
    @Option(help: "BlazeFace model file (a name in .models/ or a path).") var faceModel = BlazeFaceDetector.shortRangeFile
    @Option(help: "Smallest BlazeFace confidence kept.") var faceScore = 0.5
    @Option(help: "Face landmark model (a name in .models/ or a path): checks each face is one and gives the head's pose; none to skip.")
    var landmarkModel = FaceLandmarker.defaultFile
    @Option(help: "Smallest face-presence confidence of the landmark model kept (default 0.6 on photos, stricter than the detector node's 0.5 that movies use: nothing later corrects a box on a photo). By default a face the short-range model scores 0.75 or more is also kept from a presence of 0.05 (small faces); giving this option turns that off.")
    var facePresence: Double?
    @Option(help: "Person detector for humanBody (BlazePose's; a name in .models/ or a path).") var poseModel = PoseDetector.defaultFile
    @Option(help: "Bodies with --model blazeface: both (BlazePose's detector for people near the lens, HOG for people standing or walking from --body-height up), blazepose or hog.")
    var bodyModel: BodyModel = .both
    @Option(help: "HOG's coefficient file (a name in .models/ or a path).") var hogModel = HOGPersonDetector.defaultFile
    @Option(help: "Smallest person HOG looks for, head to feet, in the image's pixels.") var bodyHeight = 48
    @Option(help: "BlazeFace tiles to the image's short side: auto (the whole image, then squares of half, a quarter… of it, so small faces are found too), or a number (0 = the whole image at once).")
    var faceTiles: FaceTiling = .auto
    @Option(help: "Cascade XML file(s) to run instead of the type table (repeatable); reported as type `custom`.")
    var cascade: [String] = []
    @Option(help: "Scale factor between pyramid levels (> 1).") var scaleFactor = 1.1
    @Option(help: "Neighbours a detection needs (OpenCV minNeighbors).") var minNeighbors = 3
    @Option(help: "Smallest object side in pixels: the cascades' smallest window, and with learned faces at every scale the smallest face looked for (0 = 24 px, or a 40th of a larger photo's short side; smaller costs more squares).")
    var minSize = 0
    @Option(help: "Threads (1 = single-threaded).") var threads = ProcessInfo.processInfo.activeProcessorCount
    @Flag(help: "Print JSON.") var json = false
    @Flag(help: "With --json, add each face's 468 landmark points (pixels; x, y, z).") var mesh = false
    @Flag(help: "Only the first (primary) cascade of each type.") var primaryOnly = false
    @Flag(help: "No progress line for movies.") var quiet = false
    @OptionGroup var logging: LoggingOptions

    func run() throws {
        if !images.allSatisfy(MovieTool.isImage) {
            let logger = try logging.bootstrap()
            for path in images where !MovieTool.isImage(path) { try movie(path, logger: logger) }
        }
        let images = images.filter(MovieTool.isImage)
        guard !images.isEmpty else { return }
        var wanted: [(DetectionType, Facing, String)] = []
        var faces: BlazeFaceDetector?
        var facePartner: BlazeFaceDetector?
        var landmarker: FaceLandmarker?
        var people: PoseDetector?
        var walkers: HOGPersonDetector?
        if cascade.isEmpty {
            let catalog = CascadeCatalog.standard
            for name in types.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
                let t: DetectionType
                do { t = try catalog.type(named: name) } catch let e as CascadeError { throw ValidationError(e.description) }
                if t == .humanFace && model == .blazeface {
                    do {
                        faces = try BlazeFaceDetector(file: faceModel, threads: 1)
                        // A second detector on the same model shares the squares on the other core.
                        if threads > 1 && faceTiles == .auto { facePartner = try BlazeFaceDetector(file: faceModel, threads: 1) }
                        if landmarkModel != "none" { landmarker = try FaceLandmarker(file: landmarkModel, threads: 1) }
                    } catch let e as InferenceError {
                        throw ToolError(e.description)
                    }
                    continue
                }
                if t == .humanBody && model == .blazeface {
                    do {
                        if bodyModel != .hog { people = try PoseDetector(file: poseModel, threads: 1) }
                        if bodyModel != .blazepose { walkers = try HOGPersonDetector(file: hogModel) }
                    } catch let e as InferenceError {
                        throw ToolError(e.description)
                    }
                    continue
                }
                // `lbp` has cascades for faces and cats; bodies stay Haar, as in the detector node.
                guard let list = (model == .lbp ? CascadeCatalog.lbp.entries[t] : nil) ?? catalog.entries[t] else {
                    throw ValidationError("type \(name) has no cascade (salientObject needs a point and a disparity map)")
                }
                for e in primaryOnly ? Array(list.prefix(1)) : list {
                    do { wanted.append((t, e.facing, try CascadeCatalog.resolve(e.file))) } catch let e as CascadeError {
                        throw ToolError(e.description)
                    }
                }
            }
        } else {
            wanted = cascade.map { (.custom, .unknown, $0) }
        }
        // The cascades load side by side (parsing is most of a one-photo run's start-up).
        let files = wanted.map(\.2)
        let loads = Mutex<[Result<CascadeClassifier, any Error>?]>(Array(repeating: nil, count: files.count))
        DispatchQueue.concurrentPerform(iterations: files.count) { i in
            let result = Result { try CascadeClassifier(contentsOf: files[i]) }
            loads.withLock { $0[i] = result }
        }
        let loaded = loads.withLock { $0 }
        var jobs: [(DetectionType, Facing, CascadeDetector)] = []
        for (i, w) in wanted.enumerated() {
            do { jobs.append((w.0, w.1, CascadeDetector(try loaded[i]!.get()))) } catch let e as CascadeError {
                throw ToolError(e.description)
            }
        }
        var params = CascadeDetector.Parameters(scaleFactor: scaleFactor, minNeighbors: minNeighbors,
                                                minWidth: minSize, minHeight: minSize, threads: threads)
        params.threads = threads
        var out: [DetectedImage] = []
        for path in images {
            let t0 = Date()
            var found: [DetectedObject] = []
            var size = (width: 0, height: 0)
            // One decode in colour for the learned models.
            let color = faces != nil || people != nil || walkers != nil ? try ImageFile.read(path, as: .rgba8) : nil
            let gray = !jobs.isEmpty ? try ImageFile.read(path, as: .gray8) : nil
            if let color { size = (color.width, color.height) }
            if let faces, let color {
                let detected: [BlazeFaceDetection]
                do {
                    switch faceTiles {
                    case .auto:
                        let smallest = minSize > 0 ? minSize : max(24, min(color.width, color.height) / 40)
                        detected = try faces.detectAtEveryScale(color, smallestFace: smallest, partner: facePartner)
                    case .count(let n): detected = try faces.detect(color, tiles: n)
                    }
                } catch let e as InferenceError {
                    throw ToolError("\(path): \(e.description)")
                }
                // The check the detector node makes — the landmark model confirms each face — and,
                // on a photo with the short-range model, a face the detector is sure of is kept
                // unless the landmark model rules it out: a small face on a photo has no later
                // frame to be found in (a movie does, and there the second vote let the back of
                // a head through; docs/detection.md).
                let checked: [(face: BlazeFaceDetection, mesh: FaceMeshResult?)]
                let sure = facePresence == nil && faceModel == BlazeFaceDetector.shortRangeFile
                    ? (score: 0.75, presence: 0.05) : nil
                do {
                    checked = try landmarker?.confirmed(detected, in: color, minScore: faceScore, minPresence: facePresence ?? 0.6,
                                                        sure: sure)
                        .map { ($0.face, $0.mesh) } ?? detected.filter { $0.score >= faceScore }.map { ($0, nil) }
                } catch let e as InferenceError {
                    throw ToolError("\(path): \(e.description)")
                }
                for (f, mesh) in checked {
                    var object = listed(f.bounds, "humanFace", facing: mesh?.pose.facing ?? f.facing, in: color, path: path)
                    object.model = faces.file
                    object.confidence = (f.score * 1000).rounded() / 1000
                    if let mesh {
                        let r = { (v: Double) in (v * 10).rounded() / 10 }
                        object.presence = (mesh.presence * 1000).rounded() / 1000
                        object.yaw = r(mesh.pose.yaw)
                        object.pitch = r(mesh.pose.pitch)
                        object.roll = r(mesh.pose.roll)
                        if self.mesh {
                            object.mesh = mesh.points.map { [($0.x * 100).rounded() / 100, ($0.y * 100).rounded() / 100, ($0.z * 100).rounded() / 100] }
                        }
                    }
                    found.append(object)
                }
            }
            var poseBodies: [NormalizedRect] = []
            if let people, let color {
                let persons: [PersonDetection]
                do { persons = try people.detect(color) } catch let e as InferenceError { throw ToolError("\(path): \(e.description)") }
                poseBodies = persons.map(\.body)
                for p in persons {
                    let W = Double(color.width), H = Double(color.height)
                    let px = { (v: Double, size: Double) in (v * size * 10).rounded() / 10 }
                    var object = listed(p.body, "humanBody", facing: .unknown, in: color, path: path)
                    object.model = people.file
                    object.confidence = (p.score * 1000).rounded() / 1000
                    object.head = [px(p.head.x, W), px(p.head.y, H), px(p.head.width, W), px(p.head.height, H)]
                    object.keypoints = p.keypoints.map { [px($0.x, W), px($0.y, H)] }
                    found.append(object)
                }
            }
            if let walkers, let color {
                var p = HOGPersonDetector.Parameters()
                p.smallest = bodyHeight
                p.threads = threads
                for person in HOGPersonDetector.unseen(walkers.detect(color, parameters: p), by: poseBodies) {
                    var object = listed(person.bounds, "humanBody", facing: .unknown, in: color, path: path)
                    object.model = walkers.file
                    object.confidence = (person.score * 1000).rounded() / 1000
                    found.append(object)
                }
            }
            if !jobs.isEmpty, let img = gray {
                size = (img.width, img.height)
                try cascades(jobs, on: img, path: path, parameters: params, into: &found)
            }
            // Reading the image counts: the time is what one photo costs once the models are loaded.
            let ms = Date().timeIntervalSince(t0) * 1000
            if !json { printError(String(format: "%@: %dx%d, %d objects, %.1f ms", path, size.width, size.height, found.count, ms)) }
            out.append(DetectedImage(image: path, width: size.width, height: size.height, milliseconds: ms, objects: found))
        }
        if json {
            print(try DetectedObject.json(out))
        }
    }

    /// The movie at `path` through the `detector` node, every frame, its detections as the
    /// `metadata` node's JSON lines on standard output.
    private func movie(_ path: String, logger: Logger) throws {
        var faces: [String: any ParameterValue] = [
            "every": 1, "model": model, "face-model": faceModel, "face-score": faceScore,
            "landmark-model": landmarkModel, "pose-model": poseModel,
            "scale-factor": scaleFactor, "min-neighbors": minNeighbors, "min-size": minSize, "cascades": cascade,
            "types": types.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) },
        ]
        if case .count(let n) = faceTiles { faces["face-tiles"] = n }
        if let facePresence { faces["face-presence"] = facePresence }
        _ = try MovieTool.run(path, name: "detect", progressNode: "lines", logger: logger, quiet: quiet) { g in
            g.add("faces", kind: "detector", inputs: ["image": "source.left"], faces)
            g.add("lines", kind: "metadata", inputs: ["detections": "faces.detections"], ["path": "-"])
        }
    }

    /// A learned model's box in `image`'s pixels, printed as a line unless --json.
    private func listed(_ b: NormalizedRect, _ type: String, facing: Facing, in image: Image, path: String) -> DetectedObject {
        let W = Double(image.width), H = Double(image.height)
        let x = Int((b.x * W).rounded()), y = Int((b.y * H).rounded())
        let w = Int((b.width * W).rounded()), h = Int((b.height * H).rounded())
        if !json { print("\(path) \(type) \(x) \(y) \(w) \(h)") }
        return DetectedObject(type: type, facing: facing.rawValue, x: x, y: y, width: w, height: h)
    }

    /// Runs each cascade job on the gray image and appends what it finds.
    private func cascades(_ jobs: [(DetectionType, Facing, CascadeDetector)], on img: Image, path: String,
                          parameters params: CascadeDetector.Parameters, into found: inout [DetectedObject]) throws {
        for (type, facing, det) in jobs {
            let rects: [CascadeRect]
            do { rects = try det.detect(in: img, parameters: params) } catch let e as CascadeError {
                throw ToolError("\(path): \(e)")
            }
            for r in rects {
                if !json { print("\(path) \(type.rawValue) \(r.x) \(r.y) \(r.width) \(r.height)") }
                var object = DetectedObject(type: type.rawValue, facing: facing.rawValue, x: r.x, y: r.y, width: r.width, height: r.height)
                object.cascade = det.classifier.source
                found.append(object)
            }
        }
    }
}

extension DetectorModel: ExpressibleByArgument {}
extension BodyModel: ExpressibleByArgument {}

/// `--face-tiles`: every scale (`auto`) or a fixed number of squares to the short side.
enum FaceTiling: ExpressibleByArgument, Equatable {
    case auto
    case count(Int)
    init?(argument: String) {
        if argument == "auto" { self = .auto } else if let n = Int(argument), n >= 0 { self = .count(n) } else { return nil }
    }
    var defaultValueDescription: String { if case .count(let n) = self { "\(n)" } else { "auto" } }
}
