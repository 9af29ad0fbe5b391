// EditSession: the editor's model of one take — its records, the recorded script, the user's
// changes with undo and redo, and every frame's focus under them. Plain Swift: no server, no
// GStreamer; the asset is read by the caller and never written.
import CineMedia
import CineVision
import Foundation

/// One take being edited: the recorded script plus the user's changes (decisions and aperture),
/// checked against the take as they are made, with undo, redo and save.
///
/// Every edit snaps to a frame of the take (decisions sit at frame times, so `cinegraph script
/// list` shows exactly what the editor placed). The asset is never written; ``save()`` writes
/// the changes file.
public struct EditSession: Sendable {
    /// The asset's path (for messages and the render).
    public let assetPath: String
    /// The asset's header.
    public let header: AssetHeader
    /// Every frame's metadata record, in time order.
    public let records: [AssetFrameRecord]
    /// Where ``save()`` writes the changes.
    public let changesPath: String
    /// The user's changes as they stand.
    public private(set) var changes: ScriptChanges
    /// The script a render follows: the recorded decisions plus ``changes``.
    public private(set) var script: CinematicScript
    /// Every frame's focus under ``script``.
    public private(set) var focus: [FrameFocus] = []
    /// The changes as last saved (or loaded).
    public private(set) var saved: ScriptChanges
    /// True when there are changes not yet saved.
    public var isDirty: Bool { changes != saved }
    /// True when there is an edit to undo / to redo.
    public var canUndo: Bool { !undoStack.isEmpty }
    public var canRedo: Bool { !redoStack.isEmpty }

    private let recorded: CinematicScript
    /// Every frame's time in nanoseconds.
    let times: [Int64]
    private var undoStack: [ScriptChanges] = []
    private var redoStack: [ScriptChanges] = []
    /// Undo depth kept.
    static let undoLimit = 200
    /// The take's sound as the voice detector heard it, for ``focusOnSpeakers()`` (no voice, no
    /// speaker); `nil` for a take without sound (the lips decide alone).
    public var voice: VoiceActivityDetector?

    /// Opens a take: `records` are its metadata (at least one frame); the changes at
    /// `changesPath` are loaded when the file exists.
    /// - Throws: ``EditError`` (`invalid`) naming the changes file when it is broken, of another
    ///   format, or names subjects this take does not have.
    public init(assetPath: String, header: AssetHeader, records: [AssetFrameRecord], changesPath: String) throws(EditError) {
        guard !records.isEmpty else { throw EditError(.invalid, "\(assetPath) holds no frames") }
        self.assetPath = assetPath
        self.header = header
        self.records = records
        times = records.map(\.time)
        self.changesPath = changesPath
        do { recorded = try CinematicScript(records: records) } catch {
            throw EditError(.invalid, "\(assetPath): its script cannot be rebuilt (\(error))")
        }
        var changes = ScriptChanges()
        if FileManager.default.fileExists(atPath: changesPath) {
            do { changes = try ScriptChanges.load(contentsOf: changesPath) } catch {
                throw EditError(.invalid, "\(error)")
            }
        }
        script = recorded
        self.changes = ScriptChanges()
        saved = changes
        try adopt(changes, source: changesPath)
    }

    // MARK: - Frames

    /// Frames in the take.
    public var frameCount: Int { records.count }
    /// The time of frame `index` (from the start of the take).
    public func time(of index: Int) -> Timestamp { Timestamp(nanoseconds: records[index].time) }
    /// The take's length: its last frame's time plus one frame.
    public var duration: Double { Double(records.last!.time) / 1e9 + 1 / header.fps }

    /// The frame nearest `seconds`; `nil` when the time lies outside the take (by more than half a frame).
    public func index(at seconds: Double) -> Int? {
        guard seconds.isFinite else { return nil }
        let t = Int64((seconds * 1e9).rounded())
        let half = Int64(5e8 / header.fps)
        guard t >= records.first!.time - half && t <= records.last!.time + half else { return nil }
        return FrameTimes.nearest(t, in: times)
    }

    /// The frame at `seconds`, or an `invalid` error naming the take's span.
    public func frame(at seconds: Double) throws(EditError) -> Int {
        guard let i = index(at: seconds) else {
            throw EditError(.invalid, String(format: "%.3f s is outside the take (0…%.3f s)", seconds, duration))
        }
        return i
    }

    // MARK: - Edits

    /// Focuses on `target` from frame `index`: a weak decision (until the next automatic one)
    /// or a strong one (until your next decision or until the subject leaves). A decision of
    /// yours already on that frame is replaced.
    /// - Throws: `notFound` when a detection or group is not in that frame; `invalid` for a
    ///   negative or non-finite disparity.
    public mutating func focus(on target: FocusTarget, at index: Int, strong: Bool) throws(EditError) {
        try commit(placing(FocusDecision(time: time(of: index), target: target, kind: strong ? .strongUser : .weakUser),
                           at: index, in: changes))
    }

    /// What a tap at normalised point (`x`, `y`) of frame `index` does, as the viewfinder's tap:
    /// on a detection, weak focus on it — or strong when your weak decision already follows it
    /// there; elsewhere, focus on the fixed plane at that point's `disparity` (weak; strong on
    /// a second tap). Returns a sentence saying what happened.
    public mutating func tap(at index: Int, x: Double, y: Double, disparity: Double?) throws(EditError) -> String {
        guard (0...1).contains(x), (0...1).contains(y) else {
            throw EditError(.invalid, "a tap needs x and y in 0…1, got \(x), \(y)")
        }
        let now = focus[index]
        let added = addedBoxes(at: index).map { Detection(id: $0.id, type: .salientObject, bounds: $0.bounds) }
        let hit = (records[index].detections + added).filter { d in
            let b = d.bounds
            return x >= b.x && x <= b.x + b.width && y >= b.y && y <= b.y + b.height
        }.min { $0.bounds.width * $0.bounds.height < $1.bounds.width * $1.bounds.height }
        if let hit {
            let strong = now.detectionID == hit.id && now.kind == .weakUser
            if now.detectionID == hit.id && now.kind == .strongUser { return "detection \(hit.id) already has strong focus" }
            try focus(on: .detection(hit.id), at: index, strong: strong)
            return "\(strong ? "strong" : "weak") focus on detection \(hit.id) (\(hit.type.rawValue))"
        }
        guard let disparity, disparity.isFinite else {
            throw EditError(.notFound, String(format: "no depth at (%.2f, %.2f) in this frame: tap a subject or another point", x, y))
        }
        let strong: Bool
        if now.detectionID == nil, now.kind == .weakUser, case .disparity? = decision(at: index)?.target { strong = true } else { strong = false }
        try focus(on: .disparity(disparity), at: index, strong: strong)
        return String(format: "%@ focus on the plane at disparity %.1f px", strong ? "strong" : "weak", disparity)
    }

    /// Adds an object followed through the take (from a tap on something that is not a
    /// detection: ``TakePreview/follow(from:x:y:times:limit:)``) as a track of its own, kept in
    /// the changes like Apple's added detection tracks, with weak (or strong) focus on it from
    /// frame `index`. Returns its ID.
    /// - Throws: `notFound` when there are no samples (nothing was followed).
    public mutating func addTrack(_ samples: [FocusTrackSample], at index: Int, strong: Bool = false) throws(EditError) -> Int {
        guard !samples.isEmpty else { throw EditError(.notFound, "nothing was followed from the frame at \(time(of: index))") }
        let id: Int
        do { id = try changes.nextTrackID(in: recorded) } catch { throw EditError(.invalid, "\(error)") }
        var next = changes
        next.add(ScriptChanges.AddedTrack(id: id, samples: samples))
        try commit(placing(FocusDecision(time: time(of: index), target: .detection(id), kind: strong ? .strongUser : .weakUser),
                           at: index, in: next))
        return id
    }

    /// The box of added track `id` on frame `index`, if it is followed there.
    public func addedBox(of id: Int, at index: Int) -> NormalizedRect? {
        guard let track = changes.tracks.first(where: { $0.id == id }) else { return nil }
        let t = time(of: index)
        return track.samples.first { abs(($0.time - t).nanoseconds) <= halfFrame.nanoseconds }?.bounds
    }

    /// The added tracks followed on frame `index`: their IDs and boxes.
    public func addedBoxes(at index: Int) -> [(id: Int, bounds: NormalizedRect)] {
        changes.tracks.compactMap { t in addedBox(of: t.id, at: index).map { (t.id, $0) } }
    }

    /// Whether a tap at normalised (`x`, `y`) of frame `index` lands on a detection or an added
    /// track (otherwise the editor follows the object there: ``addTrack(_:at:strong:)``).
    public func tapHits(at index: Int, x: Double, y: Double) -> Bool {
        (records[index].detections.map(\.bounds) + addedBoxes(at: index).map(\.bounds)).contains { b in
            x >= b.x && x <= b.x + b.width && y >= b.y && y <= b.y + b.height
        }
    }

    /// Your decision on frame `index`, if there is one.
    public func decision(at index: Int) -> FocusDecision? {
        let t = time(of: index)
        return changes.decisions.first { abs(($0.time - t).nanoseconds) <= halfFrame.nanoseconds }
    }

    /// Removes your decision on frame `index`.
    /// - Throws: `notFound` when there is none, naming where yours are.
    public mutating func removeDecision(at index: Int) throws(EditError) {
        var next = changes
        guard !next.removeDecisions(near: time(of: index), tolerance: halfFrame).isEmpty else { throw noDecision(at: index) }
        try commit(next)
    }

    /// Moves your decision from frame `from` to frame `to` (a drag on the timeline). The subject
    /// it follows must be in the frame at its new time.
    public mutating func moveDecision(from: Int, to: Int) throws(EditError) {
        guard let d = decision(at: from) else { throw noDecision(at: from) }
        if from == to { return }
        var next = changes
        next.removeDecisions(near: time(of: from), tolerance: halfFrame)
        try commit(placing(FocusDecision(time: time(of: to), target: d.target, kind: d.kind), at: to, in: next))
    }

    /// Renders at f/`fNumber` (within ``CinematicScript/fNumberRange``).
    public mutating func setAperture(_ fNumber: Double) throws(EditError) {
        let r = CinematicScript.fNumberRange
        guard fNumber.isFinite, r.contains(fNumber) else {
            throw EditError(.invalid, "f/\(fNumber) is outside f/\(r.lowerBound)…f/\(r.upperBound)")
        }
        var next = changes
        next.fNumber = fNumber
        try commit(next)
    }

    /// Focus on whoever speaks: the speaker rule run over the take (``SpeakerDecisions``, with
    /// lookahead), its decisions added as weak decisions of yours, as one edit (one undo takes
    /// them all back). A decision of yours within half a frame of one of them is replaced.
    /// Returns how many it added.
    /// - Throws: `invalid` when no face in the take was read for speaking.
    public mutating func focusOnSpeakers() throws(EditError) -> Int {
        guard records.contains(where: { $0.detections.contains { $0.speaking != nil } }) else {
            throw EditError(.invalid, "no face in this take was read for speaking (record it with the detector's landmark model, as graphs/interview.conf does)")
        }
        let decisions = SpeakerDecisions.decisions(
            frames: records.map { (Timestamp(nanoseconds: $0.time), $0.detections) }, voice: voice)
        var next = changes
        for d in decisions {
            next.removeDecisions(near: d.time, tolerance: halfFrame)
            do { try next.add(d) } catch { throw EditError(.invalid, "\(error)") }
        }
        try commit(next)
        return decisions.count
    }

    /// Removes every decision of yours and the aperture you chose.
    public mutating func clear() throws(EditError) { try commit(ScriptChanges()) }

    /// Replaces the changes with `other` (a changes file opened in the page), as one edit.
    /// - Throws: `invalid` when they name subjects this take does not have.
    public mutating func replace(with other: ScriptChanges, source: String) throws(EditError) {
        let before = (changes, undoStack, redoStack)
        undoStack.append(changes)
        redoStack.removeAll()
        do { try adopt(other, source: source) } catch {
            (changes, undoStack, redoStack) = before
            throw error
        }
    }

    /// Undoes the last edit.
    public mutating func undo() throws(EditError) {
        guard let previous = undoStack.popLast() else { throw EditError(.conflict, "nothing to undo") }
        redoStack.append(changes)
        try adopt(previous, source: "undo")
    }

    /// Redoes the last undone edit.
    public mutating func redo() throws(EditError) {
        guard let next = redoStack.popLast() else { throw EditError(.conflict, "nothing to redo") }
        undoStack.append(changes)
        try adopt(next, source: "redo")
    }

    /// Writes the changes file (the asset is never written).
    public mutating func save() throws(EditError) {
        do { try changes.write(to: changesPath) } catch { throw EditError(.invalid, "\(error)") }
        saved = changes
    }

    // MARK: - Internals

    private var halfFrame: Timestamp { Timestamp(nanoseconds: Int64(5e8 / header.fps)) }

    private func noDecision(at index: Int) -> EditError {
        let at = changes.decisions.map { String(format: "%.3f", $0.time.seconds) }.joined(separator: ", ")
        return EditError(.notFound, String(format: "no decision of yours at %.3f s", time(of: index).seconds)
            + (at.isEmpty ? " (there are none)" : "; yours are at \(at) s"))
    }

    /// `base` with `decision` on frame `index` (replacing a decision of yours there), once its
    /// target is checked against that frame.
    private func placing(_ decision: FocusDecision, at index: Int, in base: ScriptChanges) throws(EditError) -> ScriptChanges {
        let record = records[index]
        let when = time(of: index).seconds
        switch decision.target {
        case .detection(let id) where base.tracks.contains(where: { $0.id == id }):
            let t = time(of: index)
            guard base.tracks.first(where: { $0.id == id })!.samples.contains(where: { abs(($0.time - t).nanoseconds) <= halfFrame.nanoseconds }) else {
                throw EditError(.notFound, String(format: "added track %d is not followed in the frame at %.3f s", id, when))
            }
        case .detection(let id):
            guard record.detections.contains(where: { $0.id == id }) else {
                throw EditError(.notFound, String(format: "detection %d is not in the frame at %.3f s; there: %@", id, when,
                                                  Self.present(in: record)))
            }
        case .group(let g):
            guard record.detections.contains(where: { $0.groupID == g }) else {
                throw EditError(.notFound, String(format: "no subject with group %d in the frame at %.3f s; there: %@", g, when,
                                                  Self.present(in: record)))
            }
        case .disparity(let d):
            guard d.isFinite && d >= 0 else { throw EditError(.invalid, "a fixed plane needs a disparity ≥ 0, got \(d)") }
        }
        var next = base
        next.removeDecisions(near: time(of: index), tolerance: halfFrame)
        do { try next.add(decision) } catch { throw EditError(.invalid, "\(error)") }
        return next
    }

    /// Makes `next` the changes, as an undoable edit.
    private mutating func commit(_ next: ScriptChanges) throws(EditError) {
        let previous = changes
        try adopt(next, source: "this edit")
        undoStack.append(previous)
        if undoStack.count > Self.undoLimit { undoStack.removeFirst() }
        redoStack.removeAll()
    }

    /// Applies `next` to the recorded script and recomputes every frame's focus.
    private mutating func adopt(_ next: ScriptChanges, source: String) throws(EditError) {
        var s = recorded
        do { try next.apply(to: &s) } catch {
            throw EditError(.invalid, "\(source) does not fit \(assetPath): \(error)")
        }
        changes = next
        script = s
        let effective = s.effectiveDecisions()
        var lastDisparity = records.first?.focus?.focusDisparity ?? 0
        focus = records.map { r in
            let t = Timestamp(nanoseconds: r.time)
            let moment = s.moment(at: t, effective: effective)
            let d = moment.disparity ?? r.focus?.focusDisparity ?? lastDisparity
            lastDisparity = d
            let located = moment.primary.flatMap { p -> Int? in
                if case .disparity = p.target { return nil }
                if case .detection(let id) = p.target, let added = next.tracks.first(where: { $0.id == id }) {
                    return added.samples.contains { abs(($0.time - t).nanoseconds) <= halfFrame.nanoseconds } ? id : nil
                }
                return p.target.locate(in: r.detections)?.id
            }
            return FrameFocus(disparity: d, detectionID: located, kind: moment.primary?.kind, racking: moment.secondary != nil)
        }
    }

    /// The detections of a frame, for messages: `id 1 (humanFace, group 1), …` or `no detections`.
    public static func present(in record: AssetFrameRecord) -> String {
        if record.detections.isEmpty { return "no detections" }
        return record.detections.sorted { $0.id < $1.id }.map { "id \($0.id) (\($0.type.rawValue), group \($0.groupID))" }
            .joined(separator: ", ")
    }
}
