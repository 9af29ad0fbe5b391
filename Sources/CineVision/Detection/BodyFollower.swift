// BodyFollower: keeps a confirmed walker through the detection rounds a body detector misses
// them (beside a post, against a busy background), by the look of their head and shoulders.
import CineMedia

/// Follows confirmed walkers between a body detector's hits, by appearance.
///
/// HOG misses a walker for a second or more in some places (in stripes beside a post, against
/// a wall of the same grey), and a track that coasts that long on its velocity drifts off the
/// walker and is dropped; the walker comes back under a new ID.
///
/// **Model.** Each time the detector finds a walker whose box no other body's box touches,
/// their head and upper body (``Configuration/template`` of the box) is kept as a small
/// luma template with its mean colour (an ``AppearanceTracker``'s). In a round the detector
/// misses them, the template is searched for within ``Configuration/searchRadius`` cells of
/// where the ``ObjectTracker`` predicts them; a placement scoring at least
/// ``Configuration/minimumScore`` that does not lie on another seen body moves the track there
/// (``ObjectTracker/follow(id:to:)``). The legs are left out: they change from stride to
/// stride.
///
/// **Limits.** A walker is followed at most ``Configuration/maximumRounds`` rounds in a row
/// without the detector's word (a template can settle on a look-alike background); the template
/// is never learnt from a followed round, only from the detector's boxes. Someone nearer
/// covering the walker does not match the template: the track then coasts and is dropped as
/// before.
///
/// **Cost.** One correlation search a missed walker a round (0.04 ms for a 16-cell template and
/// an 8-cell radius, measured on the wide shot's 60-pixel walkers), and one template a seen
/// walker a round (3 µs).
public struct BodyFollower: Sendable {
    /// The tuning.
    public struct Configuration: Sendable, Hashable {
        /// The part of a body's box kept as its template (fractions of the box): the head and
        /// upper body, the middle across.
        public var template = NormalizedRect(x: 0.25, y: 0.08, width: 0.5, height: 0.5)
        /// Cells along the template's longer side.
        public var templateSide = 16
        /// Search radius around the predicted place, in cells.
        public var searchRadius = 8
        /// A placement under this score is no sighting.
        public var minimumScore = 0.7
        /// Rounds in a row a walker may be followed without the detector seeing them.
        public var maximumRounds = 15
        /// A placement whose body box lies this much inside a seen body's box, or holds this
        /// much of it, is that body (or a part of it), not a walker it hides.
        public var maximumOverlap = 0.5
        /// Room a followed walker needs on either side, free of other bodies' boxes, in box widths.
        public var clearance = 0.5
        /// The least speed of a walker followed, in box widths a frame.
        public var minimumSpeed = 0.02

        /// The defaults.
        public init() {}
    }

    /// The tuning in use.
    public let configuration: Configuration
    /// Per track ID: the walker's template and the rounds followed since the detector last saw them.
    private var walkers: [Int: (look: AppearanceTracker, followed: Int)] = [:]

    /// A follower with `configuration`.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// After a detection round's ``ObjectTracker/update(_:disparity:)``: learns the look of the
    /// walkers the detector saw in `image` and moves the ones it missed to where their look is
    /// found. Returns the IDs followed this round.
    @discardableResult
    public mutating func round(_ image: Image, tracker: inout ObjectTracker) -> [Int] {
        let c = configuration
        let bodies = tracker.followableBodies()
        let alive = Set(bodies.map(\.id))
        walkers = walkers.filter { alive.contains($0.key) }
        let seen = bodies.filter(\.seen)
        var followed: [Int] = []
        for b in bodies {
            if b.seen {
                // Only a box no other body touches: a crossing mixes two people's pixels.
                let alone = !seen.contains { $0.id != b.id && ObjectTracker.iou($0.bounds, b.bounds) > 0 }
                if alone, let look = AppearanceTracker(image: image, bounds: part(of: b.bounds), configuration: lookConfiguration) {
                    walkers[b.id] = (look, 0)
                } else {
                    walkers[b.id]?.followed = 0
                }
                continue
            }
            guard let w = walkers[b.id], w.followed < c.maximumRounds else { continue }
            // Only someone walking: a detector's window on a pole that was taken for a walker
            // stands still.
            guard (b.velocity.x * b.velocity.x + b.velocity.y * b.velocity.y).squareRoot() >= c.minimumSpeed * b.bounds.width
            else { continue }
            // Only a walker alone: beside others, a look-alike neighbour may take the template.
            let m = c.clearance * b.bounds.width
            let around = NormalizedRect(x: b.bounds.x - m, y: b.bounds.y, width: b.bounds.width + 2 * m, height: b.bounds.height)
            guard !bodies.contains(where: { $0.id != b.id && ObjectTracker.iou($0.bounds, around) > 0 }) else { continue }
            let found = w.look.locate(in: image, near: part(of: b.bounds), radius: c.searchRadius)
            guard found.score >= c.minimumScore else { continue }
            let box = whole(from: found.bounds)
            guard !seen.contains(where: { $0.id != b.id && (box.share(inside: $0.bounds) > c.maximumOverlap
                                                           || $0.bounds.share(inside: box) > c.maximumOverlap) }) else { continue }
            tracker.follow(id: b.id, to: box)
            walkers[b.id]?.followed = w.followed + 1
            followed.append(b.id)
        }
        return followed
    }

    /// The template's configuration.
    private var lookConfiguration: AppearanceTracker.Configuration {
        var a = AppearanceTracker.Configuration()
        a.templateSide = configuration.templateSide
        return a
    }

    /// The template's part of body box `b`.
    private func part(of b: NormalizedRect) -> NormalizedRect {
        let t = configuration.template
        return NormalizedRect(x: b.x + t.x * b.width, y: b.y + t.y * b.height, width: t.width * b.width,
                              height: t.height * b.height)
    }

    /// The body box whose template part is `p`.
    private func whole(from p: NormalizedRect) -> NormalizedRect {
        let t = configuration.template
        let w = p.width / t.width, h = p.height / t.height
        return NormalizedRect(x: p.x - t.x * w, y: p.y - t.y * h, width: w, height: h)
    }
}
