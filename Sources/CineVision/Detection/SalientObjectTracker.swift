// SalientObjectTracker: tracking focus at a point — finds the object under a point
// (SalientObjectFinder), gives it a new salientObject ID and follows it frame to frame.
import CineMedia

/// Objects found at points and followed over frames, for tracking focus at a point.
///
/// ``start(at:disparity:luma:)`` grows the region under the point (``SalientObjectFinder``)
/// and starts a track with a new ID (type `salientObject`, its own group); each frame
/// ``update(disparity:luma:)`` predicts every track's box on its motion and grows the region
/// again from the box's centre, seeded with the track's disparity. A track lost for
/// ``maximumMisses`` frames is dropped (its decision then ends like any subject leaving).
/// IDs start at ``firstID``, far above a detector's, so the two never collide. Maps wider than
/// ``maximumMapWidth`` are sampled down first (region growing costs one visit per sample of the
/// object: a full-resolution 1080p map would cost ~10 ms a frame).
public struct SalientObjectTracker: Sendable {
    /// The first ID given to an object found at a point.
    public static let firstID = 1_000_001
    /// How objects are found.
    public var finder = SalientObjectFinder()
    /// Frames a track survives without being found (it is reported for up to 2 of them).
    public let maximumMisses: Int
    /// Maps wider than this are sampled down by a whole step (nearest sample) before searching.
    public var maximumMapWidth = 480
    private let pool = ImagePool()
    private var tracker: ObjectTracker
    private var ids: [Int] = []

    /// Creates a tracker with no objects.
    public init(maximumMisses: Int = 5, firstID: Int = SalientObjectTracker.firstID) {
        var c = ObjectTracker.Configuration()
        c.maxMisses = maximumMisses
        self.maximumMisses = maximumMisses
        tracker = ObjectTracker(configuration: c, firstID: firstID)
    }

    /// Whether no object is tracked.
    public var isEmpty: Bool { ids.isEmpty }

    /// Finds the object at `point` and starts tracking it: its detection (a new ID), or `nil`
    /// when there is no object there (background, invalid disparity, too small).
    public mutating func start(at point: NormalizedPoint, disparity: DisparityMap, luma: Image?) -> Detection? {
        let map = working(disparity)
        guard let r = finder.find(atNormalized: point.x, point.y, disparity: map, luma: luma) else { return nil }
        let id = tracker.addSalientObject(bounds: r.bounds, disparity: r.disparity)
        ids.append(id)
        return tracker.report().first { $0.id == id }
    }

    /// Follows every object into a new frame and returns their detections (without a map,
    /// the boxes coast on their motion). Cost: one region growth per object.
    public mutating func update(disparity: DisparityMap?, luma: Image?) -> Detections {
        guard !ids.isEmpty else { return [] }
        _ = tracker.predict(disparity: nil)
        if let disparity {
            let map = working(disparity)
            for id in ids {
                guard let s = tracker.state(of: id) else { continue }
                let r = finder.find(
                    atNormalized: min(1, max(0, s.bounds.x + s.bounds.width / 2)),
                    min(1, max(0, s.bounds.y + s.bounds.height / 2)),
                    disparity: map, luma: luma, seedDisparity: s.disparity)
                tracker.updateSalientObject(id: id, bounds: r?.bounds, disparity: r?.disparity)
            }
        }
        ids.removeAll { tracker.state(of: $0) == nil }
        return tracker.report().filter { $0.type == .salientObject }
    }

    /// Stops tracking every object.
    public mutating func removeAll() {
        for id in ids { tracker.remove(id: id) }
        ids = []
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
