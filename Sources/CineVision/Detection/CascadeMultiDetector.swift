// CascadeMultiDetector: the detector stage of the live pipeline — several cascades (faces
// frontal + profile, bodies, cats, custom XML) run on one downscaled luma plane, merged into
// TrackerObservations with confidence from neighbour counts and facing from the cascade.
import CineMedia

/// Runs the cascades of some object types on a frame and returns tracker observations.
///
/// Frames are detected at ``detectWidth`` (the luma plane is downscaled, bit-exact bilinear);
/// each group's confidence is `min(1, neighbours / (2·(minNeighbors+1)))`, so groups that pass
/// `minNeighbors` have confidence ≥ 0.5 (ByteTrack's high set) and weaker groups with at least
/// 2 members are kept as low-confidence observations. A profile-face hit overlapping a frontal
/// one is dropped; a lone profile hit is a face looking away.
public struct CascadeMultiDetector: Sendable {
    /// One loaded cascade with its meaning.
    public struct Member: Sendable {
        /// Type reported for its hits.
        public var type: DetectionType
        /// Facing reported for its hits.
        public var facing: Facing
        /// The detector.
        public var detector: CascadeDetector
    }

    /// Cascades, in order.
    public var members: [Member]
    /// Width of the plane the cascades see (0 = full resolution).
    public var detectWidth: Int
    /// detectMultiScale parameters (minNeighbors is the high-confidence threshold).
    public var parameters: CascadeDetector.Parameters
    /// Whether whole-frame scans also run the `away` (profile) cascades. Off by default: the
    /// profile cascade then runs only around tracked objects, where it tells a known face
    /// turning away (a face entering in profile is found once it turns to the camera).
    public var profilesInFullScans = false

    /// Loads the cascades of `types` from `catalog` plus `extraCascades` (reported as `custom`).
    /// - Throws: ``CascadeError`` for unknown types and unreadable or malformed files.
    public init(types: [String], extraCascades: [String] = [], catalog: CascadeCatalog = .standard, profiles: Bool = true,
                detectWidth: Int = 640, parameters: CascadeDetector.Parameters = .init()) throws {
        var m: [Member] = []
        for name in types {
            let t = try catalog.type(named: name)
            if t == .salientObject { continue }
            for e in catalog.entries[t] ?? [] where profiles || e.facing != .away {
                m.append(Member(type: t, facing: e.facing, detector: CascadeDetector(try CascadeClassifier(contentsOf: CascadeCatalog.resolve(e.file)))))
            }
        }
        for f in extraCascades {
            m.append(Member(type: .custom, facing: .unknown, detector: CascadeDetector(try CascadeClassifier(contentsOf: f))))
        }
        members = m
        self.detectWidth = detectWidth
        self.parameters = parameters
    }

    /// Detects in the luma plane of `image` (gray8, I420 or NV12): the whole frame, or with
    /// `regions` only around those boxes (each grown by 50 % on every side, at scales from
    /// 0.6× to 1.6× its size) — the cheap rounds between full scans while tracking.
    /// - Throws: ``CascadeError`` for other formats.
    public func observe(_ image: Image, around regions: [NormalizedRect]? = nil) throws -> [TrackerObservation] {
        var round = try begin(image, around: regions, parts: 1)
        try scan(image, into: &round)
        return round.observations
    }

    /// Starts a detection spread over `parts` frames: plans the scans on `image`'s size (the
    /// whole frame, or around `regions`). Call ``scan(_:into:)`` once per frame, `parts` times;
    /// the observations come with the last part. Each part scans every `parts`-th pyramid
    /// scale, so a whole-frame scan costs each frame about the same instead of one frame all of it.
    public func begin(_ image: Image, around regions: [NormalizedRect]? = nil, parts: Int) throws -> Round {
        let size = try detectionSize(image)
        return Round(width: size.width, height: size.height, parts: max(1, parts), tasks: plan(size.width, size.height, regions))
    }

    /// A detection in progress: its scans, the raw windows found so far, and how many parts are done.
    public struct Round: Sendable {
        /// Plane size the scans were planned for.
        let width: Int, height: Int
        /// Parts in all, and parts done.
        public let parts: Int
        public private(set) var done = 0
        let tasks: [Task]
        var raw: [[CascadeRect]]

        init(width: Int, height: Int, parts: Int, tasks: [Task]) {
            self.width = width
            self.height = height
            self.parts = parts
            self.tasks = tasks
            raw = Array(repeating: [], count: tasks.count)
        }

        /// Whether every part has been scanned.
        public var isComplete: Bool { done >= parts }
        /// The observations, once complete (empty before).
        public internal(set) var observations: [TrackerObservation] = []
        mutating func finishPart() { done += 1 }
        mutating func abandon() {
            done = parts
            observations = []
        }
    }

    /// One cascade on one window of the plane.
    struct Task: Sendable {
        var member: Int
        var x: Int, y: Int, w: Int, h: Int
        var parameters: CascadeDetector.Parameters
        var mirrored: Bool
    }

    /// Scans the next part of `round` on `image` (the frame of this instant); with the last part
    /// the round's observations are ready. A frame of another size than the round's first ends
    /// the round at once with no observations (the stream changed size; the next round plans anew).
    /// - Throws: ``CascadeError`` for other formats.
    public func scan(_ image: Image, into round: inout Round) throws {
        guard !round.isComplete else { return }
        let p = image.plane(0)
        let size = try detectionSize(image)
        guard size.width == round.width, size.height == round.height else {
            round.abandon()
            return
        }
        let src = UnsafePointer(p.base.assumingMemoryBound(to: UInt8.self))
        if size.width < p.width {
            var buffer = [UInt8](repeating: 0, count: size.width * size.height)
            buffer.withUnsafeMutableBufferPointer {
                CascadeScaler.resize(src, width: p.width, height: p.height, stride: p.stride, into: $0.baseAddress!,
                                     width: size.width, height: size.height, stride: size.width)
            }
            try buffer.withUnsafeBufferPointer { try scanPart($0.baseAddress!, stride: size.width, into: &round) }
        } else {
            try scanPart(src, stride: p.stride, into: &round)
        }
    }

    /// The size of the plane the cascades see for `image`.
    private func detectionSize(_ image: Image) throws -> (width: Int, height: Int) {
        guard image.format == .gray8 || image.format == .i420 || image.format == .nv12 else {
            throw CascadeError(file: "detector", "the detector needs gray8, I420 or NV12 images, got \(image.format)")
        }
        let p = image.plane(0)
        guard detectWidth > 0 && detectWidth < p.width else { return (p.width, p.height) }
        return (detectWidth, max(1, Int((Double(p.height) * Double(detectWidth) / Double(p.width)).rounded())))
    }

    /// The scans of a detection on a `w` × `h` plane: every member on the whole plane, or on
    /// crops around `regions` (profile cascades also mirrored).
    private func plan(_ w: Int, _ h: Int, _ regions: [NormalizedRect]?) -> [Task] {
        // Windows to scan, in plane pixels, with their size limits.
        var jobs: [(x: Int, y: Int, w: Int, h: Int, minSide: Int, maxSide: Int)] = []
        if let regions {
            for r in regions {
                let bw = r.width * Double(w), bh = r.height * Double(h)
                let x0 = max(0, Int(r.x * Double(w) - 0.5 * bw)), y0 = max(0, Int(r.y * Double(h) - 0.5 * bh))
                let x1 = min(w, Int((r.x + r.width) * Double(w) + 0.5 * bw)), y1 = min(h, Int((r.y + r.height) * Double(h) + 0.5 * bh))
                guard x1 - x0 >= 8, y1 - y0 >= 8 else { continue }
                jobs.append((x0, y0, x1 - x0, y1 - y0, max(parameters.minWidth, Int(0.6 * min(bw, bh))), Int(1.6 * max(bw, bh)) + 1))
            }
        } else {
            jobs.append((0, 0, w, h, parameters.minWidth, 0))
        }
        var tasks: [Task] = []
        for (index, m) in members.enumerated() where regions != nil || m.facing != .away || profilesInFullScans {
            for job in jobs {
                var p = parameters
                p.minWidth = max(parameters.minWidth, job.minSide)
                p.minHeight = max(parameters.minHeight, job.minSide)
                if job.maxSide > 0 { p.maxWidth = job.maxSide; p.maxHeight = job.maxSide }
                // A profile cascade knows one side of a face: scan the mirrored crop too, for the other.
                for mirrored in m.facing == .away ? [false, true] : [false] {
                    tasks.append(Task(member: index, x: job.x, y: job.y, w: job.w, h: job.h, parameters: p, mirrored: mirrored))
                }
            }
        }
        return tasks
    }

    /// Runs the next part of every task of `round` on the plane, and merges when it was the last.
    private func scanPart(_ src: UnsafePointer<UInt8>, stride: Int, into round: inout Round) throws {
        let part = round.done, parts = round.parts
        for (i, task) in round.tasks.enumerated() {
            let detector = members[task.member].detector
            if task.mirrored {
                var flipped = [UInt8](repeating: 0, count: task.w * task.h)
                flipped.withUnsafeMutableBufferPointer { f in
                    for y in 0..<task.h {
                        let row = src + (task.y + y) * stride + task.x
                        for x in 0..<task.w { f[y * task.w + task.w - 1 - x] = row[x] }
                    }
                }
                round.raw[i] += try flipped.withUnsafeBufferPointer { f in
                    try detector.candidates(pixels: f.baseAddress!, width: task.w, height: task.h, rowStride: task.w,
                                            parameters: task.parameters, part: part, of: parts).map {
                        CascadeRect(x: task.w - $0.x - $0.width, y: $0.y, width: $0.width, height: $0.height)
                    }
                }
            } else {
                round.raw[i] += try detector.candidates(
                    pixels: src + task.y * stride + task.x, width: task.w, height: task.h, rowStride: stride,
                    parameters: task.parameters, part: part, of: parts)
            }
        }
        round.finishPart()
        if round.isComplete { round.observations = merge(round) }
    }

    /// Groups each task's raw windows and merges them into observations.
    private func merge(_ round: Round) -> [TrackerObservation] {
        var out: [TrackerObservation] = []
        let W = Double(round.width), H = Double(round.height)
        for (task, raw) in zip(round.tasks, round.raw) {
            let m = members[task.member]
            let grouped = RectangleGrouping.group(raw, minNeighbors: 1, eps: 0.2)
            for (r, n) in zip(grouped.rects, grouped.neighbors) {
                let conf = min(1, Double(n) / Double(2 * (parameters.minNeighbors + 1)))
                let b = NormalizedRect(x: Double(r.x + task.x) / W, y: Double(r.y + task.y) / H,
                                       width: Double(r.width) / W, height: Double(r.height) / H)
                // Overlapping crops see the same object: keep the first; a profile under a frontal hit is the same face.
                if out.contains(where: { $0.type == m.type && ObjectTracker.iou($0.bounds, b) > 0.5 }) { continue }
                if m.facing == .away,
                   out.contains(where: { $0.type == m.type && $0.facing == .towards && ObjectTracker.iou($0.bounds, b) > 0.2 }) {
                    continue
                }
                out.append(TrackerObservation(type: m.type, bounds: b, confidence: conf, facing: m.facing))
            }
        }
        return out
    }
}
