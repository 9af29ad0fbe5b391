// FocusEngine: the director and focus puller — scores subjects and makes base decisions with
// hysteresis, applies user decisions by the script's rules, and racks focus on the rack curve that
// lands on time when decisions are known ahead (lookahead).
import CineMedia

/// The automatic focus engine as an explicit state machine (all state in ``state``).
///
/// Feed it each frame's detections with ``ingest(time:detections:sceneDisparity:)``; it returns
/// the frames whose lookahead has passed, with their focus. User commands apply at the newest
/// frame's time. Everything it decides is recorded in ``script``. Deterministic: the same
/// inputs and commands give the same outputs and script. Cost: O(n²) in the detections of a
/// frame (n ≤ a few dozen), no allocation beyond small arrays.
public struct FocusEngine: Sendable {
    /// The engine's knobs, fixed at creation.
    public let configuration: FocusEngineConfiguration
    /// Everything remembered between frames.
    public private(set) var state = FocusEngineState()
    /// Frames (if ``FocusEngineConfiguration/recordsFrames``) and every decision made.
    public private(set) var script: CinematicScript

    /// Creates an engine.
    public init(configuration: FocusEngineConfiguration = FocusEngineConfiguration(), fNumber: Double = 4.5) {
        self.configuration = configuration
        script = CinematicScript(
            fNumber: min(
                max(fNumber, CinematicScript.fNumberRange.lowerBound),
                CinematicScript.fNumberRange.upperBound),
            rack: configuration.rack)
    }

    // MARK: - Input

    /// Takes the newest frame: updates the automatic choice, ends user decisions whose track
    /// ended, and returns the frames now `lookahead` old, focused. `sceneDisparity` (for
    /// example the disparity at the centre) is where focus rests before any decision.
    public mutating func ingest(time: Timestamp, detections: Detections, sceneDisparity: Double? = nil)
        -> [FocusEngineOutput]
    {
        if let newest = state.newest, time <= newest { return [] }
        state.newest = time
        state.newestDetections = detections
        chooseBase(time, detections, sceneDisparity: sceneDisparity)
        // A user decision whose subject has left ends; the last base decision resumes.
        if let user = state.user, user.target.isTracked,
            userTrackGroup().map({ g in !detections.contains { $0.groupID == g } }) ?? true
        {
            state.user = nil
            state.userGroup = nil
            if let base = state.lastBase { change(base, at: time) }
        }
        state.pending.append(.init(time: time, detections: detections, sceneDisparity: sceneDisparity))
        var out: [FocusEngineOutput] = []
        let due = time - Timestamp(seconds: configuration.lookahead)
        while let first = state.pending.first, first.time <= due {
            out.append(emit())
        }
        return out
    }

    /// Outputs every frame still waiting for the lookahead (at the end of a stream).
    public mutating func flush() -> [FocusEngineOutput] {
        var out: [FocusEngineOutput] = []
        while !state.pending.isEmpty { out.append(emit()) }
        return out
    }

    // MARK: - User commands

    /// Tracking focus on a detection of the newest frame; weak or strong.
    public mutating func focus(onDetection id: Int, strong: Bool) throws {
        guard let d = state.newestDetections.first(where: { $0.id == id }) else {
            throw CinematicScriptError.unknownDetection(id)
        }
        userDecision(.detection(id), strong: strong, group: d.groupID)
    }

    /// Tracking focus on a detection the caller has just created in the newest frame (a salient
    /// object found at a point); weak or strong. The caller adds it to the following frames'
    /// detections (when it is absent from a frame, the decision ends like any other).
    public mutating func track(_ detection: Detection, strong: Bool) {
        state.newestDetections.removeAll { $0.id == detection.id }
        state.newestDetections.append(detection)
        userDecision(.detection(detection.id), strong: strong, group: detection.groupID)
    }

    /// The newest frame's detections with the focus modes of the decision in force now (what a
    /// viewfinder without lookahead shows, and what ``FocusInteraction`` taps act on): the
    /// target of a strong user decision `strong`, of a weak user or base decision `weak`,
    /// every other `none`.
    public var currentDetections: Detections {
        var out = state.newestDetections
        let decision = state.user ?? state.lastBase
        let group = state.user != nil ? state.userGroup : nil
        let target = decision?.target.locate(in: out, group: group)
        let mode: FocusMode = decision?.kind == .strongUser ? .strong : .weak
        for i in out.indices { out[i].focusMode = out[i].id == target?.id ? mode : .none }
        return out
    }

    /// Fixed focus on a plane at `disparity`; strong keeps it whatever happens in the foreground.
    public mutating func focus(atDisparity disparity: Double, strong: Bool) {
        userDecision(.disparity(disparity), strong: strong, group: nil)
    }

    /// Removes every user decision: the automatic engine's choice takes over again now.
    public mutating func resumeAutomatic() {
        script.removeAllUserDecisions()
        guard state.user != nil else { return }
        state.user = nil
        state.userGroup = nil
        if let base = state.lastBase, let t = state.newest { change(base, at: t) }
    }

    /// Sets the simulated aperture.
    public mutating func setFNumber(_ f: Double) throws { try script.setFNumber(f) }

    private mutating func userDecision(_ target: FocusTarget, strong: Bool, group: Int?) {
        let d = FocusDecision(time: state.newest ?? .zero, target: target, kind: strong ? .strongUser : .weakUser)
        // Recorded unchecked: the target was checked against the newest frame, which the
        // script's frames (if recorded) reach only after the lookahead.
        script.add(d)
        state.user = d
        state.userGroup = group
        change(d, at: d.time, group: group)
    }

    private func userTrackGroup() -> Int? {
        guard let user = state.user else { return nil }
        switch user.target {
        case .group(let g): return g
        case .detection: return state.userGroup
        case .disparity: return nil
        }
    }

    // MARK: - The automatic choice

    /// Whether at least half of `box` lies inside the picture kept when `crop` of it is cropped
    /// away, centred.
    public static func isShown(_ box: NormalizedRect, crop: Double) -> Bool {
        guard crop > 0 else { return true }
        let margin = min(0.5, crop / 2)
        return box.share(inside: NormalizedRect(x: margin, y: margin, width: 1 - 2 * margin, height: 1 - 2 * margin)) >= 0.5
    }

    private struct Candidate {
        var group: Int
        var facing = false
        var area = 0.0
        var disparity: Double?
        var centreDistance = 1.0
    }

    private mutating func chooseBase(_ time: Timestamp, _ detections: Detections, sceneDisparity: Double?) {
        let c = configuration
        var candidates: [Candidate] = []
        for d in detections where Self.isShown(d.bounds, crop: c.crop) {
            let i: Int
            if let k = candidates.firstIndex(where: { $0.group == d.groupID }) {
                i = k
            } else {
                candidates.append(Candidate(group: d.groupID))
                i = candidates.count - 1
            }
            let isFace = d.type == .humanFace || d.type == .catFace || d.type == .dogFace
            if isFace && d.facing != .away { candidates[i].facing = true }
            let b = d.bounds
            candidates[i].area = max(candidates[i].area, b.width * b.height)
            if isFace || candidates[i].disparity == nil {
                candidates[i].disparity = d.disparity ?? candidates[i].disparity
            }
            let dx = b.x + b.width / 2 - 0.5, dy = b.y + b.height / 2 - 0.5
            candidates[i].centreDistance = min(candidates[i].centreDistance, (dx * dx + dy * dy).squareRoot() / 0.7071)
        }
        // Remember subjects: forget those unseen for a while, add newcomers.
        let forget = Timestamp(seconds: c.forgetAfter)
        state.subjects.removeAll { s in time - s.lastSeen > forget && !candidates.contains { $0.group == s.group } }
        // The subject in focus is forgotten: nobody holds focus now, and newcomers qualify sooner.
        if let g = state.baseGroup, !state.subjects.contains(where: { $0.group == g }) {
            state.baseGroup = nil
            state.baseSince = time
            state.restingOnScene = false
        }
        let dwell = state.baseGroup == nil ? min(c.dwell, c.acquireDwell) : c.dwell
        let nearest = candidates.compactMap(\.disparity).max() ?? 0
        var best: (group: Int, score: Double)?
        var currentScore: Double?
        for cand in candidates {
            let k: Int
            if let j = state.subjects.firstIndex(where: { $0.group == cand.group }) {
                k = j
            } else {
                state.subjects.append(
                    .init(group: cand.group, firstSeen: time, lastSeen: time, score: 0, facing: false))
                k = state.subjects.count - 1
            }
            let age = (time - state.subjects[k].firstSeen).seconds
            var score =
                (cand.facing ? c.facingWeight : 0)
                + c.sizeWeight * min(1, cand.area.squareRoot() / 0.577)
                + c.nearnessWeight * (nearest > 0 ? max(0, cand.disparity ?? 0) / nearest : 0)
                + c.centralityWeight * (1 - min(1, cand.centreDistance))
                + c.persistenceWeight * min(1, age / max(c.persistenceSpan, 1e-9))
            if age >= dwell { score += c.newnessWeight * max(0, 1 - (age - dwell) / max(c.newnessSpan, 1e-9)) }
            if cand.facing && state.lookedAway == cand.group { score += c.returnWeight }
            if cand.group == state.baseGroup {
                score += c.stickiness
                currentScore = score
            }
            state.subjects[k].lastSeen = time
            state.subjects[k].score = score
            state.subjects[k].facing = cand.facing
            guard age >= dwell || cand.group == state.baseGroup else { continue }
            if best == nil || score > best!.score || (score == best!.score && cand.group < best!.group) {
                best = (cand.group, score)
            }
        }
        // Something held up to the lens (the detector's showcase, already debounced) gets focus
        // at once, whatever the rule; its group is its holder's, who gets focus back when it is
        // lowered — at the depth their face had, until it is seen again (what they held may have
        // hidden it), for up to 1.5 s.
        if let shown = detections.first(where: { $0.shown == true }) {
            guard shown.id != state.showingID else { return }
            if state.showingID == nil {
                let face = detections.first { $0.groupID == shown.groupID && $0.id != shown.id && $0.shown != true }
                state.holderDisparity = face?.disparity
            }
            state.showingID = shown.id
            state.awaitingHolder = nil
            state.lookedAway = nil
            state.baseGroup = shown.groupID
            state.baseSince = time
            decideBase(.detection(shown.id), at: time)
            return
        }
        if state.showingID != nil {
            state.showingID = nil
            state.baseSince = time
            if let holder = state.baseGroup {
                if candidates.contains(where: { $0.group == holder }) {
                    decideBase(.group(holder), at: time)
                    return
                }
                if let d = state.holderDisparity {
                    state.awaitingHolder = .init(group: holder, since: time)
                    decideBase(.disparity(d), at: time)
                    return
                }
            }
            state.baseGroup = nil
        }
        if let waiting = state.awaitingHolder {
            if candidates.contains(where: { $0.group == waiting.group }) {
                state.awaitingHolder = nil
                state.baseGroup = waiting.group
                state.baseSince = time
                decideBase(.group(waiting.group), at: time)
                return
            }
            if (time - waiting.since).seconds < 1.5 { return }
            state.awaitingHolder = nil
            state.baseGroup = nil
        }
        if c.follow == .speaker, let g = followSpeaker(time, detections) {
            guard g != state.baseGroup else { return }
            // With a lookahead the rack lands just before the speaker's first word.
            var at = time
            if c.lookahead > 0, let since = state.speakingSince[g] {
                at = since - Timestamp(seconds: c.speakerLead)
                if let oldest = state.pending.first?.time { at = max(at, oldest) }
                if let last = state.changes.last?.effective.time { at = max(at, last) }
                at = min(at, time)
            }
            state.lookedAway = nil
            state.baseGroup = g
            state.baseSince = time
            decideBase(.group(g), at: at)
            return
        }
        guard let best else {
            // Nobody holds focus and nobody qualifies: rest on the scene — unless someone is
            // walking in (a subject still in its dwell), whom focus waits for instead of racking
            // away and back.
            if state.baseGroup == nil, !state.restingOnScene, candidates.isEmpty, state.lastBase != nil,
               (time - state.baseSince).seconds >= c.emptyHold - 1e-9 {
                state.restingOnScene = true
                if let scene = sceneDisparity, scene.isFinite { decideBase(.disparity(scene), at: time) }
            }
            return
        }
        guard best.group != state.baseGroup else { return }
        if let current = currentScore {
            let held = (time - state.baseSince).seconds >= c.minimumHold
            guard held && best.score > current + c.switchMargin else { return }
            if let g = state.baseGroup, let s = state.subjects.first(where: { $0.group == g }), !s.facing {
                state.lookedAway = g
            }
        }
        if state.lookedAway == best.group { state.lookedAway = nil }
        state.baseGroup = best.group
        state.baseSince = time
        decideBase(.group(best.group), at: time)
    }

    /// The speaker rule: the group of whoever has been seen speaking for the dwell while the last
    /// speaker is silent (the one who started first, if several); the last speaker while they
    /// are in view; `nil` before anyone has spoken or once the last speaker has left.
    private mutating func followSpeaker(_ time: Timestamp, _ detections: Detections) -> Int? {
        // Per group speaking now: how long its mouth has been seen moving (the detector's
        // `speakingFor`; else since the flag rose) and when that began.
        // An array in detection order, not a dictionary: the engine iterates no dictionary.
        var speaking: [(group: Int, evidence: Double, start: Timestamp)] = []
        for d in detections where d.speaking == true {
            let start = d.speakingFor.map { time - Timestamp(seconds: $0) } ?? state.speakingSince[d.groupID] ?? time
            let evidence = d.speakingFor ?? (time - start).seconds
            if let i = speaking.firstIndex(where: { $0.group == d.groupID }) {
                if speaking[i].evidence < evidence { speaking[i] = (d.groupID, evidence, start) }
            } else {
                speaking.append((d.groupID, evidence, start))
            }
        }
        state.speakingSince = state.speakingSince.filter { g in speaking.contains { $0.group == g.key } }
        for s in speaking { state.speakingSince[s.group] = min(state.speakingSince[s.group] ?? s.start, s.start) }
        if let s = state.speaker, !detections.contains(where: { $0.groupID == s }) { state.speaker = nil }
        if let s = state.speaker, speaking.contains(where: { $0.group == s }) { return s }
        let c = configuration
        // With a lookahead: longer, as long as the rack dated back to the first word still fits in it.
        let room = c.lookahead - c.speakerLead - c.rack.maximumDuration - 0.2
        let dwell = c.lookahead > 0 ? max(c.speakerDwell, min(c.lookaheadSpeakerDwell, room)) : c.speakerDwell
        let qualified = speaking.filter { $0.evidence >= dwell - 1e-9 }
            .compactMap { s in state.speakingSince[s.group].map { (group: s.group, since: $0) } }
            .min { ($0.since, $0.group) < ($1.since, $1.group) }
        if let q = qualified { state.speaker = q.group }
        return state.speaker
    }

    /// A base decision on `target`: recorded, ends a weak user decision, and is racked to unless
    /// a strong user decision holds.
    private mutating func decideBase(_ target: FocusTarget, at time: Timestamp) {
        let decision = FocusDecision(time: time, target: target, kind: .base)
        script.add(decision)
        state.lastBase = decision
        if state.user?.kind == .weakUser {
            state.user = nil
            state.userGroup = nil
        }
        if state.user == nil { change(decision, at: time) }
    }

    /// Records a change of the decision in force, for the output to rack to.
    private mutating func change(_ decision: FocusDecision, at time: Timestamp, group: Int? = nil) {
        if let last = state.changes.last, last.effective.time == time { state.changes.removeLast() }
        state.changes.append(.init(effective: EffectiveFocusDecision(time: time, decision: decision), group: group))
    }

    // MARK: - The focus puller

    /// The disparity of `target` at pending frame `index` or, if absent there, in the next
    /// frames known (a newcomer seen later in the lookahead window). A subject measured at 0 or
    /// less (its box on invalid disparity, such as the left border) counts as not measured.
    private func disparity(of target: FocusTarget, group: Int?, from index: Int) -> Double? {
        if case .disparity(let d) = target { return d }
        for k in index..<state.pending.count {
            if let d = target.disparity(in: state.pending[k].detections, group: group), d > 0, d.isFinite { return d }
        }
        return nil
    }

    /// Focuses and outputs the oldest pending frame.
    private mutating func emit() -> FocusEngineOutput {
        let frame = state.pending[0]
        let t = frame.time
        if state.focusDisparity == nil { state.focusDisparity = frame.sceneDisparity }
        // Start the racks whose start has come: `duration` before the change, or now if late.
        while let change = state.changes.first {
            let next = change.effective, nextGroup = change.group
            let to = disparity(of: next.decision.target, group: nextGroup, from: 0)
            let seconds = configuration.rack.duration(for: state.focusDisparity.flatMap { f in to.map { $0 - f } })
            let start = next.time - Timestamp(seconds: seconds)
            guard t >= start else { break }
            state.changes.removeFirst()
            if let from = state.focusDisparity, to != nil {
                // On time when the lookahead leaves at least the shortest rack; otherwise late.
                let onTime = (next.time - t).seconds >= 0.75 * configuration.rack.minimumDuration
                let end = onTime ? next.time : t + Timestamp(seconds: seconds)
                state.rack = .init(from: from, start: t, end: end)
            }
            state.focusDecision = next.decision
            state.focusGroup = nextGroup
        }
        var progress = 1.0
        var target: Detection?
        if let decision = state.focusDecision {
            target = decision.target.locate(in: frame.detections, group: state.focusGroup)
            if state.focusGroup == nil, let target { state.focusGroup = target.groupID }
            let to = disparity(of: decision.target, group: state.focusGroup, from: 0) ?? state.focusDisparity
            if let rack = state.rack, let to {
                progress = min(
                    1, Double((t - rack.start).nanoseconds) / Double(max(1, (rack.end - rack.start).nanoseconds)))
                state.focusDisparity = rack.from + (to - rack.from) * FocusRack.ease(progress)
                if progress >= 1 { state.rack = nil }
            } else if let to, let from = state.focusDisparity, configuration.followSpeed > 0, let previous = state.emitted {
                // Following: at most `followSpeed`, so a measurement that jumps does not snap focus.
                let step = configuration.followSpeed * max(0, (t - previous).seconds)
                state.focusDisparity = from + max(-step, min(step, to - from))
                state.rack = nil
            } else {
                state.focusDisparity = to
                state.rack = nil
            }
        } else if let scene = frame.sceneDisparity {
            state.focusDisparity = scene
        }
        let mode: FocusMode = state.focusDecision?.kind == .strongUser ? .strong : .weak
        var detections = frame.detections
        for i in detections.indices { detections[i].focusMode = detections[i].id == target?.id ? mode : .none }
        let focus = FocusState(
            focusDisparity: state.focusDisparity ?? 0, fNumber: script.fNumber,
            targetDetectionID: target?.id, transitionProgress: progress)
        if configuration.recordsFrames {
            try? script.append(
                CinematicFrame(
                    time: t, detections: detections, focusDisparity: focus.focusDisparity,
                    focusedDetectionID: target?.id))
        }
        state.pending.removeFirst()
        state.emitted = t
        return FocusEngineOutput(time: t, focus: focus, detections: detections)
    }
}
