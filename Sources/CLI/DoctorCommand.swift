// `cinegraph doctor`: checks this machine for what cinegraph, or one graph, needs — each missing
// piece with the command that fixes it. Exit status 0 only when all that is needed is there.
import ArgumentParser
import CineCalibrate
import CineGraph
import CineNodes
import CineViewfinder
import Foundation

struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check this machine: GStreamer and its plugins, models and LiteRT, cameras, v4l2loopback, CPU, disk.",
        discussion: """
            With a graph, checks what that graph needs (exit status 1 when anything it needs is missing); \
            without one, what `cinegraph demo` needs, and reports the rest (cameras, the virtual webcam, \
            streaming) as optional.
            """)

    @Argument(help: "A graph config to check this machine for.") var graph: String?

    func run() throws {
        var doctor: Doctor
        if let graph {
            let g: Graph
            do { g = try Graph.load(contentsOf: GraphFiles.resolve(graph), registry: NodeRegistry.standard().withViewfinder().withCalibration()) } catch {
                printError("\(error)")
                throw ExitCode(1)
            }
            doctor = Doctor(kinds: Set(g.nodes.map(\.description.kind)), forGraph: true)
            // Elements named in the graph's own GStreamer descriptions.
            doctor.describedElements = g.nodes.filter { $0.description.kind.hasPrefix("gst-") }
                .compactMap { $0.parameterTexts["description"] }.flatMap(Self.factories)
        } else {
            doctor = Doctor(kinds: Set(NodeRegistry.standard().withViewfinder().withCalibration().kinds), forGraph: false)
        }
        let checks = doctor.run()
        for c in checks {
            let mark = c.status == .ok ? "ok      " : c.status == .missing ? "MISSING " : "optional"
            print("\(mark) \(c.what): \(c.found)")
            if let fix = c.fix, c.status != .ok { print("         fix: \(fix)") }
        }
        let missing = checks.filter { $0.status == .missing }.count
        print(
            missing == 0
                ? "\nAll that \(graph ?? "cinegraph demo") needs is here."
                : "\n\(missing) thing(s) \(graph ?? "cinegraph demo") needs are missing: see the fixes above.")
        if missing > 0 { throw ExitCode(1) }
    }

    /// The element factories in a GStreamer description (`a ! b name=x prop=1 ! c`), caps left out.
    static func factories(_ description: String) -> [String] {
        description.split(separator: "!").compactMap { part in
            guard let first = part.split(separator: " ").first.map(String.init), !first.contains("/"), !first.contains("="),
                !first.contains(".")
            else { return nil }
            return first
        }
    }
}
