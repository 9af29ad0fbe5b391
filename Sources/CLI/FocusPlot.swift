// FocusPlot: an SVG chart of a take — the focus disparity over time, every subject's disparity,
// and the decisions — for `cinegraph inspect --plot`.
import CineGStreamer
import CineMedia
import CineVision
import Foundation

/// Draws the focus story of a take as a standalone SVG document.
struct FocusPlot {
    var records: [AssetFrameRecord]
    var decisions: [FocusDecision]
    var title: String
    /// The focus the changes give (from the edited script), drawn beside the recorded one.
    var changedFocus: [Double?] = []

    private let width = 960.0, height = 420.0
    private let left = 64.0, right = 170.0, top = 64.0, bottom = 40.0

    func svg() -> String {
        let times = records.map { Double($0.time) / 1e9 }
        let t1 = max(times.last ?? 1, 1e-3)
        var values: [Double] = records.compactMap { $0.focus?.focusDisparity }.filter(\.isFinite)
        for r in records { for d in r.detections { if let v = d.disparity, v.isFinite { values.append(v) } } }
        let lo = 0.0, hi = max(1, (values.max() ?? 1) * 1.1)
        let plotW = width - left - right, plotH = height - top - bottom
        func x(_ t: Double) -> Double { left + t / t1 * plotW }
        func y(_ d: Double) -> Double { top + (1 - (d - lo) / (hi - lo)) * plotH }
        func f(_ v: Double) -> String { String(format: "%.1f", v) }
        func escape(_ s: String) -> String {
            s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;")
        }

        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" viewBox="0 0 \(Int(width)) \(Int(height))" font-family="sans-serif" font-size="11">
            <rect width="100%" height="100%" fill="#1b1b1b"/>
            <text x="\(f(left))" y="20" fill="#eee" font-size="14">\(escape(title))</text>

            """
        // Axes and grid.
        let steps = 5
        for i in 0...steps {
            let d = lo + (hi - lo) * Double(i) / Double(steps)
            out += "<line x1=\"\(f(left))\" y1=\"\(f(y(d)))\" x2=\"\(f(left + plotW))\" y2=\"\(f(y(d)))\" stroke=\"#333\"/>"
            out += "<text x=\"\(f(left - 6))\" y=\"\(f(y(d) + 4))\" fill=\"#aaa\" text-anchor=\"end\">\(String(format: "%.0f", d))</text>\n"
        }
        let tickStep = max(0.5, (t1 / 10).rounded(.up))
        var t = 0.0
        while t <= t1 + 1e-9 {
            out += "<text x=\"\(f(x(t)))\" y=\"\(f(top + plotH + 16))\" fill=\"#aaa\" text-anchor=\"middle\">\(String(format: "%g s", t))</text>\n"
            t += tickStep
        }
        out += "<text x=\"14\" y=\"\(f(top + plotH / 2))\" fill=\"#aaa\" transform=\"rotate(-90 14 \(f(top + plotH / 2)))\" text-anchor=\"middle\">disparity (px)</text>\n"

        // Subjects: one polyline per detection ID (broken where the subject is absent).
        var tracks: [Int: [[(Double, Double)]]] = [:]
        var lastSeen: [Int: Int] = [:]
        for (i, r) in records.enumerated() {
            for d in r.detections {
                guard let v = d.disparity, v.isFinite else { continue }
                if lastSeen[d.id] != i - 1 || tracks[d.id] == nil { tracks[d.id, default: []].append([]) }
                tracks[d.id]![tracks[d.id]!.count - 1].append((times[i], v))
                lastSeen[d.id] = i
            }
        }
        let palette = ["#4e9af1", "#59c36a", "#e06c75", "#c678dd", "#56b6c2", "#d19a66", "#98c379", "#61afef"]
        for (k, id) in tracks.keys.sorted().enumerated() {
            let colour = palette[k % palette.count]
            for segment in tracks[id]! {
                let points = segment.map { "\(f(x($0.0))),\(f(y($0.1)))" }.joined(separator: " ")
                out += "<polyline class=\"track\" data-id=\"\(id)\" points=\"\(points)\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"1.2\" opacity=\"0.8\"/>\n"
            }
            if let lastPoint = tracks[id]!.last?.last {
                out += "<text x=\"\(f(x(lastPoint.0) + 4))\" y=\"\(f(y(lastPoint.1) + 4))\" fill=\"\(colour)\">\(id)</text>\n"
            }
        }

        // Focus disparity.
        let focusPoints = records.enumerated().compactMap { i, r -> String? in
            guard let d = r.focus?.focusDisparity, d.isFinite else { return nil }
            return "\(f(x(times[i]))),\(f(y(d)))"
        }
        if !focusPoints.isEmpty {
            out += "<polyline class=\"focus\" points=\"\(focusPoints.joined(separator: " "))\" fill=\"none\" stroke=\"#ffd60a\" stroke-width=\"2.5\"/>\n"
        }
        let changedPoints = changedFocus.enumerated().compactMap { i, d -> String? in
            guard i < times.count, let d, d.isFinite else { return nil }
            return "\(f(x(times[i]))),\(f(y(d)))"
        }
        if !changedPoints.isEmpty {
            out += "<polyline class=\"changed-focus\" points=\"\(changedPoints.joined(separator: " "))\" fill=\"none\" stroke=\"#ff8c1a\" stroke-width=\"2\" stroke-dasharray=\"7,4\"/>\n"
        }

        // Decisions: vertical markers.
        for (k, d) in decisions.enumerated() {
            let dx = f(x(d.time.seconds))
            let labelY = top - 6 - Double(k % 3) * 12  // three staggered rows, so close decisions stay legible
            let (colour, dash, label): (String, String, String)
            switch d.kind {
            case .base: (colour, dash, label) = ("#888", "3,3", "auto")
            case .weakUser: (colour, dash, label) = ("#ffd60a", "6,3", "weak")
            case .strongUser: (colour, dash, label) = ("#ffd60a", "", "strong")
            }
            let target: String
            switch d.target {
            case .detection(let id): target = "\(id)"
            case .group(let g): target = "g\(g)"
            case .disparity(let v): target = String(format: "%.1f px", v)
            }
            out += "<line class=\"decision\" data-kind=\"\(d.kind.rawValue)\" x1=\"\(dx)\" y1=\"\(f(top))\" x2=\"\(dx)\" y2=\"\(f(top + plotH))\" stroke=\"\(colour)\"\(dash.isEmpty ? "" : " stroke-dasharray=\"\(dash)\"")/>"
            out += "<text x=\"\(dx)\" y=\"\(f(labelY))\" fill=\"\(colour)\" text-anchor=\"start\">\(label) → \(escape(target))</text>\n"
        }

        // Legend.
        let lx = left + plotW + 16
        out += "<line x1=\"\(f(lx))\" y1=\"\(f(top + 8))\" x2=\"\(f(lx + 24))\" y2=\"\(f(top + 8))\" stroke=\"#ffd60a\" stroke-width=\"2.5\"/>"
        out += "<text x=\"\(f(lx + 30))\" y=\"\(f(top + 12))\" fill=\"#eee\">focus (recorded)</text>\n"
        if !changedPoints.isEmpty {
            out += "<line x1=\"\(f(lx))\" y1=\"\(f(top + 66))\" x2=\"\(f(lx + 24))\" y2=\"\(f(top + 66))\" stroke=\"#ff8c1a\" stroke-width=\"2\" stroke-dasharray=\"7,4\"/>"
            out += "<text x=\"\(f(lx + 30))\" y=\"\(f(top + 70))\" fill=\"#eee\">focus with changes</text>\n"
        }
        out += "<line x1=\"\(f(lx))\" y1=\"\(f(top + 26))\" x2=\"\(f(lx + 24))\" y2=\"\(f(top + 26))\" stroke=\"#4e9af1\"/>"
        out += "<text x=\"\(f(lx + 30))\" y=\"\(f(top + 30))\" fill=\"#eee\">subjects (by ID)</text>\n"
        out += "<line x1=\"\(f(lx + 12))\" y1=\"\(f(top + 38))\" x2=\"\(f(lx + 12))\" y2=\"\(f(top + 54))\" stroke=\"#888\" stroke-dasharray=\"3,3\"/>"
        out += "<text x=\"\(f(lx + 30))\" y=\"\(f(top + 50))\" fill=\"#eee\">decisions</text>\n"
        out += "</svg>\n"
        return out
    }

    /// Writes the plot of `asset` (its decisions, and those of `changes` when given) to `path`.
    static func write(asset: String, changes: String?, to path: String) throws {
        let (_, all) = try AssetTrackReader.readMetadata(path: asset)
        var script = try CinematicScript(records: all)
        if let changes {
            let edits = try ScriptChanges.load(contentsOf: changes)
            try edits.apply(to: &script)
        }
        let name = URL(fileURLWithPath: asset).lastPathComponent
        var plot = FocusPlot(records: all, decisions: script.decisions, title: "\(name): focus and subjects")
        if changes != nil {
            let effective = script.effectiveDecisions()
            plot.changedFocus = all.map { script.moment(at: Timestamp(nanoseconds: $0.time), effective: effective).disparity }
        }
        try plot.svg().write(toFile: path, atomically: true, encoding: .utf8)
    }
}
