// CinematicScript: the frames and focus decisions of a take, the rules that say which decision
// is in force when, the transitions between them, edits, and versioned JSON.
import CineMedia
import Foundation

/// The cinematic script of a take: every frame's detections and focus, and the decisions.
///
/// Rules (docs/focus.md): base decisions come from the automatic engine; a weak user decision
/// holds until the next base decision; a strong user decision holds until the next user
/// decision or until its track ends (its subject's group is absent from a frame); then the last
/// base decision resumes. A track ending ends a weak decision too. A decision's time is when
/// focus must have arrived: the rack is placed before it.
///
/// Decisions on a detection refer to a track (``FocusTrack``): a detected track (the ID over
/// the frames), or a fixed-disparity or custom track the user added. A track ends at the end of
/// its extent (for a detected subject: the first frame after the decision without its group).
public struct CinematicScript: Sendable, Hashable, Codable {
    /// The JSON version this build writes (2: with user tracks).
    public static let currentVersion = 2
    /// The JSON versions this build reads (version 1 has no tracks).
    public static let readableVersions: ClosedRange<Int> = 1...2
    /// The f-numbers a script accepts: the simulated lens's (``LensModel/fNumberRange``,
    /// 1.4…16), so every script renders (docs/focus.md explains the bounds).
    public static let fNumberRange: ClosedRange<Double> = LensModel.fNumberRange

    /// Frames in time order.
    public private(set) var frames: [CinematicFrame] = []
    /// Decisions in time order (equal times keep the order they were added in).
    public private(set) var decisions: [FocusDecision] = []
    /// Fixed-disparity and custom tracks the user added, by ID.
    public private(set) var userTracks: [FocusTrack] = []
    /// The simulated aperture of the whole take.
    public private(set) var fNumber: Double
    /// How racks are timed.
    public var rack: FocusRack

    /// Creates an empty script.
    public init(fNumber: Double = 4.5, rack: FocusRack = FocusRack()) {
        self.fNumber = fNumber
        self.rack = rack
    }

    // MARK: - Recording

    /// Appends a frame; times must increase.
    public mutating func append(_ frame: CinematicFrame) throws {
        if let last = frames.last, frame.time <= last.time { throw CinematicScriptError.frameOutOfOrder }
        frames.append(frame)
    }

    /// Adds a decision of any kind (the engine's base decisions go through here), after those at the same time.
    public mutating func add(_ decision: FocusDecision) {
        let i = decisions.partitioningIndex { $0.time > decision.time }
        decisions.insert(decision, at: i)
    }

    // MARK: - Edits

    /// Adds a user decision. Its target must be a track of the script (a user track, or a
    /// detection ID or group found in the frames) or a fixed plane, else
    /// ``CinematicScriptError/missingTrack(_:)``; a script without frames (decisions only, as
    /// the live node keeps) can check user tracks only.
    public mutating func addUserDecision(_ decision: FocusDecision) throws {
        guard decision.kind.isUser else { throw CinematicScriptError.notAUserDecision }
        if let missing = missingTrack(of: decision.target) { throw CinematicScriptError.missingTrack(missing) }
        add(decision)
    }

    /// Removes a user decision.
    public mutating func removeUserDecision(_ decision: FocusDecision) throws {
        guard decision.kind.isUser else { throw CinematicScriptError.notAUserDecision }
        guard let i = decisions.firstIndex(of: decision) else { throw CinematicScriptError.decisionNotFound(decision) }
        decisions.remove(at: i)
    }

    /// Removes every user decision: the automatic engine's decisions rule again.
    public mutating func removeAllUserDecisions() { decisions.removeAll { $0.kind.isUser } }

    /// Adds a fixed focal plane at `disparity` (full-resolution pixels) as a track under a new
    /// ID; focus on it with a `.detection(track.id)` decision. It never ends.
    @discardableResult
    public mutating func addFixedTrack(disparity: Double) throws -> FocusTrack {
        guard disparity.isFinite, disparity >= 0 else {
            throw CinematicScriptError.invalidTrack("fixed disparity \(disparity) must be finite and not negative")
        }
        let track = FocusTrack(fixedID: nextTrackID(), disparity: disparity)
        userTracks.append(track)
        return track
    }

    /// Adds a custom track (bounds and disparity per time, in time order, bounds within 0…1)
    /// under a new ID; it ends at its last sample.
    @discardableResult
    public mutating func addCustomTrack(_ samples: [FocusTrackSample]) throws -> FocusTrack {
        try FocusTrack.check(samples, id: nil)
        let track = FocusTrack(customID: nextTrackID(), samples: samples)
        userTracks.append(track)
        return track
    }

    /// Removes a fixed or custom track and the user decisions that focus on it.
    public mutating func removeTrack(id: Int) throws {
        guard let i = userTracks.firstIndex(where: { $0.id == id }) else {
            throw CinematicScriptError.notAUserTrack(id)
        }
        userTracks.remove(at: i)
        decisions.removeAll { $0.kind.isUser && ($0.target == .detection(id) || $0.target == .group(id)) }
    }

    /// Sets the simulated aperture of the whole take.
    public mutating func setFNumber(_ f: Double) throws {
        guard Self.fNumberRange.contains(f) else { throw CinematicScriptError.fNumberOutOfRange(f, Self.fNumberRange) }
        fNumber = f
    }

    // MARK: - Frame queries

    /// The frame nearest `time`, if one lies within `tolerance`.
    public func frame(at time: Timestamp, tolerance: Timestamp = .zero) -> CinematicFrame? {
        let i = frames.partitioningIndex { $0.time >= time }
        var best: CinematicFrame?
        for j in [i - 1, i] where j >= 0 && j < frames.count {
            let d = abs(frames[j].time.nanoseconds - time.nanoseconds)
            if d <= tolerance.nanoseconds && (best == nil || d < abs(best!.time.nanoseconds - time.nanoseconds)) {
                best = frames[j]
            }
        }
        return best
    }

    /// The frames whose times lie in `range`.
    public func frames(in range: ClosedRange<Timestamp>) -> ArraySlice<CinematicFrame> {
        let lo = frames.partitioningIndex { $0.time >= range.lowerBound }
        let hi = frames.partitioningIndex { $0.time > range.upperBound }
        return frames[lo..<max(lo, hi)]
    }

    // MARK: - Tracks

    /// The objects of the frames as tracks, by ID: each detection ID with its type, group and
    /// the times of its first and last frame. Cost: one pass over the frames.
    public func detectedTracks() -> [FocusTrack] {
        var index: [Int: Int] = [:]
        var out: [FocusTrack] = []
        for f in frames {
            for d in f.detections {
                if let i = index[d.id] {
                    out[i].extent = out[i].extent!.lowerBound...f.time
                } else {
                    index[d.id] = out.count
                    out.append(FocusTrack(detectedID: d.id, type: d.type, groupID: d.groupID, extent: f.time...f.time))
                }
            }
        }
        return out.sorted { $0.id < $1.id }
    }

    /// Every track, detected and user, by ID.
    public var tracks: [FocusTrack] { (detectedTracks() + userTracks).sorted { $0.id < $1.id } }

    /// The track with `id` (a user track, or a detection ID of the frames), if any.
    public func track(id: Int) -> FocusTrack? {
        userTrack(id) ?? detectedTracks().first { $0.id == id }
    }

    private func userTrack(_ id: Int) -> FocusTrack? { userTracks.first { $0.id == id } }

    /// The ID of the track `target` refers to when the script does not have it; `nil` when it
    /// does, for a fixed plane, and for a script without frames (only user tracks can be checked).
    private func missingTrack(of target: FocusTarget) -> Int? {
        switch target {
        case .disparity: return nil
        case .detection(let id):
            if userTrack(id) != nil || frames.isEmpty { return nil }
            return frames.contains { $0.detections.contains { $0.id == id } } ? nil : id
        case .group(let g):
            if userTracks.contains(where: { $0.groupID == g }) || frames.isEmpty { return nil }
            return frames.contains { $0.detections.contains { $0.groupID == g } } ? nil : g
        }
    }

    /// The ID the next fixed or custom track added to this script gets: one above every ID its
    /// frames, tracks and decisions use.
    public func nextTrackID() -> Int {
        var m = 0
        for f in frames { for d in f.detections { m = max(m, d.id, d.groupID) } }
        for t in userTracks { m = max(m, t.id) }
        for d in decisions {
            switch d.target {
            case .detection(let i), .group(let i): m = max(m, i)
            case .disparity: break
            }
        }
        return m + 1
    }

    // MARK: - Decision queries

    /// The decision nearest `time` within `tolerance` (the last added of equals).
    public func decision(at time: Timestamp, tolerance: Timestamp = .zero) -> FocusDecision? {
        decisions.filter { abs($0.time.nanoseconds - time.nanoseconds) <= tolerance.nanoseconds }
            .min { abs($0.time.nanoseconds - time.nanoseconds) < abs($1.time.nanoseconds - time.nanoseconds) }
    }

    /// The last decision strictly before `time`.
    public func decision(before time: Timestamp) -> FocusDecision? { decisions.last { $0.time < time } }

    /// The first decision strictly after `time`.
    public func decision(after time: Timestamp) -> FocusDecision? { decisions.first { $0.time > time } }

    /// The decisions whose times lie in `range`.
    public func decisions(in range: ClosedRange<Timestamp>) -> [FocusDecision] {
        decisions.filter { range.contains($0.time) }
    }

    // MARK: - Rules

    /// The decisions that take effect, in time order, after applying the rules.
    public func effectiveDecisions() -> [EffectiveFocusDecision] {
        var out: [EffectiveFocusDecision] = []
        var lastBase: FocusDecision?
        var user: (decision: FocusDecision, end: Timestamp?)?
        func take(_ d: FocusDecision, at t: Timestamp) {
            if out.last?.decision == d { return }
            if let last = out.last, last.time == t { out.removeLast() }
            out.append(EffectiveFocusDecision(time: t, decision: d))
        }
        func endUser(before t: Timestamp?) {
            guard let u = user, let end = u.end, t.map({ end <= $0 }) ?? true else { return }
            user = nil
            if let b = lastBase { take(b, at: end) }
        }
        for d in decisions {
            endUser(before: d.time)
            if d.kind == .base {
                lastBase = d
                if user?.decision.kind == .weakUser { user = nil }
                if user == nil { take(d, at: d.time) }
            } else {
                user = (d, trackEnd(of: d))
                take(d, at: d.time)
            }
        }
        endUser(before: nil)
        return out
    }

    /// When the decision's track ends: for a detected subject, the time of the first frame
    /// after the decision where its group is absent; for a custom track, its last sample (or
    /// the decision's time if later); `nil` for a fixed plane or track, or when the subject is
    /// still there at the last frame.
    public func trackEnd(of decision: FocusDecision) -> Timestamp? {
        if case .detection(let id) = decision.target, let t = userTrack(id) {
            return t.extent.map { max(decision.time, $0.upperBound) }
        }
        let start = frames.partitioningIndex { $0.time >= decision.time }
        guard start < frames.count else { return nil }
        let group: Int
        switch decision.target {
        case .disparity: return nil
        case .group(let g): group = g
        case .detection(let id):
            guard let g = frames[start...].lazy.compactMap({ $0.detections.first { $0.id == id }?.groupID }).first
            else { return frames[start].time }
            group = g
        }
        return frames[start...].first { f in !f.detections.contains { $0.groupID == group } }?.time
    }

    /// The disparity of a decision's target at `time` (the nearest frame), if known.
    public func targetDisparity(of decision: FocusDecision, at time: Timestamp) -> Double? {
        if case .disparity(let d) = decision.target { return d }
        if case .detection(let id) = decision.target, let t = userTrack(id) { return t.disparity(at: time) }
        guard let f = frame(at: time, tolerance: Timestamp(nanoseconds: .max / 4)) else { return nil }
        return decision.target.disparity(in: f.detections, group: group(of: decision.target))
    }

    private func group(of target: FocusTarget) -> Int? {
        guard case .detection(let id) = target else { return nil }
        for f in frames { if let d = f.detections.first(where: { $0.id == id }) { return d.groupID } }
        return nil
    }

    /// The time range of the rack that lands on `decision` when it takes effect: it ends at the
    /// effective time and lasts the rack law's duration for the disparity distance from the
    /// previous effective decision (never starting before that one took effect). `nil` when
    /// the decision never takes effect or is the first.
    public func transitionTimeRange(before decision: FocusDecision) -> Range<Timestamp>? {
        let effective = effectiveDecisions()
        guard let k = effective.firstIndex(where: { $0.decision == decision }) else { return nil }
        return transitionRange(at: k, in: effective)
    }

    /// The rack landing on `effective[k]` (a decision can take effect more than once: a base
    /// decision resumes when a user decision's track ends).
    private func transitionRange(at k: Int, in effective: [EffectiveFocusDecision]) -> Range<Timestamp>? {
        guard k > 0, k < effective.count else { return nil }
        let e = effective[k], previous = effective[k - 1]
        let from = targetDisparity(of: previous.decision, at: e.time)
        let to = targetDisparity(of: e.decision, at: e.time)
        let seconds = rack.duration(for: from.flatMap { f in to.map { $0 - f } })
        let start = max(previous.time, e.time - Timestamp(seconds: seconds))
        return start..<e.time
    }

    /// The time range of the rack that leaves `decision` for the next decision to take
    /// effect (``transitionTimeRange(before:)`` of that one); `nil` when `decision` never takes
    /// effect or nothing follows it.
    public func transitionTimeRange(after decision: FocusDecision) -> Range<Timestamp>? {
        let effective = effectiveDecisions()
        guard let k = effective.firstIndex(where: { $0.decision == decision }), k + 1 < effective.count else {
            return nil
        }
        return transitionRange(at: k + 1, in: effective)
    }

    /// The decision focus is on or racking to at `time`.
    public func primaryDecision(at time: Timestamp) -> FocusDecision? { moment(at: time).primary }

    /// During a rack, the decision focus is leaving; otherwise `nil`.
    public func secondaryDecision(at time: Timestamp) -> FocusDecision? { moment(at: time).secondary }

    /// The focus disparity the rules and the rack law give at `time`: the target's disparity,
    /// or during a rack the rack curve from where the previous target was when it started.
    public func focusDisparity(at time: Timestamp) -> Double? { moment(at: time).disparity }

    /// Everything the rules give at `time` in one query. A caller asking frame after frame of a
    /// script it no longer edits (a render) passes ``effectiveDecisions()`` computed once.
    public func moment(at time: Timestamp, effective given: [EffectiveFocusDecision]? = nil) -> FocusMoment {
        let effective = given ?? effectiveDecisions()
        let k = effective.partitioningIndex { $0.time > time }
        let current = k > 0 ? effective[k - 1].decision : nil
        guard let r = transitionRange(at: k, in: effective), r.contains(time) else {
            return FocusMoment(primary: current, secondary: nil, disparity: current.flatMap { targetDisparity(of: $0, at: time) })
        }
        let primary = effective[k].decision
        let to = targetDisparity(of: primary, at: time)
        guard let current, let from = targetDisparity(of: current, at: r.lowerBound), let to else {
            return FocusMoment(primary: primary, secondary: current, disparity: to)
        }
        let p = Double((time - r.lowerBound).nanoseconds) / Double((r.upperBound - r.lowerBound).nanoseconds)
        return FocusMoment(primary: primary, secondary: current, disparity: from + (to - from) * FocusRack.ease(p))
    }

    // MARK: - JSON

    private enum CodingKeys: String, CodingKey { case version, fNumber, rack, frames, decisions, tracks }

    /// Decodes a script of a readable version (1 has no `tracks`); checks the f-number, the
    /// time order, the track IDs and that every decision's track exists.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let version = try c.decode(Int.self, forKey: .version)
        guard Self.readableVersions.contains(version) else { throw CinematicScriptError.unsupportedVersion(version) }
        fNumber = try c.decode(Double.self, forKey: .fNumber)
        rack = try c.decode(FocusRack.self, forKey: .rack)
        frames = try c.decode([CinematicFrame].self, forKey: .frames)
        decisions = try c.decode([FocusDecision].self, forKey: .decisions)
        userTracks = version >= 2 ? try c.decode([FocusTrack].self, forKey: .tracks) : []
        if Set(userTracks.map(\.id)).count != userTracks.count {
            throw CinematicScriptError.corrupt("two tracks share an ID")
        }
        for d in decisions {
            if let missing = missingTrack(of: d.target) { throw CinematicScriptError.missingTrack(missing) }
        }
        guard Self.fNumberRange.contains(fNumber) else {
            throw CinematicScriptError.fNumberOutOfRange(fNumber, Self.fNumberRange)
        }
        guard zip(frames, frames.dropFirst()).allSatisfy({ $0.time < $1.time }),
            zip(decisions, decisions.dropFirst()).allSatisfy({ $0.time <= $1.time })
        else {
            throw CinematicScriptError.corrupt("frames or decisions out of time order")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Self.currentVersion, forKey: .version)
        try c.encode(fNumber, forKey: .fNumber)
        try c.encode(rack, forKey: .rack)
        try c.encode(frames, forKey: .frames)
        try c.encode(decisions, forKey: .decisions)
        try c.encode(userTracks, forKey: .tracks)
    }

    /// The script as versioned JSON.
    public func jsonData() throws -> Data {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        return try e.encode(self)
    }

    /// Loads a script from JSON; an unknown version or damaged data is a ``CinematicScriptError``.
    public init(jsonData data: Data) throws {
        do {
            self = try JSONDecoder().decode(CinematicScript.self, from: data)
        } catch let e as CinematicScriptError {
            throw e
        } catch {
            throw CinematicScriptError.corrupt("\(error)")
        }
    }
}

fileprivate extension Array {
    /// The first index whose element satisfies `belongs` (which must be false then true along the array).
    func partitioningIndex(where belongs: (Element) -> Bool) -> Int {
        var lo = 0, hi = count
        while lo < hi {
            let mid = (lo + hi) / 2
            if belongs(self[mid]) { hi = mid } else { lo = mid + 1 }
        }
        return lo
    }
}

/// What the cinematic script's rules give at one instant (``CinematicScript/moment(at:effective:)``).
public struct FocusMoment: Sendable, Hashable {
    /// The decision focus is on, or racking to.
    public var primary: FocusDecision?
    /// During a rack, the decision focus is leaving; otherwise `nil`.
    public var secondary: FocusDecision?
    /// The focus disparity: the target's, or on the rack curve.
    public var disparity: Double?
}
