// Validation: every config error carries its exact file:line:column and key.
import CineGraph
import Foundation
import Testing

/// The 1-based column of `needle` in line `line` (1-based) of `text`.
func column(of needle: String, line: Int, in text: String) -> Int {
    let l = text.split(separator: "\n", omittingEmptySubsequences: false)[line - 1]
    return l.distance(from: l.startIndex, to: l.range(of: needle)!.lowerBound) + 1
}

func errors(_ text: String, overrides: [String] = []) -> [ConfigError] {
    do {
        _ = try Graph.parse(text, file: "t.conf", registry: testRegistry(), overrides: overrides)
        return []
    } catch let e as ConfigErrors {
        return e.errors
    } catch {
        Issue.record("unexpected error \(error)")
        return []
    }
}

@Suite struct ValidationTests {
    @Test func validGraphBuildsInTopologicalOrder() throws {
        let g = try Graph.parse("""
            nodes:
              sink: { kind: collect, input: dbl }
              dbl: { kind: doubler, input: src.value }
              src: { kind: tick, count: 5 }
            """, registry: testRegistry())
        #expect(g.nodes.map(\.name) == ["src", "dbl", "sink"])
        #expect(g.node(named: "dbl")?.inputs["input"] == PortReference(node: "src", port: "value"))
        #expect(g.node(named: "src")?.parameterTexts["count"] == "5")
        #expect(g.node(named: "src")?.parameterTexts["step-size"] == "1")
    }

    @Test func prioritiesAreWrittenDeclaredOrInheritedFromConsumers() throws {
        let g = try Graph.parse("""
            nodes:
              src: { kind: tick, count: 5 }
              dbl: { kind: doubler, input: src.value }
              show: { kind: collect, input: dbl, priority: preview }
              rec: { kind: collect, input: src.value }
              lonely: { kind: doubler, input: src.value }
            """, registry: testRegistry())
        // show is written preview; dbl feeds only it; src feeds the recording sink (a node
        // nobody consumes is part of the take); lonely has no consumer.
        #expect(g.node(named: "show")?.priority == .preview)
        #expect(g.node(named: "dbl")?.priority == .preview)
        #expect(g.node(named: "src")?.priority == .take)
        #expect(g.node(named: "rec")?.priority == .take)
        #expect(g.node(named: "lonely")?.priority == .take)
        let text = """
            nodes:
              src: { kind: tick, priority: urgent }
            """
        let e = errors(text)
        #expect(e.count == 1)
        #expect(e.first?.key == "nodes.src.priority")
        #expect(e.first?.location.line == 2 && e.first?.location.column == column(of: "urgent", line: 2, in: text))
        #expect(e.first?.message.contains("take, preview") == true)
    }

    @Test func unknownKindSuggestsTheClosest() {
        let text = """
            nodes:
              src: { kind: tick }
              d: { kind: dubler, input: src.value }
            """
        let e = errors(text)
        #expect(e.count == 1)
        #expect(e[0].location == SourceLocation(file: "t.conf", line: 3, column: column(of: "dubler", line: 3, in: text)))
        #expect(e[0].key == "nodes.d.kind")
        #expect(e[0].description.contains("did you mean 'doubler'?"))
    }

    @Test func unknownParameterAndPortSuggest() {
        let text = """
            nodes:
              src: { kind: tick, cuont: 3 }
              d: { kind: doubler, input: src.valu }
              s: { kind: collect, input: d }
            """
        let e = errors(text)
        #expect(e.count == 2)
        #expect(e[0].location.line == 2 && e[0].location.column == column(of: "cuont", line: 2, in: text))
        #expect(e[0].key == "nodes.src.cuont")
        #expect(e[0].description.contains("did you mean 'count'?"))
        #expect(e[1].location.line == 3 && e[1].location.column == column(of: "src.valu", line: 3, in: text))
        #expect(e[1].description.contains("did you mean 'src.value'?"))
    }

    @Test func wrongTypeAndRangeAreReportedAtTheValue() {
        let text = """
            nodes:
              src: { kind: tick, count: many, pace: 3 }
              s: { kind: collect, input: src.value }
            """
        let e = errors(text)
        #expect(e.count == 2)
        #expect(e[0].location.column == column(of: "many", line: 2, in: text))
        #expect(e[0].description.contains("expected an integer, got 'many'"))
        #expect(e[1].location.column == column(of: "3 }", line: 2, in: text))
        #expect(e[1].description.contains("out of range 0...1"))
        #expect(e[1].key == "nodes.src.pace")
    }

    @Test func mismatchedPortTypesAreRejected() {
        let text = """
            nodes:
              src: { kind: tick }
              s: { kind: text-sink, input: src.value }
            """
        let e = errors(text)
        #expect(e.count == 1)
        #expect(e[0].description.contains("input 'input' takes String but src.value gives Int"))
        #expect(e[0].location.line == 3)
    }

    @Test func imageFormatsAreCheckedAtLoadThroughFiltersThatKeepTheirInputsFormat() throws {
        // `frames` may give rgba8; `brighten` keeps it; `luma-sink` takes gray8 or i420 only.
        let text = """
            nodes:
              src: { kind: frames }
              lift: { kind: brighten, video: src }
              out: { kind: luma-sink, video: lift }
            """
        let e = errors(text)
        #expect(e.count == 1, "\(e)")
        #expect(e.first?.description.contains("input 'video' takes gray8 or i420 images but lift.brightened gives i420 or rgba8") == true,
                "\(e)")
        #expect(e.first?.key == "nodes.out.video")
        #expect(e.first?.location.line == 4 && e.first?.location.column == column(of: "lift }", line: 4, in: text))
        // The declarations reach the reference.
        let d = try #require(testRegistry().description(of: "luma-sink"))
        #expect(d.inputs[0].typeText == "Image (gray8, i420)")
        #expect(testRegistry().description(of: "brighten")?.outputs[0].typeText == "Image (as `video`)")
    }

    @Test func kindsByRoleNameTheirModule() {
        let table = NodeReference.rolesMarkdown(testRegistry())
        #expect(table.contains("| source | [`tick`](nodes.md#tick) | CineGraphTests | Counts. |"), "\(table)")
        #expect(table.contains("| processing | [`doubler`](nodes.md#doubler) | CineGraphTests | Doubles. |"))
        #expect(table.contains("| output | [`collect`](nodes.md#collect) | CineGraphTests |"))
        // Sources first, outputs last.
        let rows = table.split(separator: "\n").dropFirst(2).map { $0.split(separator: "|")[0].trimmingCharacters(in: .whitespaces) }
        #expect(rows == rows.sorted { ["source", "processing", "output"].firstIndex(of: $0)! < ["source", "processing", "output"].firstIndex(of: $1)! })
    }

    @Test func graphsBuiltInCodeTakeTypedValuesUnquotedAndGetTheSameChecks() throws {
        // A path YAML would need quoted and escaped, a list, numbers and a flag: given as values.
        var g = GraphSpec(name: "tool")
        g.add("src", kind: "tick", ["count": 3, "live": false, "pace": 0.0])
        g.add("dbl", kind: "doubler", inputs: ["input": "src.value"], ["factor": 2])
        g.add("out", kind: "text-sink", inputs: ["input": "src.text"], ["label": #"a "quoted" \ path: [x]"#])
        let graph = try Graph.build(g, registry: testRegistry(), overrides: ["src.count=5"])
        #expect(graph.node(named: "src")?.parameterTexts["count"] == "5")
        #expect(graph.node(named: "dbl")?.parameterTexts["factor"] == "2")
        #expect(graph.node(named: "out")?.parameterTexts["label"] == #"a "quoted" \ path: [x]"#)
        // Errors name the graph and the node's place, as a file's name its line.
        var bad = GraphSpec(name: "tool")
        bad.add("src", kind: "tick", ["count": -1])
        bad.add("dbl", kind: "doubler", inputs: ["input": "src.valeu"])
        do {
            _ = try Graph.build(bad, registry: testRegistry())
            Issue.record("built")
        } catch let e as ConfigErrors {
            #expect(e.errors.map(\.description).contains { $0.hasPrefix("<tool>:1:1: error: nodes.src.count:") }, "\(e)")
            #expect(e.errors.contains { $0.location.line == 2 && $0.description.contains("did you mean 'src.value'?") }, "\(e)")
        }
    }

    @Test func aBareNodeNameTakesTheOutputNamedLikeTheInputElseAsksForOne() throws {
        let g = try Graph.parse("""
            nodes:
              src: { kind: two-counts }
              d: { kind: doubler, input: src }
            """, registry: testRegistry())
        #expect(g.nodes.first { $0.name == "d" }?.inputs["input"] == PortReference(node: "src", port: "input"))
        let e = errors("""
            nodes:
              src: { kind: two-counts }
              add: { kind: adder, a: src, b: src.value }
            """)
        #expect(e.count == 1 && e[0].description.contains("several outputs"), "\(e)")
    }

    @Test func unconnectedInputIsReportedAtTheNode() {
        let text = """
            nodes:
              src: { kind: tick }
              add: { kind: adder, a: src.value }
            """
        let e = errors(text)
        #expect(e.count == 1)
        #expect(e[0].location == SourceLocation(file: "t.conf", line: 3, column: 3))
        #expect(e[0].description.contains("input 'b' (Int) is not connected"))
    }

    @Test func aNodeWithOnlyOptionalInputsNeedsOneConnected() {
        let e = errors("""
            nodes:
              src: { kind: tick }
              opt: { kind: optional-sink }
            """)
        #expect(e.count == 1)
        #expect(e.first?.description.contains("none of the node's inputs is connected") == true)
    }

    @Test func cyclesAreRejected() {
        let e = errors("""
            nodes:
              a: { kind: doubler, input: b }
              b: { kind: doubler, input: a }
            """)
        #expect(e.count == 1)
        #expect(e[0].description.contains("cycle through a → b"))
    }

    @Test func yamlSyntaxErrorHasAPosition() {
        let e = errors("nodes:\n  a: { kind: tick\n  b: [\n")
        #expect(e.count == 1)
        #expect(e[0].location.line >= 2)
        #expect(e[0].description.contains("YAML syntax"))
    }

    @Test func missingKindUnknownTopLevelKeyAndUnknownNode() {
        let text = """
            grpah: x
            nodes:
              a: { count: 3 }
              s: { kind: collect, input: nosuch }
            """
        let e = errors(text)
        #expect(e.count == 3)
        #expect(e[0].description.contains("did you mean 'graph'?"))
        #expect(e[1].description.contains("has no 'kind:'"))
        #expect(e[2].description.contains("no node named 'nosuch'"))
    }

    @Test func overridesReplaceValuesAndReportTheirOrigin() throws {
        let text = """
            nodes:
              src: { kind: tick, count: 5 }
              s: { kind: collect, input: src.value }
            """
        let g = try Graph.parse(text, registry: testRegistry(), overrides: ["src.count=7"])
        #expect(g.node(named: "src")?.parameterTexts["count"] == "7")
        let e = errors(text, overrides: ["src.count=-2"])
        #expect(e.count == 1)
        #expect(e[0].location.file == "--set src.count=-2")
        #expect(errors(text, overrides: ["sorc.count=1"]).first?.description.contains("did you mean 'src'?") == true)
    }

    @Test func declarationsBecomeDescriptions() throws {
        let d = try #require(testRegistry().description(of: "tick"))
        #expect(d.isSource)
        #expect(d.outputs.map(\.name) == ["value", "text"])
        #expect(d.outputs.map(\.typeName) == ["Int", "String"])
        let step = try #require(d.parameters.first { $0.name == "step-size" })
        #expect(step.defaultText == "1" && step.rangeText == "1...100" && step.typeName == "integer")
        let add = try #require(testRegistry().description(of: "adder"))
        #expect(add.inputs.map(\.isOptional) == [false, false, true])
    }
}
