// StatusLine: the one-line live status (fps per node, drops, queue depth) and the final summary.
import CineGraph
import Foundation

final class StatusLine {
    private let runner: GraphRunner
    private let interactive: Bool
    private let quiet: Bool
    private var last: (time: Double, processed: [String: Int]) = (0, [:])
    private var lastPrint = 0.0
    private var fps: [String: Double] = [:]
    /// When the work is known in advance (a render): the node whose frames count, and how many.
    private let progress: (node: String, total: Int)?

    init(runner: GraphRunner, interactive: Bool, quiet: Bool, progress: (node: String, total: Int)? = nil) {
        self.runner = runner
        self.interactive = interactive
        self.quiet = quiet
        self.progress = progress
    }

    /// `[#########-----------]  45%  54/120 frames  12.3 fps  ETA 5 s`
    static func progressBar(done: Int, total: Int, fps: Double, width: Int = 24) -> String {
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 0
        let filled = Int((fraction * Double(width)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let eta = fps > 0 ? String(format: "  ETA %.0f s", Double(max(0, total - done)) / fps) : ""
        return String(format: "[%@] %3.0f%%  %d/%d frames  %.1f fps", bar, fraction * 100, done, total, fps) + eta
    }

    func tick() {
        guard !quiet else { return }
        let s = runner.summary()
        let now = s.wallSeconds
        if now - last.time >= 1 {
            for n in s.nodes {
                fps[n.name] = Double(n.processed - (last.processed[n.name] ?? 0)) / (now - last.time)
            }
            last = (now, Dictionary(uniqueKeysWithValues: s.nodes.map { ($0.name, $0.processed) }))
        }
        let interval = interactive ? 0.5 : 5
        guard now - lastPrint >= interval else { return }
        lastPrint = now
        if let progress, let n = s.nodes.first(where: { $0.name == progress.node }) {
            let line = Self.progressBar(done: n.processed, total: progress.total, fps: fps[n.name] ?? 0)
                + (s.totalDrops > 0 ? "  drops \(s.totalDrops)" : "")
            if interactive { printError("\r\u{1B}[K" + line, terminator: "") } else { printError(line) }
            return
        }
        var parts = [String(format: "%6.1fs", now)]
        for n in s.nodes {
            let depth = s.edges.filter { $0.consumer.node == n.name }.map(\.depth).max()
            parts.append("\(n.name) \(String(format: "%.1f", fps[n.name] ?? 0))fps" + (depth.map { $0 > 0 ? " q\($0)" : "" } ?? ""))
        }
        parts.append("lost from take \(s.takeDrops) | shed by previews \(s.previewDrops)"
            + (s.totalCarried > 0 ? " | analysis carried \(s.totalCarried)" : "")
            + (s.loadLevel > 0 ? " | previews turned down (load level \(s.loadLevel))" : "")
            + (s.takeAnalysisStride > 1 ? " | take's depth on 1 frame in \(s.takeAnalysisStride)" : "")
            + (s.takeDetectionStride > 1 ? ", detections on 1 in \(s.takeDetectionStride)" : ""))
        let line = parts.joined(separator: " | ")
        if interactive { printError("\r\u{1B}[K" + line, terminator: "") } else { printError(line) }
    }

    func clear() { if interactive && !quiet { printError("\r\u{1B}[K", terminator: "") } }
}

enum SummaryTable {
    static func render(_ s: RunSummary, graph: Graph) -> String {
        var rows = [["node", "kind", "priority", "frames", "fps", "ms/frame", "cpu ms", "max ms", "skipped", "carried", "dropped in"]]
        for n in s.nodes {
            let span = (n.lastTimestamp?.seconds ?? 0) - (n.firstTimestamp?.seconds ?? 0)
            let rate = n.processed > 1 && span > 0 ? Double(n.processed - 1) / span : 0
            let drops = s.edges.filter { $0.consumer.node == n.name }.reduce(0) { $0 + $1.dropped }
            let priority = graph.node(named: n.name)?.priority.rawValue ?? ""
            rows.append([n.name, n.kind, priority, String(n.processed), String(format: "%.1f", rate),
                         String(format: "%.2f", n.meanMilliseconds), String(format: "%.2f", n.meanCPUMilliseconds),
                         String(format: "%.1f", Double(n.maxNanoseconds) / 1e6),
                         String(n.skipped), String(n.carried), String(drops)])
        }
        let widths = rows[0].indices.map { i in rows.map { $0[i].count }.max()! }
        var out = "\nSummary of '\(graph.name)': \(String(format: "%.1f", s.wallSeconds)) s wall time, "
            + "\(s.totalDrops) packets dropped on live edges (lost from the take \(s.takeDrops); shed by previews \(s.previewDrops))"
            + (s.wasStopped ? " (stopped)" : "")
            + (s.peakLoadLevel > 0 ? "; previews turned down under load, up to level \(s.peakLoadLevel)" : "")
            + (s.totalCarried > 0 ? "; the take's analysis carried forward on \(s.totalCarried) node-frames" : "")
            + (s.peakTakeAnalysisStride > 1 ? " (at worst the depth computed on 1 frame in \(s.peakTakeAnalysisStride))" : "") + "\n"
        for r in rows {
            out += "  " + r.enumerated().map { i, c in
                i < 3 ? c.padding(toLength: widths[i], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[i] - c.count) + c
            }.joined(separator: "  ") + "\n"
        }
        for f in s.failures { out += "error: \(f)\n" }
        return out
    }
}
