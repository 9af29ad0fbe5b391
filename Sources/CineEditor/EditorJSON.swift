// EditorJSON: what the editor's API answers — the take (frames, subjects and their lanes, every
// frame's rectangles) and the script (decisions, every frame's focus, undo / redo, saved or not).
import CineMedia
import CineVision
import Foundation

/// The editor API's JSON bodies, as `JSONSerialization` objects.
enum EditorJSON {
    /// The take, once per page: frame times, size, aperture range, subjects and rectangles.
    /// Rectangles are `[id, group, type, x, y, width, height]` per detection, per frame.
    static func take(_ s: EditSession, preview: TakePreview) -> [String: Any] {
        var subjects: [Int: (type: String, group: Int, spans: [[Int]])] = [:]
        var rects: [[[Any]]] = []
        rects.reserveCapacity(s.frameCount)
        for (i, r) in s.records.enumerated() {
            rects.append(r.detections.map { d in
                [d.id, d.groupID, d.type.rawValue, round4(d.bounds.x), round4(d.bounds.y), round4(d.bounds.width), round4(d.bounds.height)]
            })
            for d in r.detections {
                var sub = subjects[d.id] ?? (d.type.rawValue, d.groupID, [])
                if let last = sub.spans.last, last[1] == i - 1 { sub.spans[sub.spans.count - 1][1] = i } else { sub.spans.append([i, i]) }
                subjects[d.id] = sub
            }
        }
        let r = CinematicScript.fNumberRange
        return [
            "asset": s.assetPath, "changesPath": s.changesPath, "fps": s.header.fps, "frames": s.frameCount,
            "duration": s.duration, "width": s.header.referenceWidth, "height": s.header.referenceHeight,
            "previewWidth": preview.width, "previewHeight": preview.height,
            "fNumberRange": [r.lowerBound, r.upperBound],
            "times": s.records.map { Double($0.time) / 1e9 },
            "detections": rects,
            "subjects": subjects.keys.sorted().map { id in
                let sub = subjects[id]!
                return ["id": id, "type": sub.type, "group": sub.group, "spans": sub.spans] as [String: Any]
            },
        ]
    }

    /// The script as it stands: decisions (recorded and yours), every frame's focus as
    /// `[disparity, detectionID or -1, kind]` (kind: 0 none, 1 automatic, 2 weak, 3 strong).
    static func script(_ s: EditSession) -> [String: Any] {
        let kinds: [FocusDecisionKind: Int] = [.base: 1, .weakUser: 2, .strongUser: 3]
        return [
            "fNumber": s.script.fNumber,
            "decisions": s.script.decisions.map { d -> [String: Any] in
                var o: [String: Any] = ["time": d.time.seconds, "kind": d.kind.rawValue]
                if let i = s.index(at: d.time.seconds) { o["index"] = i }
                switch d.target {
                case .detection(let id): o["detectionID"] = id
                case .group(let g): o["groupID"] = g
                case .disparity(let v): o["disparity"] = v
                }
                return o
            },
            "focus": s.focus.map { f in [round4(f.disparity), f.detectionID ?? -1, f.kind.flatMap { kinds[$0] } ?? 0] },
            "dirty": s.isDirty, "canUndo": s.canUndo, "canRedo": s.canRedo, "changesPath": s.changesPath,
            "userDecisions": s.changes.decisions.count,
        ]
    }

    /// Any encodable value as a JSON object.
    static func object(_ value: some Encodable) -> Any {
        guard let data = try? JSONEncoder().encode(value), let o = try? JSONSerialization.jsonObject(with: data) else { return [:] }
        return o
    }

    /// A changes file's content sent by the page, checked as a file is.
    static func changes(from data: Data) throws(EditError) -> ScriptChanges {
        do { return try ScriptChanges.decode(data, name: "the changes file") } catch { throw EditError(.invalid, "\(error)") }
    }

    private static func round4(_ v: Double) -> Double { (v * 10000).rounded() / 10000 }
}
