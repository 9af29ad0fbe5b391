// ShowcaseFinder: notices something held up to the lens — a region of the disparity map nearer
// than a face, within the reach of the person whose face it is — and keeps it, debounced, as
// one shown object with a stable identity.
import CineMedia

/// Finds an object someone holds up nearer the lens than their own face (a product shown to
/// the camera), from the disparity map and the tracked faces.
///
/// For each face with a disparity d, the finder looks within the person's reach — from
/// ``reachWidths`` face widths either side of the face and half a face above it down to
/// ``reachBelow`` face heights below it — for map samples at least ``nearerBy`` nearer
/// (disparity ≥ d · (1 + ``nearerBy``) + 1 px). The largest 4-connected region of them counts
/// when it covers at least ``minimumArea`` of the face's area and is not another person (no
/// other face within its columns at its depth). The largest such region, over all the faces,
/// is the one found.
///
/// ``update(map:faces:)`` debounces it: an object is reported from its ``appearFrames``-th
/// frame in a row and kept until it has been missing ``vanishFrames`` frames, under one
/// ``Shown/showing`` number per appearance. Cost: at most the reach window of each face in map
/// samples (a few thousand at 320 × 180).
public struct ShowcaseFinder: Sendable {
    /// One object found in one map.
    public struct Found: Sendable, Hashable {
        /// Its box, normalised to the map's frame.
        public var bounds: NormalizedRect
        /// The median disparity of its region, full-resolution pixels; from a hand, the holder's
        /// face's disparity times ``nearness`` (`nil` when the face has none: one lens).
        public var disparity: Double?
        /// From a hand (one lens): how many times nearer the lens than the holder's face, by the
        /// palm's apparent size against the face's; `nil` from the disparity map.
        public var nearness: Double? = nil
        /// The face (its tracked ID) of whoever holds it.
        public var holder: Int
    }

    /// What ``update(map:faces:)`` reports: the object being shown, and which showing it is.
    public struct Shown: Sendable, Hashable {
        /// The object as found this frame (its last finding while it is briefly missed).
        public var found: Found
        /// Counts the showings since the finder started, from 1: a new number each time an object
        /// appears after none was shown.
        public var showing: Int
    }

    /// How much nearer than the face, relatively (0.4: disparity 40 % larger, depth 29 % less —
    /// an arm held out, not a cup at the chest, 25 cm in front of a face a metre away).
    public var nearerBy = 0.4
    /// The reach either side of the face's centre, in face widths.
    public var reachWidths = 2.5
    /// The reach below the face's bottom, in face heights.
    public var reachBelow = 3.0
    /// The smallest region counted, as a share of the face's area.
    public var minimumArea = 0.25
    /// Frames in a row an object must be found before it is reported.
    public var appearFrames = 2
    /// Frames an object may be missing before it is no longer reported.
    public var vanishFrames = 3
    /// One lens: the side of the palm detector's box on an adult's hand at 1 m, metres, over
    /// the height of a face's box (chin to hairline, as ``MonoDepth``'s): how a palm's apparent
    /// size compares with a face's at the same distance.
    public var palmToFace = 0.46
    /// One lens: the held object as the palm's box grown by this many palm sides on each side
    /// and, where the detector gave the knuckles, the same box moved a palm's side on past them
    /// (the hand and what its fingers hold).
    public var objectMargin = 0.5

    private var streak = 0
    private var missing = 0
    private var last: Found?
    private var reported = false
    private var showings = 0

    /// Whether an object was found in the last update or is being reported: a caller that looks
    /// for hands only now and then looks at every frame meanwhile, so that a showing is
    /// confirmed, followed and ended frame by frame.
    public var isWatching: Bool { streak > 0 || reported }

    /// Creates a finder with the default reach and thresholds.
    public init() {}

    /// The object held up in `map` by the owner of one of `faces` (humanFace detections with a
    /// disparity), if any; stateless.
    public func find(map: DisparityMap, faces: [Detection]) -> Found? {
        let values = map.values
        let w = values.width, h = values.height
        guard w > 2, h > 2 else { return nil }
        let plane = values.plane(0)
        var best: (found: Found, area: Int)?
        let people = faces.filter { $0.type == .humanFace && ($0.disparity ?? 0) > 0 }
        for face in people {
            guard let d = face.disparity else { continue }
            let b = face.bounds, r = reach(of: face)
            let x0 = max(0, Int((r.x * Double(w)).rounded(.down)))
            let x1 = min(w - 1, Int(((r.x + r.width) * Double(w)).rounded(.up)))
            let y0 = max(0, Int((r.y * Double(h)).rounded(.down)))
            let y1 = min(h - 1, Int(((r.y + r.height) * Double(h)).rounded(.up)))
            guard x1 > x0, y1 > y0 else { continue }
            let threshold = Float(d * (1 + nearerBy) + 1)
            let ww = x1 - x0 + 1, wh = y1 - y0 + 1
            // 0 = not nearer, 1 = nearer and unvisited, 2 = visited.
            var mask = [UInt8](repeating: 0, count: ww * wh)
            for y in 0..<wh {
                let row = plane.row(y0 + y, as: Float.self)
                for x in 0..<ww where row[x0 + x].isFinite && row[x0 + x] >= threshold { mask[y * ww + x] = 1 }
            }
            let faceArea = b.width * Double(w) * b.height * Double(h)
            var stack: [Int] = []
            for start in mask.indices where mask[start] == 1 {
                var cells: [Int] = []
                mask[start] = 2
                stack.append(start)
                while let c = stack.popLast() {
                    cells.append(c)
                    let cx = c % ww, cy = c / ww
                    if cx > 0, mask[c - 1] == 1 { mask[c - 1] = 2; stack.append(c - 1) }
                    if cx < ww - 1, mask[c + 1] == 1 { mask[c + 1] = 2; stack.append(c + 1) }
                    if cy > 0, mask[c - ww] == 1 { mask[c - ww] = 2; stack.append(c - ww) }
                    if cy < wh - 1, mask[c + ww] == 1 { mask[c + ww] = 2; stack.append(c + ww) }
                }
                guard Double(cells.count) >= minimumArea * faceArea, cells.count > (best?.area ?? 0) else { continue }
                var lx = ww, hx = 0, ly = wh, hy = 0
                var samples: [Float] = []
                samples.reserveCapacity(cells.count)
                for c in cells {
                    let cx = c % ww, cy = c / ww
                    lx = min(lx, cx); hx = max(hx, cx); ly = min(ly, cy); hy = max(hy, cy)
                    samples.append(plane.row(y0 + cy, as: Float.self)[x0 + cx])
                }
                samples.sort()
                let disparity = Double(samples[samples.count / 2])
                let bounds = NormalizedRect(x: Double(x0 + lx) / Double(w), y: Double(y0 + ly) / Double(h),
                                            width: Double(hx - lx + 1) / Double(w), height: Double(hy - ly + 1) / Double(h))
                // Another person nearer (someone passing in front) is not a shown object. A face
                // where the holder's was is the holder's, seen again around what they hold up
                // (it reads the object's disparity).
                let isPerson = people.contains { o in
                    guard o.id != face.id, ObjectTracker.iou(o.bounds, face.bounds) < 0.3, let od = o.disparity else { return false }
                    let ocx = o.bounds.x + o.bounds.width / 2
                    return ocx >= bounds.x && ocx <= bounds.x + bounds.width && abs(od - disparity) <= 0.15 * disparity
                }
                if isPerson { continue }
                best = (Found(bounds: bounds, disparity: disparity, holder: face.id), cells.count)
            }
        }
        return best?.found
    }

    /// One lens: the hand held up nearer the lens than the face of its owner, if any, from the
    /// palms a palm detector found in a frame of `width`×`height` pixels; stateless. A palm
    /// is judged against the largest face within whose reach (``reach(of:)``) its centre lies,
    /// and counts when its apparent size says it is at least ``nearerBy`` nearer than that face: its box's side, over
    /// ``palmToFace`` face heights, is at least 1 + ``nearerBy`` times the face's height. The
    /// nearest such hand is the one found; its box, grown by ``objectMargin`` and towards its
    /// knuckles, stands for what it holds.
    public func find(palms: [PalmDetection], faces: [Detection], width: Int, height: Int) -> Found? {
        var best: (found: Found, nearness: Double)?
        let w = Double(width), h = Double(height)
        let people = faces.filter { $0.type == .humanFace && $0.bounds.height > 0 }
        for palm in palms {
            let p = palm.bounds
            let cx = p.x + p.width / 2, cy = p.y + p.height / 2
            // The hand is its nearest owner's: the largest face within whose reach it is (a
            // hand at someone's chest is nearer than the face of whoever stands behind them).
            let owner = people.filter { face in
                let r = reach(of: face)
                return cx >= r.x && cx <= r.x + r.width && cy >= r.y && cy <= r.y + r.height
            }.max { $0.bounds.height < $1.bounds.height }
            guard let face = owner else { continue }
            let side = palm.side(frameWidth: width)
            let nearness = side / (palmToFace * face.bounds.height * h)
            guard nearness >= 1 + nearerBy, nearness > (best?.nearness ?? 0) else { continue }
            let bounds = Self.held(by: palm, side: side, margin: objectMargin * side, width: w, height: height)
            best = (Found(bounds: bounds, disparity: face.disparity.map { $0 * nearness }, nearness: nearness,
                          holder: face.id), nearness)
        }
        return best?.found
    }

    /// What a hand holds, in the frame's normalised coordinates: its palm's box grown by `margin`
    /// pixels, joined by that box moved `side` pixels from the palm's centre towards its
    /// knuckles (keypoints 1–4), where the fingers close on what they hold.
    static func held(by palm: PalmDetection, side: Double, margin: Double, width w: Double, height: Int) -> NormalizedRect {
        let h = Double(height), p = palm.bounds
        var x0 = p.x * w - margin, x1 = (p.x + p.width) * w + margin
        var y0 = p.y * h - margin, y1 = (p.y + p.height) * h + margin
        if palm.keypoints.count >= 5 {
            let kx = palm.keypoints[1...4].reduce(0) { $0 + $1.x } / 4 * w, ky = palm.keypoints[1...4].reduce(0) { $0 + $1.y } / 4 * h
            let dx = kx - (p.x + p.width / 2) * w, dy = ky - (p.y + p.height / 2) * h
            let length = (dx * dx + dy * dy).squareRoot()
            if length > 1 {
                let mx = dx / length * side, my = dy / length * side
                x0 = min(x0, x0 + mx); x1 = max(x1, x1 + mx); y0 = min(y0, y0 + my); y1 = max(y1, y1 + my)
            }
        }
        x0 = max(0, x0); x1 = min(w, x1); y0 = max(0, y0); y1 = min(h, y1)
        return NormalizedRect(x: x0 / w, y: y0 / h, width: max(0, x1 - x0) / w, height: max(0, y1 - y0) / h)
    }

    /// The region within `face`'s reach where a hand held up to the lens is looked for:
    /// ``reachWidths`` face widths either side of its centre and from half a face above it to
    /// ``reachBelow`` faces below it, normalised (not clipped).
    public func reach(of face: Detection) -> NormalizedRect {
        let b = face.bounds
        return NormalizedRect(x: b.x + b.width / 2 - reachWidths * b.width, y: b.y - 0.5 * b.height,
                              width: 2 * reachWidths * b.width, height: b.height * (1.5 + reachBelow))
    }

    /// Finds this frame's object in the disparity map and debounces it; `nil` while nothing is
    /// (or is yet) shown.
    public mutating func update(map: DisparityMap?, faces: [Detection]) -> Shown? {
        debounce(map.flatMap { find(map: $0, faces: faces) })
    }

    /// One lens: finds this frame's object from the palms (see ``find(palms:faces:width:height:)``)
    /// and debounces it.
    public mutating func update(palms: [PalmDetection], faces: [Detection], width: Int, height: Int) -> Shown? {
        debounce(find(palms: palms, faces: faces, width: width, height: height))
    }

    private mutating func debounce(_ found: Found?) -> Shown? {
        if let found {
            streak += 1
            missing = 0
            last = found
            if !reported && streak >= appearFrames {
                reported = true
                showings += 1
            }
        } else {
            streak = 0
            missing += 1
            if missing >= vanishFrames {
                reported = false
                last = nil
            }
        }
        guard reported, let last else { return nil }
        return Shown(found: last, showing: showings)
    }
}
