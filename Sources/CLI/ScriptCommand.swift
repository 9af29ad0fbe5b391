// `cinegraph script`: change your mind about focus after the take — list the recorded script,
// add or remove user decisions, set the aperture — in a changes file; the asset is never touched.
import ArgumentParser
import CineEditor
import CineGStreamer
import CineMedia
import CineVision
import Foundation

struct ScriptCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "script",
        abstract: "List or edit a take's focus decisions in a changes file (the asset is never modified).",
        discussion: """
            ACTION is one of:
              list                       the take's subjects (detection tracks), recorded decisions and your changes
              add --time T --id N [--strong]    focus on detection N from time T (weak: until the next automatic
                                         decision; strong: until your next decision or until the subject leaves)
              add --time T --group G [--strong] focus on subject (group) G
              add --time T --disparity D [--strong]  focus on a fixed plane at disparity D
              remove --time T            remove your decisions at T (± half a frame)
              clear                      remove all your decisions
              aperture F                 render at f/F
            Changes go to CHANGES (-o), by default ASSET with .changes.json in place of .mkv; an existing \
            file is edited. Render them with `cinegraph render ASSET --changes CHANGES -o OUT.mp4`.
            """)

    @Argument(help: "The cinematic asset (.mkv).") var asset: String
    /// What `script` does to the changes file.
    enum Action: String, ExpressibleByArgument, CaseIterable {
        case list, add, remove, clear, aperture
    }

    @Argument(help: "What to do.") var action: Action
    @Argument(help: "The f-number, for `aperture`.") var value: Double?
    @Option(help: "Time of the decision in seconds from the start of the take.") var time: Double?
    @Option(help: "Detection ID to focus on.") var id: Int?
    @Option(help: "Subject (group ID) to focus on.") var group: Int?
    @Option(help: "Fixed focus plane, as a disparity in full-resolution pixels.") var disparity: Double?
    @Flag(help: "A strong decision (holds until your next decision or until the subject leaves).") var strong = false
    @Option(name: .shortAndLong, help: "The changes file to write (and to read first, if it exists).") var output: String?

    var changesPath: String {
        if let output { return output }
        let base = asset.lowercased().hasSuffix(".mkv") ? String(asset.dropLast(4)) : asset
        return base + ".changes.json"
    }

    func run() throws {
        let header: AssetHeader, records: [AssetFrameRecord]
        do { (header, records) = try AssetTrackReader.readMetadata(path: asset) } catch { throw ToolError("\(error)") }
        guard !records.isEmpty else { throw ToolError("\(asset) holds no frames") }
        var changes = ScriptChanges()
        if FileManager.default.fileExists(atPath: changesPath) {
            do { changes = try ScriptChanges.load(contentsOf: changesPath) } catch { throw ToolError("\(error)") }
        }
        let frameTime = Timestamp(seconds: 1 / header.fps)
        switch action {
        case .list:
            list(header: header, records: records, changes: changes)
            return
        case .add:
            let decision = try newDecision(records: records)
            var script = try CinematicScript(records: records)
            do {
                try changes.apply(to: &script)
                try changes.add(decision)
                try script.addUserDecision(decision)
            } catch { throw ToolError("\(error)") }
            print("added: \(describe(decision))")
        case .remove:
            guard let time else { throw ValidationError("remove needs --time T (seconds)") }
            let removed = changes.removeDecisions(near: Timestamp(seconds: time),
                                                  tolerance: Timestamp(nanoseconds: frameTime.nanoseconds / 2))
            guard !removed.isEmpty else {
                let at = changes.decisions.map { String(format: "%.3f", $0.time.seconds) }.joined(separator: ", ")
                throw ToolError(String(format: "no decision of yours at %.3f s", time)
                    + (at.isEmpty ? " (there are none)" : "; yours are at \(at) s"))
            }
            for d in removed { print("removed: \(describe(d))") }
        case .clear:
            print("removed \(changes.decisions.count) decision(s)")
            changes.removeAllDecisions()
        case .aperture:
            guard let value else { throw ValidationError("aperture needs an f-number, e.g. `aperture 2.8`") }
            let r = CinematicScript.fNumberRange
            guard r.contains(value) else { throw ValidationError("f/\(value) is outside f/\(r.lowerBound)...f/\(r.upperBound)") }
            changes.fNumber = value
            print("aperture: f/\(value)")
        }
        do { try changes.write(to: changesPath) } catch { throw ToolError("\(error)") }
        print("wrote \(changesPath) — render it with: cinegraph render \(asset) --changes \(changesPath) -o OUT.mp4")
    }

    private func newDecision(records: [AssetFrameRecord]) throws -> FocusDecision {
        guard let time else { throw ValidationError("add needs --time T (seconds from the start of the take)") }
        let targets = [id != nil, group != nil, disparity != nil].filter { $0 }.count
        guard targets == 1 else { throw ValidationError("add needs exactly one of --id, --group or --disparity") }
        let end = Double(records.last!.time) / 1e9
        guard time >= 0 && time <= end + 1e-9 else {
            throw ValidationError(String(format: "--time %.3f is outside the take (0...%.3f s)", time, end))
        }
        let t = Timestamp(seconds: time)
        // The subject must be in the frame at that time (the nearest frame).
        let nearest = records.min { abs($0.time - t.nanoseconds) < abs($1.time - t.nanoseconds) }!
        let target: FocusTarget
        if let id {
            guard nearest.detections.contains(where: { $0.id == id }) else {
                let seen = records.filter { r in r.detections.contains { $0.id == id } }.map(\.time)
                let when = seen.isEmpty ? "it is never detected in this take"
                    : String(format: "it is there from %.3f to %.3f s", Double(seen.first!) / 1e9, Double(seen.last!) / 1e9)
                throw ToolError(String(format: "detection %d is not in the frame at %.3f s (%@); there: %@", id, time, when,
                                       EditSession.present(in: nearest)))
            }
            target = .detection(id)
        } else if let group {
            guard nearest.detections.contains(where: { $0.groupID == group }) else {
                throw ToolError(String(format: "no subject with group %d in the frame at %.3f s; there: %@", group, time,
                                       EditSession.present(in: nearest)))
            }
            target = .group(group)
        } else {
            guard let disparity, disparity.isFinite, disparity >= 0 else {
                throw ValidationError("--disparity must be a non-negative number of pixels")
            }
            target = .disparity(disparity)
        }
        return FocusDecision(time: t, target: target, kind: strong ? .strongUser : .weakUser)
    }

    private func list(header: AssetHeader, records: [AssetFrameRecord], changes: ScriptChanges) {
        let seconds = Double(records.last!.time) / 1e9 + 1 / header.fps
        let recordedF = records.lazy.compactMap { $0.focus?.fNumber }.first
        print(String(format: "%@: %d frames, %.2f s at %g fps", asset, records.count, seconds, header.fps)
            + (recordedF.map { ", recorded at f/\($0)" } ?? ""))
        struct Track { var type: String; var group: Int; var first: Int64; var last: Int64; var frames: Int; var d: [Double] }
        var tracks: [Int: Track] = [:]
        for r in records {
            for d in r.detections {
                var t = tracks[d.id] ?? Track(type: d.type.rawValue, group: d.groupID, first: r.time, last: r.time, frames: 0, d: [])
                t.last = r.time
                t.frames += 1
                if let v = d.disparity, v.isFinite { t.d.append(v) }
                tracks[d.id] = t
            }
        }
        print("subjects (detection tracks):")
        if tracks.isEmpty { print("  none") }
        for id in tracks.keys.sorted() {
            let t = tracks[id]!
            let median = t.d.isEmpty ? "—" : String(format: "%.1f px", t.d.sorted()[t.d.count / 2])
            // Text columns padded in Swift: Foundation on Linux ignores the width of `%@`.
            print(String(format: "  id %-4d %@ group %-4d %6.2f – %6.2f s  %5d frames  disparity %@", id,
                         t.type.padding(toLength: 14, withPad: " ", startingAt: 0), t.group,
                         Double(t.first) / 1e9, Double(t.last) / 1e9, t.frames, median))
        }
        print("recorded decisions:")
        let script = try? CinematicScript(records: records)
        let base = script?.decisions ?? []
        if base.isEmpty { print("  none (no focus was recorded)") }
        for d in base { print("  \(describe(d))") }
        print("your decisions (\(changesPath)):")
        if changes.decisions.isEmpty { print("  none") }
        for d in changes.decisions { print("  \(describe(d))") }
        if let f = changes.fNumber { print("  aperture f/\(f)") }
    }

    private func describe(_ d: FocusDecision) -> String {
        let target: String
        switch d.target {
        case .detection(let id): target = "detection \(id)"
        case .group(let g): target = "subject (group) \(g)"
        case .disparity(let v): target = String(format: "fixed plane at disparity %.2f px", v)
        }
        let kind = d.kind == .base ? "automatic" : d.kind == .weakUser ? "weak" : "strong"
        return String(format: "%8.3f s  %@ %@", d.time.seconds, kind.padding(toLength: 9, withPad: " ", startingAt: 0), target)
    }
}
