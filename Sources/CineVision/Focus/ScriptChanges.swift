// ScriptChanges: the user's edits to a recorded take — focus decisions and aperture — kept in a
// small JSON file beside the asset, which is never touched. `cinegraph script` writes it,
// `cinegraph render --changes` applies it.
import CineMedia
import Foundation

/// Edits to the cinematic script of a recorded take (docs/asset.md, "Changes files").
///
/// Applying them to the script rebuilt from the asset (``CinematicScript/init(records:fNumber:)``)
/// gives the script a render follows: the recorded automatic (base) decisions plus these user
/// decisions, under the usual rules.
public struct ScriptChanges: Sendable, Hashable, Codable {
    /// Always `cinegraph-changes`.
    public var format = ScriptChanges.formatName
    /// Format version; readers reject versions they do not know.
    public var version = ScriptChanges.currentVersion
    /// The aperture to render with, when the user chose one.
    public var fNumber: Double?
    /// User decisions (weak or strong), in time order.
    public private(set) var decisions: [FocusDecision] = []
    /// Objects the user tapped after the take and had followed through it (like Apple's added
    /// detection tracks), in the order they were added; decisions focus on them by their `id`.
    public private(set) var tracks: [AddedTrack] = []

    /// An object followed through the take after it was recorded: a custom track of the script
    /// (``CinematicScript/addCustomTrack(_:)``) under the ID it gets when the changes are applied.
    public struct AddedTrack: Sendable, Hashable, Codable {
        /// The track's ID in the script (checked when the changes are applied).
        public var id: Int
        /// Its box and disparity on each frame, in time order; it ends at the last one.
        public var samples: [FocusTrackSample]

        /// Creates an added track.
        public init(id: Int, samples: [FocusTrackSample]) {
            self.id = id
            self.samples = samples
        }
    }

    private enum CodingKeys: String, CodingKey { case format, version, fNumber, decisions, tracks }

    /// Decodes changes; `tracks` may be absent (files from before tracks could be added).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        format = try c.decode(String.self, forKey: .format)
        version = try c.decode(Int.self, forKey: .version)
        fNumber = try c.decodeIfPresent(Double.self, forKey: .fNumber)
        decisions = try c.decode([FocusDecision].self, forKey: .decisions)
        tracks = try c.decodeIfPresent([AddedTrack].self, forKey: .tracks) ?? []
    }

    /// Encodes the changes; `tracks` only when there are some.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(format, forKey: .format)
        try c.encode(version, forKey: .version)
        try c.encodeIfPresent(fNumber, forKey: .fNumber)
        try c.encode(decisions, forKey: .decisions)
        if !tracks.isEmpty { try c.encode(tracks, forKey: .tracks) }
    }

    /// Adds an object followed through the take (its ID is the one the script will give it:
    /// see ``apply(to:)``).
    public mutating func add(_ track: AddedTrack) { tracks.append(track) }

    /// The IDs the script gives `tracks` plus one more custom track, applied to `script` in
    /// order (the ID the next added track must carry).
    public func nextTrackID(in script: CinematicScript) throws -> Int {
        var s = script
        for t in tracks { try s.addCustomTrack(t.samples) }
        return s.nextTrackID()
    }

    /// The value of ``format``.
    public static let formatName = "cinegraph-changes"
    /// The version this build writes and reads.
    public static let currentVersion = 1

    /// No changes.
    public init() {}

    /// Adds a user decision (after any at the same time). Base decisions come from the recording.
    public mutating func add(_ decision: FocusDecision) throws(ScriptChangesError) {
        guard decision.kind.isUser else { throw .invalid("only weak or strong user decisions can be added") }
        let i = decisions.firstIndex { $0.time > decision.time } ?? decisions.endIndex
        decisions.insert(decision, at: i)
    }

    /// Removes the user decisions within `tolerance` of `time`; returns them (empty when none).
    @discardableResult
    public mutating func removeDecisions(near time: Timestamp, tolerance: Timestamp) -> [FocusDecision] {
        let near = { (d: FocusDecision) in abs((d.time - time).nanoseconds) <= tolerance.nanoseconds }
        defer { decisions.removeAll(where: near) }
        return decisions.filter(near)
    }

    /// Removes every user decision.
    public mutating func removeAllDecisions() { decisions.removeAll() }

    /// Applies the changes to a script rebuilt from a recording: sets the f-number, adds each
    /// added track (under the ID it was made with), then each user decision (which must name a
    /// track the recording or the changes have).
    public func apply(to script: inout CinematicScript) throws {
        if let fNumber { try script.setFNumber(fNumber) }
        for t in tracks {
            let made = try script.addCustomTrack(t.samples)
            guard made.id == t.id else {
                throw ScriptChangesError.invalid("added track \(t.id) was made for another recording (here it would be \(made.id))")
            }
        }
        for d in decisions { try script.addUserDecision(d) }
    }

    // MARK: - Files

    /// Reads a changes file. Errors name the file and say what is wrong.
    public static func load(contentsOf path: String) throws(ScriptChangesError) -> ScriptChanges {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw .file(path, "cannot be read (\(error.localizedDescription))")
        }
        return try decode(data, name: path)
    }

    /// Reads the content of a changes file; errors name it as `name` (a path, or where it came from).
    public static func decode(_ data: Data, name path: String) throws(ScriptChangesError) -> ScriptChanges {
        struct Probe: Decodable { var format: String?; var version: Int? }
        guard let probe = try? JSONDecoder().decode(Probe.self, from: data) else {
            throw .file(path, "is not JSON (a changes file is written by `cinegraph script`)")
        }
        guard probe.format == formatName else {
            throw .file(path, "is not a changes file (format is \(probe.format.map { "'\($0)'" } ?? "missing"), expected '\(formatName)')")
        }
        guard probe.version == currentVersion else {
            throw .file(path, "has version \(probe.version.map(String.init) ?? "none"); this build reads version \(currentVersion)")
        }
        do {
            let changes = try JSONDecoder().decode(ScriptChanges.self, from: data)
            if let bad = changes.decisions.first(where: { !$0.kind.isUser }) {
                throw ScriptChangesError.file(path, "decision at \(bad.time) is '\(bad.kind.rawValue)': only user decisions belong in a changes file")
            }
            if let f = changes.fNumber, !CinematicScript.fNumberRange.contains(f) {
                let r = CinematicScript.fNumberRange
                throw ScriptChangesError.file(path, "fNumber \(f) is out of range \(r.lowerBound)...\(r.upperBound)")
            }
            return changes
        } catch let e as ScriptChangesError {
            throw e
        } catch let DecodingError.keyNotFound(key, context) {
            throw .file(path, "\(Self.where(context.codingPath)) lacks '\(key.stringValue)'")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw .file(path, "\(Self.where(context.codingPath)): \(context.debugDescription)")
        } catch let DecodingError.dataCorrupted(context) {
            throw .file(path, "\(Self.where(context.codingPath)): \(context.debugDescription)")
        } catch {
            throw .file(path, "\(error)")
        }
    }

    /// Writes the changes as JSON (sorted keys, one decision per line's worth of indentation).
    public func write(to path: String) throws(ScriptChangesError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            try encoder.encode(self).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw .file(path, "cannot be written (\(error.localizedDescription))")
        }
    }

    private static func `where`(_ path: [any CodingKey]) -> String {
        path.isEmpty ? "the file" : path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }
}

/// A changes file that cannot be read, written or used.
public enum ScriptChangesError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A problem with the file at the path.
    case file(String, String)
    /// An edit that cannot be made.
    case invalid(String)

    public var description: String {
        switch self {
        case .file(let path, let why): return "\(path): \(why)"
        case .invalid(let why): return why
        }
    }
}

extension CinematicScript {
    /// Rebuilds the script of a recorded take from its asset records: every frame, and a base
    /// decision wherever the recorded focus changed target (a detection, or a fixed plane when
    /// the recording focused on none). Frames without recorded focus keep focus where it was.
    public init(records: [AssetFrameRecord], fNumber: Double? = nil) throws {
        let recordedF = records.lazy.compactMap { $0.focus?.fNumber }.first
        self.init(fNumber: 4.5)
        if let f = fNumber ?? recordedF { try setFNumber(f) }
        var lastTarget: FocusTarget?
        var lastDisparity = 0.0
        for r in records {
            let time = Timestamp(nanoseconds: r.time)
            let focus = r.focus
            if let d = focus?.focusDisparity, d.isFinite { lastDisparity = d }
            try append(CinematicFrame(time: time, detections: r.detections, focusDisparity: lastDisparity,
                                      focusedDetectionID: focus?.targetDetectionID))
            guard let focus else { continue }
            let target: FocusTarget = focus.targetDetectionID.map { .detection($0) } ?? .disparity(lastDisparity)
            let changed: Bool
            switch (lastTarget, target) {
            case (.disparity, .disparity): changed = false
            case (let a, let b): changed = a != b
            }
            if changed {
                add(FocusDecision(time: time, target: target, kind: .base))
                lastTarget = target
            }
        }
    }
}
