// `cinegraph nodes`: the node reference, from the declarations.
import ArgumentParser
import CineCalibrate
import CineGraph
import CineNodes
import CineViewfinder

struct NodesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nodes", abstract: "List node kinds, or describe one (ports, parameters, commands).")

    @Argument(help: "A node kind to describe.") var kind: String?
    @Flag(help: "Print the full reference as Markdown (docs/nodes.md).") var markdown = false
    @Flag(help: "Print the kinds by role as a Markdown table (docs/architecture.md).") var roles = false
    @Option(help: "Load plugin libraries first (repeatable).") var plugin: [String] = []

    func run() throws {
        let registry = NodeRegistry.standard().withViewfinder().withCalibration()
        for p in plugin { try PluginLoader.load(library: p, into: registry) }
        if let kind {
            guard let d = registry.description(of: kind) else {
                let near = closestMatch(to: kind, in: registry.kinds)
                printError("error: unknown node kind '\(kind)'" + (near.map { "; did you mean '\($0)'?" } ?? ""))
                throw ExitCode(1)
            }
            print(markdown ? NodeReference.markdown(d) : NodeReference.text(d), terminator: "")
            return
        }
        if markdown || roles {
            print(roles ? NodeReference.rolesMarkdown(registry) : NodeReference.markdown(registry), terminator: "")
            return
        }
        let width = registry.kinds.map(\.count).max() ?? 0
        for d in registry.descriptions {
            print(d.kind + String(repeating: " ", count: width - d.kind.count + 2) + d.summary)
        }
        print("\nRun 'cinegraph nodes KIND' for a kind's ports, parameters and commands.")
    }
}
