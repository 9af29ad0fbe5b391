// Config fuzzing: the shipped graphs, mutated the ways people (and editors) break YAML — lines
// deleted, duplicated, swapped, re-indented, truncated; values replaced by extremes and wrong
// types; keys misspelt; stray characters; injected nodes and edges; hostile YAML (deep nesting,
// alias bombs). Every case must end in a graph or in errors that each name file:line:column —
// no crash, no hang, no other kind of error. A fixed seed and 10,000 cases in CI;
// `CINEGRAPH_FUZZ_CASES=1000000 CINEGRAPH_FUZZ_SEED=7 swift test --filter ConfigFuzz` for longer runs.
import CineCalibrate
import CineGraph
import CineNodes
import CineViewfinder
import Foundation
import Testing

/// SplitMix64: small, fast, and the same sequence on every machine.
struct FuzzRandom {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { n <= 1 ? 0 : Int(next() % UInt64(n)) }
    mutating func pick<T>(_ xs: [T]) -> T { xs[below(xs.count)] }
}

/// Turns a config into a broken variant.
struct ConfigMutator {
    static let values = [
        "", "-1", "0", "-0", "1e309", "-1e309", ".nan", ".inf", "NaN", "99999999999999999999999", "abc", "[1, 2]",
        "{a: 1}", "0x10", "true", "~", "null", "1920x1080x3", "0x0", "-5s", "1e-400s", "10000000s", "3 s", "s",
        "\"\"", "''", "camera.left", "nowhere.port", "camera.", ".left", "camera..left", "0.0000001",
        "65536x65536", "1x1", "[]", "{}", "- a", "&x 1", "*x", "!!binary aGk=", "|", ">", "\"unterminated",
        String(repeating: "z", count: 5000), "💥", "\u{7}", "${HOME}", "../../../../etc/passwd", "/dev/null",
        "-", ":", "#", "--", "? x", "2.8", "1.4", "16", "22", "241", "-240", "1e30s", "-1e30ms", "9223372036854775807",
        "-9223372036854775808", "99999x99999", "16385x2", "3000000000x3000000000", "1e18", "1e300", "4.9e-324",
    ]
    static let keys = ["kind", "nodes", "graph", "plugins", "path", "size", "fps", "live", "duration", "aperture",
                       "video", "image", "stereo", "disparity", "focus", "detections", "mode", "quality", "input"]
    static let kinds = ["synthetic", "camera", "file", "movie", "asset", "disparity", "detector", "focus", "bokeh",
                        "delay", "metadata", "still", "frames", "preview", "refocus", "nope", "", "Synthetic"]
    static let noise = Array(":{}[],&*#?|-<>=!%@`'\"\t\n ")

    static func mutate(_ text: String, _ r: inout FuzzRandom) -> String {
        var lines = text.components(separatedBy: "\n")
        for _ in 0...r.below(3) {
            guard !lines.isEmpty else { break }
            let i = r.below(lines.count)
            switch r.below(12) {
            case 0: lines.remove(at: i)
            case 1: lines.insert(lines[i], at: i)
            case 2: lines.swapAt(i, r.below(lines.count))
            case 3:  // replace the value after the first colon
                if let c = lines[i].firstIndex(of: ":") {
                    lines[i] = String(lines[i][...c]) + " " + r.pick(values)
                }
            case 4:  // replace a flow-mapping value (`{ a: 1, b: 2 }`)
                var parts = lines[i].components(separatedBy: ", ")
                let k = r.below(parts.count)
                if let c = parts[k].firstIndex(of: ":") { parts[k] = String(parts[k][...c]) + " " + r.pick(values) }
                lines[i] = parts.joined(separator: ", ")
            case 5:  // stray characters
                var chars = Array(lines[i])
                chars.insert(r.pick(noise), at: r.below(chars.count + 1))
                lines[i] = String(chars)
            case 6:  // re-indent
                lines[i] = r.below(2) == 0 ? String(repeating: " ", count: r.below(9)) + lines[i]
                    : String(lines[i].drop { $0 == " " })
            case 7:  // misspell a key
                if let c = lines[i].firstIndex(of: ":"), c > lines[i].startIndex {
                    var key = Array(lines[i][..<c])
                    let k = r.below(key.count)
                    if key[k] != " " { key[k] = r.pick(Array("abcdefghijklmnopqrstuvwxyz-_")) }
                    lines[i] = String(key) + String(lines[i][c...])
                }
            case 8:  // inject a node
                let name = r.pick(["camera", "x", "movie", "n\(r.below(5))", "a b", "-"])
                lines.insert("  \(name): { kind: \(r.pick(kinds)), \(r.pick(keys)): \(r.pick(values)) }", at: i)
            case 9:  // inject an edge or a key into the line
                lines.insert("    \(r.pick(keys)): \(r.pick(["camera.left", "camera.stereo", "focus.focus", "x.y", "camera"]))",
                             at: i)
            case 10:  // truncate
                let flat = lines.joined(separator: "\n")
                let cut = flat.index(flat.startIndex, offsetBy: r.below(flat.count + 1))
                lines = String(flat[..<cut]).components(separatedBy: "\n")
            default:  // replace the whole line with a YAML oddity
                lines[i] = r.pick(["---", "...", "%YAML 1.1", "? complex", "- item", "!!map", "nodes: [", "nodes:", "\t", "&a", "*a"])
            }
        }
        return lines.joined(separator: "\n")
    }
}

@Suite struct ConfigFuzzTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func corpus() throws -> [(name: String, text: String)] {
        let dir = root.appendingPathComponent("graphs")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".conf") }.sorted()
        return try files.map { ($0, try String(contentsOf: dir.appendingPathComponent($0), encoding: .utf8)) }
    }

    /// Parses `text`; returns a failure description, or nil when the outcome is acceptable
    /// (`accepted` says which acceptable outcome it was).
    static func check(_ text: String, file: String, accepted: inout Bool) -> String? {
        let started = DispatchTime.now().uptimeNanoseconds
        accepted = false
        do {
            _ = try Graph.parse(text, file: file, registry: NodeRegistry.standard().withViewfinder().withCalibration())
            accepted = true
        } catch let errors as ConfigErrors {
            if errors.errors.isEmpty { return "an empty error list" }
            for e in errors.errors {
                let d = e.description
                guard d.hasPrefix("\(file):"), e.location.line >= 1, !e.message.isEmpty else {
                    return "an error without a position or message: \(d)"
                }
            }
        } catch {
            return "an error that is not a config error (\(type(of: error))): \(error)"
        }
        let ms = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6
        return ms > 2000 ? String(format: "took %.0f ms", ms) : nil
    }

    @Test func mutatedShippedConfigsNeverCrashOrHang() throws {
        let env = ProcessInfo.processInfo.environment
        let cases = Int(env["CINEGRAPH_FUZZ_CASES"] ?? "") ?? 10_000
        var random = FuzzRandom(state: UInt64(env["CINEGRAPH_FUZZ_SEED"] ?? "") ?? 20261122)
        let corpus = try Self.corpus()
        #expect(corpus.count >= 10)
        var accepted = 0, rejected = 0, failures: [String] = []
        let started = Date()
        for n in 0..<cases {
            let (name, original) = random.pick(corpus)
            let text = ConfigMutator.mutate(original, &random)
            let file = "fuzz-\(n)-\(name)"
            var ok = false
            if let failure = Self.check(text, file: file, accepted: &ok) {
                failures.append("case \(n) (\(name)): \(failure)\n--- config ---\n\(text.prefix(2000))")
                if failures.count >= 5 { break }
            } else if ok {
                accepted += 1
            } else {
                rejected += 1
            }
        }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n\n"))")
        // Both outcomes occur: the mutations are neither all harmless nor all fatal.
        #expect(rejected > cases / 4 && accepted > cases / 50, "accepted \(accepted), rejected \(rejected)")
        print(String(format: "config fuzz: %d cases in %.1f s, %d accepted, %d rejected with positions", cases,
                     Date().timeIntervalSince(started), accepted, rejected))
    }

    @Test func hostileYAMLIsRejectedQuickly() {
        let deep = "nodes:\n  a: " + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "\n"
        let deepMap = "nodes:\n" + (0..<5000).map { String(repeating: " ", count: $0 + 2) + "k\($0):" }.joined(separator: "\n") + " 1\n"
        var bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for i in 1..<12 { bomb += "a\(i): &a\(i) [" + Array(repeating: "*a\(i - 1)", count: 10).joined(separator: ", ") + "]\n" }
        bomb += "nodes:\n  camera: { kind: synthetic, size: *a11 }\n"
        let long = "nodes:\n  camera: { kind: synthetic, path: \"" + String(repeating: "x", count: 2_000_000) + "\" }\n"
        for (name, text) in [("deep-flow", deep), ("deep-block", deepMap), ("alias-bomb", bomb), ("long", long)] {
            var accepted = false
            let failure = Self.check(text, file: name, accepted: &accepted)
            #expect(failure == nil && !accepted, "\(name): \(failure ?? "accepted")")
        }
    }

    @Test func overridesAreFuzzedToo() throws {
        var random = FuzzRandom(state: 99)
        let text = try Self.corpus().first { $0.name == "cinematic.conf" }!.text
        for n in 0..<500 {
            let target = random.pick(["camera", "bokeh", "focus", "asset", "nope", "", "camera.size", "."])
            let key = random.pick(ConfigMutator.keys + ["", "=", "size=1"])
            let override = random.pick(["\(target).\(key)=\(random.pick(ConfigMutator.values))", "\(target)", "=",
                                        "\(target).\(key)", "\(target).\(key)==x"])
            do {
                _ = try Graph.parse(text, file: "o.conf", registry: NodeRegistry.standard().withViewfinder().withCalibration(), overrides: [override])
            } catch let errors as ConfigErrors {
                #expect(errors.errors.allSatisfy { !$0.message.isEmpty }, "case \(n): \(override)")
            } catch {
                Issue.record("case \(n): --set \(override) threw \(type(of: error)): \(error)")
            }
        }
    }
}
