// SalientObjectTracker: tracking focus on anything tapped — finds the object under a point or
// in a box, gives it a new salientObject ID and follows it frame to frame (by its look, or in
// the disparity map alone when there is no picture).
import CineMedia

/// Objects found at points (or in boxes) and followed over frames, for tracking focus on
/// anything a user taps.
///
/// ``start(at:disparity:luma:)`` finds the object under the point and starts a track with a new
/// ID (type `salientObject`, its own group). With the frame's picture, the extent comes from
/// colour and edges, and from disparity too where there is a map (``TappedObjectFinder``), and
/// the object is followed by its look (``AppearanceTracker``): it needs no disparity map (one
/// lens), and an object that is hidden or leaves the frame is reported lost within a few frames
/// (it is then left out of the detections, and comes back with the same ID if it is found
/// again). Its disparity, where there is a map, is the robust disparity inside its box. Without a
/// picture, or for an object too plain to follow by its look, objects are grown in the disparity
/// map alone (``SalientObjectFinder``) each frame, predicted on their motion in between. IDs
/// start at ``firstID``, far above a detector's.
public struct SalientObjectTracker: Sendable {
    /// The first ID given to an object found at a point.
    public static let firstID = 1_000_001
    /// How objects are found in a disparity map alone.
    public var finder = SalientObjectFinder()
    /// How objects are found with a picture.
    public var tappedFinder = TappedObjectFinder()
    /// Frames a disparity-only track survives without being found (it is reported for up to 2 of them).
    public let maximumMisses: Int
    /// Maps wider than this are sampled down by a whole step (nearest sample) before searching.
    public var maximumMapWidth = 480
    private let pool = ImagePool()
    private var tracker: ObjectTracker
    private var ids: [Int] = []
    /// The objects followed by their look, by ID.
    private var looks: [Int: AppearanceTracker] = [:]

    /// Creates a tracker with no objects.
    public init(maximumMisses: Int = 5, firstID: Int = SalientObjectTracker.firstID) {
        var c = ObjectTracker.Configuration()
        c.maxMisses = maximumMisses
        self.maximumMisses = maximumMisses
        tracker = ObjectTracker(configuration: c, firstID: firstID)
    }

    /// Whether no object is tracked.
    public var isEmpty: Bool { ids.isEmpty }

    /// Whether object `id` is followed, and how: `nil` when it is unknown or followed in the
    /// disparity map alone.
    public func status(of id: Int) -> AppearanceTracker.Status? { looks[id]?.status }

    /// Finds the object at `point` and starts tracking it: its detection (a new ID), or `nil`
    /// when there is no object there (background, too small, or no picture and no valid disparity).
    public mutating func start(at point: NormalizedPoint, disparity: DisparityMap?, luma: Image?) -> Detection? {
        if let image = luma {
            var box = tappedFinder.find(at: point, in: image, disparity: disparity)?.bounds
            if box == nil, let disparity {
                box = finder.find(atNormalized: point.x, point.y, disparity: working(disparity), luma: image)?.bounds
            }
            guard let box else { return nil }
            // An object with no texture to follow (a plain surface) is followed in depth alone.
            if let found = start(box: box, image: image, disparity: disparity) { return found }
        }
        guard let disparity else { return nil }
        let map = working(disparity)
        guard let r = finder.find(atNormalized: point.x, point.y, disparity: map, luma: nil) else { return nil }
        let id = tracker.addSalientObject(bounds: r.bounds, disparity: r.disparity)
        ids.append(id)
        return tracker.report().first { $0.id == id }
    }

    /// Starts tracking the object inside `box` of `image` (a box a user dragged): its detection
    /// (a new ID), or `nil` when the box is too small or flat to follow.
    public mutating func start(box: NormalizedRect, image: Image, disparity: DisparityMap?) -> Detection? {
        guard let look = AppearanceTracker(image: image, bounds: box) else { return nil }
        // The ID comes from the same sequence as the disparity-only objects'.
        let id = tracker.addSalientObject(bounds: look.bounds, disparity: nil)
        tracker.remove(id: id)
        looks[id] = look
        ids.append(id)
        let d = disparity?.robustDisparity(in: look.bounds, previous: nil)
        lastDisparity[id] = d
        return Detection(id: id, type: .salientObject, bounds: look.bounds, confidence: 1, disparity: d)
    }

    /// The last disparity of each object followed by its look.
    private var lastDisparity: [Int: Double] = [:]

    /// Follows every object into a new frame and returns the detections of those in view (without
    /// a picture, objects followed by their look keep their place; without a map, disparity-only
    /// ones coast on their motion). Cost: about 1 ms per object followed by its look; one region
    /// growth per disparity-only object.
    public mutating func update(disparity: DisparityMap?, luma: Image?) -> Detections {
        guard !ids.isEmpty else { return [] }
        var out: Detections = []
        for id in ids where looks[id] != nil {
            var look = looks[id]!
            if let luma {
                let o = look.update(luma)
                if case .tracking = o.status {
                    let d = disparity?.robustDisparity(in: o.bounds, previous: lastDisparity[id]) ?? lastDisparity[id]
                    lastDisparity[id] = d
                    out.append(Detection(id: id, type: .salientObject, bounds: o.bounds,
                                         confidence: min(1, max(0, o.score)), disparity: d))
                }
            } else if case .tracking = look.status {
                out.append(Detection(id: id, type: .salientObject, bounds: look.bounds, disparity: lastDisparity[id]))
            }
            if look.isFinished {
                looks[id] = nil
                lastDisparity[id] = nil
            } else {
                looks[id] = look
            }
        }
        ids.removeAll { id in looks[id] == nil && tracker.state(of: id) == nil }
        guard ids.contains(where: { looks[$0] == nil }) else { return out }
        _ = tracker.predict(disparity: nil)
        if let disparity {
            let map = working(disparity)
            for id in ids where looks[id] == nil {
                guard let s = tracker.state(of: id) else { continue }
                let r = finder.find(
                    atNormalized: min(1, max(0, s.bounds.x + s.bounds.width / 2)),
                    min(1, max(0, s.bounds.y + s.bounds.height / 2)),
                    disparity: map, luma: luma, seedDisparity: s.disparity)
                tracker.updateSalientObject(id: id, bounds: r?.bounds, disparity: r?.disparity)
            }
        }
        ids.removeAll { looks[$0] == nil && tracker.state(of: $0) == nil }
        return out + tracker.report().filter { $0.type == .salientObject }
    }

    /// Stops tracking object `id`.
    public mutating func remove(id: Int) {
        looks[id] = nil
        lastDisparity[id] = nil
        tracker.remove(id: id)
        ids.removeAll { $0 == id }
    }

    /// Stops tracking every object.
    public mutating func removeAll() {
        for id in ids { tracker.remove(id: id) }
        ids = []
        looks = [:]
        lastDisparity = [:]
    }

    /// `map`, or a copy sampled down by a whole step to at most ``maximumMapWidth`` samples wide
    /// (disparities stay in full-resolution pixels; the confidence is not needed). Cost: one
    /// float copy per output sample, into a pooled buffer.
    private func working(_ map: DisparityMap) -> DisparityMap {
        let step = (map.values.width + maximumMapWidth - 1) / max(1, maximumMapWidth)
        guard step > 1 else { return map }
        let w = map.values.width / step, h = map.values.height / step
        let values = pool.makeImage(width: w, height: h, format: .float32)
        let source = map.values.plane(0), target = values.plane(0)
        for y in 0..<h {
            let from = source.row(y * step, as: Float.self), to = target.row(y, as: Float.self)
            for x in 0..<w { to[x] = from[x * step] }
        }
        return DisparityMap(values: values, referenceWidth: map.referenceWidth, referenceHeight: map.referenceHeight)
    }
}
