// ToolGraph: how the tool commands (render, stabilize) run the graph they build — parse with
// machine checks, events and a status line or progress bar on stderr, signals drain it.
import ArgumentParser
import CineCalibrate
import CineGraph
import CineNodes
import CineViewfinder
import Foundation
import Logging

/// The outcome of a tool's graph run.
struct ToolRun {
    var graph: Graph
    var summary: RunSummary
    /// Wall time from start to the last node finishing.
    var seconds: Double
    /// A second signal aborted the run (exit 130).
    var aborted: Bool
    /// Frames the node `name` processed.
    func frames(of name: String) -> Int { summary.nodes.first { $0.name == name }?.processed ?? 0 }
}

enum ToolGraph {
    /// Builds `spec` (a graph made in code, or a config's) with `overrides` (`node.key=value`;
    /// its errors are printed and end the command with status 1), runs it, and shows progress: a
    /// bar when `progress` names the node whose frames count and how many there are, else the
    /// status line. A failed run prints the summary table and exits 1. `onEvent` sees each event
    /// with the runner (to drain it when a node says the work is done).
    static func run(_ spec: GraphSpec, overrides: [String] = [], logger: Logger, quiet: Bool,
                    progress: (node: String, total: Int)?,
                    onEvent: (@Sendable (GraphEvent, GraphRunner) -> Void)? = nil) throws -> ToolRun {
        let graph: Graph
        do {
            graph = try Graph.build(spec, registry: NodeRegistry.standard().withViewfinder().withCalibration(), overrides: overrides,
                                    preflight: true)
        } catch {
            printError("\(error)")
            throw ExitCode(1)
        }
        var options = RunOptions()
        options.logger = logger
        let runner = GraphRunner(graph: graph, options: options)
        runner.subscribe { event in
            printError(event.description)
            onEvent?(event, runner)
        }
        let signals = SignalHandler(runner: runner)
        signals.install()
        let started = Date()
        runner.start()
        let status = StatusLine(runner: runner, interactive: isatty(STDERR_FILENO) != 0, quiet: quiet, progress: progress)
        while !runner.isFinished {
            Thread.sleep(forTimeInterval: 0.1)
            status.tick()
        }
        let summary = runner.wait()
        status.clear()
        if !summary.failures.isEmpty {
            printError(SummaryTable.render(summary, graph: graph))
            throw ExitCode(1)
        }
        return ToolRun(graph: graph, summary: summary, seconds: Date().timeIntervalSince(started), aborted: signals.aborted)
    }
}
