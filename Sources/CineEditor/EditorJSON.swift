// EditorJSON: what the editor's API answers — the take (frames, subjects and their lanes, every
// frame's rectangles) and the script (decisions, every frame's focus, undo / redo, saved or not)
// — as Swift types, and the request bodies its routes decode.
import CineMedia
import CineViewfinder
import CineVision
import Foundation

/// `GET /api/take`, once per page: frame times, size, aperture range, subjects and rectangles.
struct TakeReply: Encodable, Sendable {
    /// One detection in one frame, encoded as `[id, group, type, x, y, width, height]`.
    struct Rectangle: Encodable, Sendable {
        var id: Int
        var group: Int
        var type: String
        var x, y, width, height: Double

        func encode(to encoder: any Encoder) throws {
            var c = encoder.unkeyedContainer()
            try c.encode(id)
            try c.encode(group)
            try c.encode(type)
            for v in [x, y, width, height] { try c.encode(v) }
        }
    }
    /// A subject's lane: the frame spans (`[first, last]`) it was detected in.
    struct Subject: Encodable, Sendable {
        var id: Int
        var type: String
        var group: Int
        var spans: [[Int]]
    }
    var asset: String
    var changesPath: String
    var fps: Double
    var frames: Int
    var duration: Double
    var width: Int
    var height: Int
    var previewWidth: Int
    var previewHeight: Int
    var fNumberRange: [Double]
    var times: [Double]
    var detections: [[Rectangle]]
    var subjects: [Subject]

    init(_ s: EditSession, preview: TakePreview) {
        var subjects: [Int: Subject] = [:]
        detections = []
        detections.reserveCapacity(s.frameCount)
        for (i, r) in s.records.enumerated() {
            detections.append(
                r.detections.map { d in
                    Rectangle(
                        id: d.id, group: d.groupID, type: d.type.rawValue, x: round4(d.bounds.x), y: round4(d.bounds.y),
                        width: round4(d.bounds.width), height: round4(d.bounds.height))
                })
            for d in r.detections {
                var sub = subjects[d.id] ?? Subject(id: d.id, type: d.type.rawValue, group: d.groupID, spans: [])
                if let last = sub.spans.last, last[1] == i - 1 { sub.spans[sub.spans.count - 1][1] = i } else { sub.spans.append([i, i]) }
                subjects[d.id] = sub
            }
        }
        self.subjects = subjects.keys.sorted().map { subjects[$0]! }
        let r = CinematicScript.fNumberRange
        asset = s.assetPath
        changesPath = s.changesPath
        fps = s.header.fps
        frames = s.frameCount
        duration = s.duration
        width = s.header.referenceWidth
        height = s.header.referenceHeight
        previewWidth = preview.width
        previewHeight = preview.height
        fNumberRange = [r.lowerBound, r.upperBound]
        times = s.records.map { Double($0.time) / 1e9 }
    }
}

/// The script as it stands (`GET /api/script`, and every edit's answer with its `message`):
/// decisions (recorded and yours), every frame's focus, undo / redo, saved or not.
struct ScriptReply: Encodable, Sendable {
    struct Decision: Encodable, Sendable {
        var time: Double
        var kind: String
        /// The frame the decision falls on.
        var index: Int?
        var detectionID: Int?
        var groupID: Int?
        var disparity: Double?
    }
    /// A frame's focus, encoded as `[disparity, detectionID or -1, kind]` (kind: 0 none,
    /// 1 automatic, 2 weak, 3 strong).
    struct Focus: Encodable, Sendable {
        var disparity: Double
        var detectionID: Int
        var kind: Int

        func encode(to encoder: any Encoder) throws {
            var c = encoder.unkeyedContainer()
            try c.encode(disparity)
            try c.encode(detectionID)
            try c.encode(kind)
        }
    }
    /// An object followed through the take after a tap: its ID, the frame of its first box and
    /// one box `[x, y, w, h]` per frame from there.
    struct AddedTrack: Encodable, Sendable {
        var id: Int
        var first: Int
        /// Frame `first + k`'s box, `null` where the object was not seen (hidden, out of the frame).
        var boxes: [[Double]?]
    }
    var fNumber: Double
    var decisions: [Decision]
    var focus: [Focus]
    var tracks: [AddedTrack]
    var dirty: Bool
    var canUndo: Bool
    var canRedo: Bool
    var changesPath: String
    var userDecisions: Int
    /// What an edit did, in words.
    var message: String?

    init(_ s: EditSession, message: String? = nil) {
        let kinds: [FocusDecisionKind: Int] = [.base: 1, .weakUser: 2, .strongUser: 3]
        fNumber = s.script.fNumber
        tracks = s.changes.tracks.compactMap { t in
            // One box per frame from the first sample's on; null where the object was not seen.
            let placed = t.samples.compactMap { sample in s.index(at: sample.time.seconds).map { ($0, sample.bounds) } }
            guard let first = placed.first?.0, let last = placed.last?.0, last >= first else { return nil }
            var boxes = [[Double]?](repeating: nil, count: last - first + 1)
            for (i, b) in placed { boxes[i - first] = [b.x, b.y, b.width, b.height] }
            return AddedTrack(id: t.id, first: first, boxes: boxes)
        }
        decisions = s.script.decisions.map { d in
            var o = Decision(time: d.time.seconds, kind: d.kind.rawValue, index: s.index(at: d.time.seconds))
            switch d.target {
            case .detection(let id): o.detectionID = id
            case .group(let g): o.groupID = g
            case .disparity(let v): o.disparity = v
            }
            return o
        }
        focus = s.focus.map { f in
            Focus(disparity: round4(f.disparity), detectionID: f.detectionID ?? -1, kind: f.kind.flatMap { kinds[$0] } ?? 0)
        }
        dirty = s.isDirty
        canUndo = s.canUndo
        canRedo = s.canRedo
        changesPath = s.changesPath
        userDecisions = s.changes.decisions.count
        self.message = message
    }
}

/// `POST /api/claim`'s answer: the lease to send with every edit.
struct LeaseReply: Encodable, Sendable {
    var lease: String
}

/// `POST /api/export`'s answer.
struct ExportReply: Encodable, Sendable {
    var folder: String
    var frames: Int
    var hasDepth: Bool
    var message: String
}

// MARK: - Request bodies

/// `POST /api/claim`: take the edit lease, from another page too when `force`.
struct ClaimRequest: APIRequest {
    var force: Bool?
    enum CodingKeys: String, CodingKey, CaseIterable { case force }
}

/// `POST /api/tap`: a point in the frame at `time` (x and y normalised).
struct TapRequest: APIRequest {
    var time: FiniteNumber
    var x: FiniteNumber
    var y: FiniteNumber
    enum CodingKeys: String, CodingKey, CaseIterable { case time, x, y }
}

/// `POST /api/decisions`: focus on exactly one of a detection, a group or a disparity from `time`.
struct DecisionRequest: APIRequest {
    var time: FiniteNumber
    var detectionID: SubjectID?
    var groupID: SubjectID?
    var disparity: FiniteNumber?
    var strong: Bool?
    enum CodingKeys: String, CodingKey, CaseIterable { case time, detectionID, groupID, disparity, strong }

    /// The one target given.
    func target() throws -> FocusTarget {
        let targets = [detectionID.map { FocusTarget.detection($0.value) }, groupID.map { .group($0.value) }, disparity.map { .disparity($0.value) }]
            .compactMap { $0 }
        guard targets.count == 1 else { throw APIError.badRequest("give exactly one of detectionID, groupID or disparity") }
        return targets[0]
    }
}

/// `POST /api/decisions/remove`: the decision at `time`.
struct TimeRequest: APIRequest {
    var time: FiniteNumber
    enum CodingKeys: String, CodingKey, CaseIterable { case time }
}

/// `POST /api/decisions/move`: the decision at `from` to `to`.
struct MoveRequest: APIRequest {
    var from: FiniteNumber
    var to: FiniteNumber
    enum CodingKeys: String, CodingKey, CaseIterable { case from, to }
}

/// `POST /api/aperture`: the take's f-number.
struct FNumberRequest: APIRequest {
    var fNumber: FiniteNumber
    enum CodingKeys: String, CodingKey, CaseIterable { case fNumber }
}

/// `POST /api/changes`: a changes file's content, checked as a file is.
struct ChangesRequest: APIRequest {
    var changes: JSONValue
    enum CodingKeys: String, CodingKey, CaseIterable { case changes }

    func decoded() throws(EditError) -> ScriptChanges {
        do {
            return try ScriptChanges.decode(try JSONEncoder().encode(changes), name: "the changes file")
        } catch { throw EditError(.invalid, "\(error)") }
    }
}

private func round4(_ v: Double) -> Double { (v * 10000).rounded() / 10000 }
