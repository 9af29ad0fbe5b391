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
public struct CinematicScript: Sendable, Hashable, Codable {
    /// The JSON version this build writes and reads.
    public static let currentVersion = 1
    /// The f-numbers a script accepts.
    public static let fNumberRange: ClosedRange<Double> = 1...22

    /// Frames in time order.
    public private(set) var frames: [CinematicFrame] = []
    /// Decisions in time order (equal times keep the order they were added in).
    public private(set) var decisions: [FocusDecision] = []
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

    /// Adds a user decision.
    public mutating func addUserDecision(_ decision: FocusDecision) throws {
        guard decision.kind.isUser else { throw CinematicScriptError.notAUserDecision }
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

    /// The time of the first frame after the decision where its subject is absent, or `nil`
    /// (a fixed plane, or no such frame yet).
    public func trackEnd(of decision: FocusDecision) -> Timestamp? {
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
        transitionRange(before: decision, in: effectiveDecisions())
    }

    private func transitionRange(before decision: FocusDecision, in effective: [EffectiveFocusDecision])
        -> Range<Timestamp>?
    {
        guard let k = effective.firstIndex(where: { $0.decision == decision }), k > 0 else { return nil }
        let e = effective[k], previous = effective[k - 1]
        let from = targetDisparity(of: previous.decision, at: e.time)
        let to = targetDisparity(of: e.decision, at: e.time)
        let seconds = rack.duration(for: from.flatMap { f in to.map { $0 - f } })
        let start = max(previous.time, e.time - Timestamp(seconds: seconds))
        return start..<e.time
    }

    /// The decision focus is on or racking to at `time`.
    public func primaryDecision(at time: Timestamp) -> FocusDecision? { decisionsAround(time).primary }

    /// During a rack, the decision focus is leaving; otherwise `nil`.
    public func secondaryDecision(at time: Timestamp) -> FocusDecision? { decisionsAround(time).secondary }

    private func decisionsAround(_ time: Timestamp) -> (primary: FocusDecision?, secondary: FocusDecision?) {
        let effective = effectiveDecisions()
        let k = effective.partitioningIndex { $0.time > time }
        let current = k > 0 ? effective[k - 1].decision : nil
        if k < effective.count, let r = transitionRange(before: effective[k].decision, in: effective),
            r.contains(time)
        {
            return (effective[k].decision, current)
        }
        return (current, nil)
    }

    /// The focus disparity the rules and the rack law give at `time`: the target's disparity,
    /// or during a rack the S-curve from where the previous target was when it started.
    public func focusDisparity(at time: Timestamp) -> Double? {
        let (primary, secondary) = decisionsAround(time)
        guard let primary else { return nil }
        let to = targetDisparity(of: primary, at: time)
        guard let secondary, let r = transitionTimeRange(before: primary),
            let from = targetDisparity(of: secondary, at: r.lowerBound), let to
        else { return to }
        let p = Double((time - r.lowerBound).nanoseconds) / Double((r.upperBound - r.lowerBound).nanoseconds)
        return from + (to - from) * FocusRack.ease(p)
    }

    // MARK: - JSON

    private enum CodingKeys: String, CodingKey { case version, fNumber, rack, frames, decisions }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let version = try c.decode(Int.self, forKey: .version)
        guard version == Self.currentVersion else { throw CinematicScriptError.unsupportedVersion(version) }
        fNumber = try c.decode(Double.self, forKey: .fNumber)
        rack = try c.decode(FocusRack.self, forKey: .rack)
        frames = try c.decode([CinematicFrame].self, forKey: .frames)
        decisions = try c.decode([FocusDecision].self, forKey: .decisions)
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
