// `cinegraph detect`: run the cascade detector on image files and print what it finds.
import ArgumentParser
import CineGStreamer
import CineMedia
import CineVision
import Foundation

struct DetectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "detect",
        abstract: "Detect faces, bodies and cat faces in images with OpenCV cascades.",
        discussion: """
            Reads each IMAGE with GStreamer (PNG, JPEG, …) as gray and runs the cascades of the \
            requested types (see docs/detection.md for the type → cascade table), or the given \
            --cascade files, with OpenCV's detectMultiScale semantics. Prints one line per object \
            (`file type x y width height`, pixels) or, with --json, one JSON object per image.
            """)

    @Argument(help: "Image files.") var images: [String]
    @Option(help: "Comma-separated types: humanFace, humanBody, catFace.") var types = "humanFace"
    @Option(help: "Cascade XML file(s) to run instead of the type table (repeatable); reported as type `custom`.")
    var cascade: [String] = []
    @Option(help: "Scale factor between pyramid levels (> 1).") var scaleFactor = 1.1
    @Option(help: "Neighbours a detection needs (OpenCV minNeighbors).") var minNeighbors = 3
    @Option(help: "Smallest object side in pixels.") var minSize = 0
    @Option(help: "Threads (1 = single-threaded).") var threads = ProcessInfo.processInfo.activeProcessorCount
    @Flag(help: "Print JSON.") var json = false
    @Flag(help: "Only the first (primary) cascade of each type.") var primaryOnly = false

    func run() throws {
        var wanted: [(DetectionType, Facing, String)] = []
        if cascade.isEmpty {
            let catalog = CascadeCatalog.standard
            for name in types.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
                let t: DetectionType
                do { t = try catalog.type(named: name) } catch let e as CascadeError { throw ValidationError(e.description) }
                guard let list = catalog.entries[t] else {
                    throw ValidationError("type \(name) has no cascade (salientObject needs a point and a disparity map)")
                }
                for e in primaryOnly ? Array(list.prefix(1)) : list {
                    do { wanted.append((t, e.facing, try CascadeCatalog.resolve(e.file))) } catch let e as CascadeError {
                        throw ValidationError(e.description)
                    }
                }
            }
        } else {
            wanted = cascade.map { (.custom, .unknown, $0) }
        }
        // The cascades load side by side (parsing is most of a one-photo run's start-up).
        let files = wanted.map(\.2), loaded = CascadeLoads(count: wanted.count)
        DispatchQueue.concurrentPerform(iterations: files.count) { i in
            loaded.set(i, Result { try CascadeClassifier(contentsOf: files[i]) })
        }
        var jobs: [(DetectionType, Facing, CascadeDetector)] = []
        for (i, w) in wanted.enumerated() {
            do { jobs.append((w.0, w.1, CascadeDetector(try loaded.get(i)))) } catch let e as CascadeError {
                throw ValidationError(e.description)
            }
        }
        var params = CascadeDetector.Parameters(scaleFactor: scaleFactor, minNeighbors: minNeighbors,
                                                minWidth: minSize, minHeight: minSize, threads: threads)
        params.threads = threads
        var out: [[String: Any]] = []
        for path in images {
            let img = try ImageFile.read(path, as: .gray8)
            var found: [[String: Any]] = []
            let t0 = Date()
            for (type, facing, det) in jobs {
                let rects: [CascadeRect]
                do { rects = try det.detect(in: img, parameters: params) } catch let e as CascadeError {
                    throw ValidationError("\(path): \(e)")
                }
                for r in rects {
                    if !json { print("\(path) \(type.rawValue) \(r.x) \(r.y) \(r.width) \(r.height)") }
                    found.append(["type": type.rawValue, "facing": facing.rawValue, "cascade": det.classifier.source,
                                  "x": r.x, "y": r.y, "width": r.width, "height": r.height])
                }
            }
            let ms = Date().timeIntervalSince(t0) * 1000
            if !json { printError(String(format: "%@: %dx%d, %d objects, %.1f ms", path, img.width, img.height, found.count, ms)) }
            out.append(["image": path, "width": img.width, "height": img.height, "milliseconds": ms, "objects": found])
        }
        if json {
            let data = try JSONSerialization.data(withJSONObject: out, options: [.prettyPrinted, .sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        }
    }
}

/// Cascades loaded on several threads, each into its own slot.
private final class CascadeLoads: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Result<CascadeClassifier, any Error>?]
    init(count: Int) { results = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ r: Result<CascadeClassifier, any Error>) { lock.withLock { results[i] = r } }
    func get(_ i: Int) throws -> CascadeClassifier { try lock.withLock { results[i]! }.get() }
}
