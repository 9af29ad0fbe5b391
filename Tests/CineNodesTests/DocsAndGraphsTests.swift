// The shipped graphs and docs/nodes.md against the node declarations.
import CineCalibrate
import CineGStreamer
import CineGraph
import CineMedia
import CineNodes
import CineViewfinder
import CineVision
import Foundation
import Testing

@Suite struct DocsAndGraphsTests {
    @Test func nodeReferenceIsCurrent() throws {
        let file = try String(contentsOf: repoRoot.appendingPathComponent("docs/nodes.md"), encoding: .utf8)
        #expect(file == NodeReference.markdown(NodeRegistry.standard().withViewfinder().withCalibration()), "docs/nodes.md is stale: run `make docs`")
    }

    @Test func builtInDemoIsGraphsDemoConf() throws {
        let file = try String(contentsOf: repoRoot.appendingPathComponent("graphs/demo.conf"), encoding: .utf8)
        #expect(file == DefaultGraphs.demo)
    }

    @Test func everyGraphValidates() throws {
        let folder = repoRoot.appendingPathComponent("graphs")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".conf") }
        #expect(files.count >= 3)
        for f in files { _ = try Graph.load(contentsOf: folder.appendingPathComponent(f).path, registry: NodeRegistry.standard().withViewfinder().withCalibration()) }
    }

    @Test func everyNodeKindIsDocumented() {
        for d in NodeRegistry.standard().withViewfinder().withCalibration().descriptions {
            #expect(!d.summary.isEmpty)
            for p in d.parameters { #expect(!p.doc.isEmpty, "\(d.kind).\(p.name) has no doc") }
            for p in d.inputs + d.outputs { #expect(!p.doc.isEmpty, "\(d.kind).\(p.name) has no doc") }
        }
    }
}
