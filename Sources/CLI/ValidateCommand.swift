// `cinegraph validate`: check graph configs without running them.
import ArgumentParser
import CineCalibrate
import CineGraph
import CineNodes
import CineViewfinder
import Foundation

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate", abstract: "Check graph configs: kinds, keys, values, ports, cycles.")

    @Argument(help: "Graph config files.") var graphs: [String]
    @Option(name: .customLong("set"), help: "Override: node.key=value (repeatable).") var overrides: [String] = []
    @Flag(help: "Also check this machine: cameras present, input files readable.") var preflight = false

    func run() throws {
        var failed = 0
        for path in graphs {
            do {
                let g = try Graph.load(contentsOf: GraphFiles.resolve(path), registry: NodeRegistry.standard().withViewfinder().withCalibration(), overrides: overrides, preflight: preflight)
                print("ok: \(path) (\(g.nodes.count) nodes: \(g.nodes.map(\.name).joined(separator: ", ")))")
            } catch {
                failed += 1
                printError("\(error)")
            }
        }
        if failed > 0 { throw ExitCode(1) }
    }
}
