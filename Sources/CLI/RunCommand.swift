// `cinegraph run`: run a graph with a live status line, orderly stop on Ctrl-C, a summary.
import ArgumentParser
import CineCalibrate
import CineGraph
import CineMedia
import CineNodes
import CineViewfinder
import Foundation
import Logging

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a graph (with none: the cinematic demo, as `cinegraph demo`).",
        discussion: """
            Ctrl-C (or SIGTERM) stops in order: sources end, every sink finalises its files. A second \
            Ctrl-C aborts; recordings are written so that they stay playable even then.
            With --control (or when stdin is a terminal), lines on stdin are control messages: \
            `node.param=value`, `node.param?`, or `node command [args]`.
            """)

    @Argument(help: "Graph config file (.conf). Omit to run the cinematic demo (`cinegraph demo`).") var graph: String?
    @Option(name: .customLong("set"), help: "Override: node.key=value (repeatable).") var overrides: [String] = []
    @Option(help: "Stop after this long, e.g. 10s or 2min.") var duration: String?
    @Flag(help: "Read control messages from stdin.") var control = false
    @Flag(help: "No status line.") var quiet = false
    @OptionGroup var logging: LoggingOptions

    func run() throws {
        guard let graph else {
            // No graph: the whole demo (record, render, plot, contact sheet) with these options.
            var arguments = ["--log-level", logging.logLevel.rawValue] + overrides.flatMap { ["--set", $0] }
            if let duration { arguments += ["--duration", duration] }
            if quiet { arguments.append("--quiet") }
            let demo = try DemoCommand.parse(arguments)
            try demo.validate()
            return try demo.run()
        }
        let logger = try logging.bootstrap()
        let limit: Double?
        if let duration {
            do { limit = try Duration(config: .text(duration)).seconds } catch let e as ValueError {
                throw ValidationError("--duration: \(e.message)")
            }
        } else {
            limit = nil
        }
        let registry = NodeRegistry.standard().withViewfinder().withCalibration()
        let g: Graph
        do {
            g = try Graph.load(contentsOf: GraphFiles.resolve(graph), registry: registry, overrides: overrides, preflight: true)
        } catch {
            printError("\(error)")
            throw ExitCode(1)
        }
        var options = RunOptions()
        options.logger = logger
        let runner = GraphRunner(graph: g, options: options)
        let interactive = isatty(STDERR_FILENO) != 0
        runner.subscribe { event in
            if interactive { printError("\r\u{1B}[K" + event.description) } else { printError(event.description) }
        }
        let signals = SignalHandler(runner: runner)
        signals.install()
        printError("cinegraph: running '\(g.name)' (\(g.nodes.map { "\($0.name):\($0.description.kind)" }.joined(separator: " → ")))"
            + (limit.map { ", for \($0.configText)s" } ?? "")
            + "; Ctrl-C stops")
        runner.start()
        if control || isatty(STDIN_FILENO) != 0 { ControlReader.start(runner) }
        let status = StatusLine(runner: runner, interactive: interactive, quiet: quiet)
        // --duration counts from the first frame a source delivers, so it is the length of the footage.
        let sources = Set(g.nodes.filter(\.description.isSource).map(\.name))
        var firstFrameWall: Double?
        while !runner.isFinished {
            Thread.sleep(forTimeInterval: 0.05)
            let s = runner.summary()
            if firstFrameWall == nil, s.nodes.contains(where: { sources.contains($0.name) && $0.processed > 0 }) {
                firstFrameWall = s.wallSeconds
            }
            if let limit, let first = firstFrameWall, s.wallSeconds - first >= limit, !signals.draining {
                signals.drain(reason: "duration reached")
            }
            status.tick()
        }
        let summary = runner.wait()
        status.clear()
        printError(SummaryTable.render(summary, graph: g))
        if signals.aborted { throw ExitCode(130) }
        if !summary.failures.isEmpty { throw ExitCode(1) }
    }
}

