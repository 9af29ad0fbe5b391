// FocusTrack: a detection track of the cinematic script — an object the detector
// followed over frames, a fixed focal plane, or a custom track the user supplied — which
// decisions refer to by ID, and whose extent ends a strong decision.
import CineMedia

/// What a track follows.
public enum FocusTrackKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// An object the detector followed: its ID over the script's frames.
    case detected
    /// A fixed focal plane at one disparity; it never ends.
    case fixedDisparity
    /// Bounds and disparity supplied by the user, per time.
    case custom
}

/// One sample of a custom track: where the object is, and how far, at a time.
public struct FocusTrackSample: Sendable, Hashable, Codable {
    /// When.
    public var time: Timestamp
    /// Bounds in the reference view, normalised.
    public var bounds: NormalizedRect
    /// Disparity in full-resolution pixels.
    public var disparity: Double

    /// Creates a sample.
    public init(time: Timestamp, bounds: NormalizedRect, disparity: Double) {
        self.time = time
        self.bounds = bounds
        self.disparity = disparity
    }

    private enum CodingKeys: String, CodingKey { case timeNanoseconds, bounds, disparity }

    /// Decodes a sample (`timeNanoseconds`, `bounds`, `disparity`).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        time = Timestamp(nanoseconds: try c.decode(Int64.self, forKey: .timeNanoseconds))
        bounds = try c.decode(NormalizedRect.self, forKey: .bounds)
        disparity = try c.decode(Double.self, forKey: .disparity)
    }

    /// Encodes a sample.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(time.nanoseconds, forKey: .timeNanoseconds)
        try c.encode(bounds, forKey: .bounds)
        try c.encode(disparity, forKey: .disparity)
    }
}

/// A detection track: something decisions can focus on, by ``id`` (a decision's
/// `.detection(id)` target).
///
/// Detected tracks are derived from the script's frames (``CinematicScript/detectedTracks()``);
/// fixed-disparity and custom tracks are added by the user
/// (``CinematicScript/addFixedTrack(disparity:)``, ``CinematicScript/addCustomTrack(_:)``) and
/// saved with the script's edits.
public struct FocusTrack: Sendable, Hashable, Codable {
    /// The detection ID decisions use for the track.
    public var id: Int
    /// What the track follows.
    public var kind: FocusTrackKind
    /// The detection type its detections have (`fixedFocus` and `custom` for user tracks).
    public var type: DetectionType
    /// The subject it belongs to (its own ID for user tracks).
    public var groupID: Int
    /// The plane of a fixed-disparity track.
    public var fixedDisparity: Double?
    /// The samples of a custom track, in time order.
    public private(set) var samples: [FocusTrackSample]
    /// A custom track's steps longer than this are gaps: three of its usual (median) steps.
    private var gapStep: Int64?
    /// When the track exists: from its first to its last frame (detected) or sample (custom);
    /// `nil` for a fixed plane, which always exists.
    public var extent: ClosedRange<Timestamp>?

    /// A detected track.
    init(detectedID id: Int, type: DetectionType, groupID: Int, extent: ClosedRange<Timestamp>) {
        self.id = id
        kind = .detected
        self.type = type
        self.groupID = groupID
        fixedDisparity = nil
        samples = []
        self.extent = extent
    }

    /// A fixed-disparity track.
    init(fixedID id: Int, disparity: Double) {
        self.id = id
        kind = .fixedDisparity
        type = .fixedFocus
        groupID = id
        fixedDisparity = disparity
        samples = []
        extent = nil
    }

    /// A custom track; `samples` must be non-empty and in time order.
    init(customID id: Int, samples: [FocusTrackSample]) {
        self.id = id
        kind = .custom
        type = .custom
        groupID = id
        fixedDisparity = nil
        self.samples = samples
        extent = samples.first!.time...samples.last!.time
        if samples.count > 2 {
            let steps = zip(samples.dropFirst(), samples).map { ($0.time - $1.time).nanoseconds }.sorted()
            gapStep = 3 * steps[steps.count / 2]
        }
    }

    /// The track's disparity at `time`: the plane of a fixed track; for a custom track the
    /// samples linearly interpolated (`nil` outside its extent); `nil` for a detected track
    /// (its disparity is in the frames).
    public func disparity(at time: Timestamp) -> Double? {
        switch kind {
        case .fixedDisparity: return fixedDisparity
        case .detected: return nil
        case .custom: return sample(at: time)?.disparity
        }
    }

    /// The custom track's detection at `time` (bounds and disparity interpolated), `nil`
    /// outside its extent, in a gap (the object was hidden: ``isInGap(_:)``) and for other kinds.
    public func detection(at time: Timestamp) -> Detection? {
        guard kind == .custom, !isInGap(time), let s = sample(at: time) else { return nil }
        return Detection(id: id, groupID: groupID, type: .custom, bounds: s.bounds, disparity: s.disparity)
    }

    /// Whether `time` falls between two samples of a custom track further apart than three of
    /// its usual steps (the median step): the object was not seen then — hidden behind something
    /// nearer, or out of the frame — and found again. Its disparity is interpolated across the
    /// gap (focus holds its plane while it is hidden, as a focus puller would), but it has no box.
    public func isInGap(_ time: Timestamp) -> Bool {
        guard let gapStep, let k = samples.firstIndex(where: { $0.time >= time }), k > 0,
              samples[k].time != time else { return false }
        return (samples[k].time - samples[k - 1].time).nanoseconds > gapStep
    }

    private func sample(at time: Timestamp) -> FocusTrackSample? {
        guard let first = samples.first, let last = samples.last, time >= first.time, time <= last.time else {
            return nil
        }
        guard let k = samples.firstIndex(where: { $0.time >= time }) else { return last }
        let b = samples[k]
        if b.time == time || k == 0 { return b }
        let a = samples[k - 1]
        let p = Double((time - a.time).nanoseconds) / Double((b.time - a.time).nanoseconds)
        func mix(_ u: Double, _ v: Double) -> Double { u + (v - u) * p }
        return FocusTrackSample(
            time: time,
            bounds: NormalizedRect(
                x: mix(a.bounds.x, b.bounds.x), y: mix(a.bounds.y, b.bounds.y),
                width: mix(a.bounds.width, b.bounds.width), height: mix(a.bounds.height, b.bounds.height)),
            disparity: mix(a.disparity, b.disparity))
    }

    // MARK: - JSON (user tracks only: `{"id", "kind", "disparity"}` or `{"id", "kind", "samples"}`)

    private enum CodingKeys: String, CodingKey { case id, kind, disparity, samples }

    /// Decodes a user track; anything else is a ``CinematicScriptError``.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let id = try c.decode(Int.self, forKey: .id)
        switch try c.decode(FocusTrackKind.self, forKey: .kind) {
        case .fixedDisparity:
            let d = try c.decode(Double.self, forKey: .disparity)
            guard d.isFinite, d >= 0 else { throw CinematicScriptError.invalidTrack("track \(id): disparity \(d)") }
            self.init(fixedID: id, disparity: d)
        case .custom:
            let samples = try c.decode([FocusTrackSample].self, forKey: .samples)
            try Self.check(samples, id: id)
            self.init(customID: id, samples: samples)
        case .detected:
            throw CinematicScriptError.invalidTrack("track \(id): detected tracks come from the frames, not the file")
        }
    }

    /// Encodes a user track (detected tracks are never written: the frames hold them).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(kind, forKey: .kind)
        try c.encodeIfPresent(fixedDisparity, forKey: .disparity)
        if kind == .custom { try c.encode(samples, forKey: .samples) }
    }

    /// Checks custom samples: at least one, strictly increasing times, bounds within 0…1,
    /// finite non-negative disparities.
    static func check(_ samples: [FocusTrackSample], id: Int?) throws {
        let name = id.map { "track \($0)" } ?? "custom track"
        guard !samples.isEmpty else { throw CinematicScriptError.invalidTrack("\(name) has no samples") }
        for (a, b) in zip(samples, samples.dropFirst()) where b.time <= a.time {
            throw CinematicScriptError.invalidTrack("\(name): samples out of time order at \(b.time)")
        }
        for s in samples {
            let r = s.bounds
            let inside =
                r.x >= 0 && r.y >= 0 && r.width >= 0 && r.height >= 0 && r.x + r.width <= 1 + 1e-9
                && r.y + r.height <= 1 + 1e-9
            guard inside else {
                throw CinematicScriptError.invalidTrack("\(name): bounds at \(s.time) are outside 0...1")
            }
            guard s.disparity.isFinite, s.disparity >= 0 else {
                throw CinematicScriptError.invalidTrack("\(name): disparity \(s.disparity) at \(s.time)")
            }
        }
    }
}
