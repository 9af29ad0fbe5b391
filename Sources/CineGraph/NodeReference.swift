// NodeReference: the node reference, generated from the declarations — for `cinegraph nodes`
// and docs/nodes.md (a test keeps the file current).

/// Renders node declarations as text for a terminal or as Markdown.
public enum NodeReference {
    /// The full reference of every kind in `registry`, as Markdown (docs/nodes.md).
    public static func markdown(_ registry: NodeRegistry) -> String {
        var s = """
            # Node reference

            Generated from the node declarations by `cinegraph nodes --markdown`; do not edit by hand
            (a test fails when this file is stale). Parameters are written `key: value` in a node's
            entry; inputs are connected with `input: node.output` (or just `node` when it has one output).
            Units: durations as `0.5s`, `500ms`, `2min`; sizes as `1920x1080`. Any node also takes
            `priority: take|preview` (see [config.md](config.md#priorities)).


            """
        s += "| kind | summary |\n|---|---|\n"
        for d in registry.descriptions { s += "| [`\(d.kind)`](#\(d.kind)) | \(d.summary) |\n" }
        for d in registry.descriptions { s += "\n" + markdown(d) }
        return s
    }

    /// The kinds by role (sources, processing, outputs), each with its module and summary, as
    /// Markdown: the table docs/architecture.md carries (scripts/docs-tables.py puts it there).
    public static func rolesMarkdown(_ registry: NodeRegistry) -> String {
        var s = "| role | kind | module | what it does |\n|---|---|---|---|\n"
        let roles: [(String, (NodeDescription) -> Bool)] = [
            ("source", { $0.isSource }), ("processing", { !$0.isSource && !$0.isSink }), ("output", { $0.isSink }),
        ]
        for (role, isRole) in roles {
            for d in registry.descriptions where isRole(d) {
                s += "| \(role) | [`\(d.kind)`](nodes.md#\(d.kind)) | \(d.module) | \(d.summary) |\n"
            }
        }
        return s
    }

    /// What carrying forward means, in a sentence (``Node/carriesForward``).
    static let carryNote = "when the machine cannot keep up, its last outputs are sent again for the frames it skips, and those frames' records say so (`carried`); the frames themselves are never lost to it (see [config.md](config.md#under-load-one-controller-turns-the-previews-down))."

    /// What the load controller may turn down in a kind, and whether it carries forward.
    static func loadNote(_ d: NodeDescription) -> String {
        var parts: [String] = []
        if !d.adaptations.isEmpty {
            let knobs = d.adaptations.map { a in
                "`\(a.parameter)` " + (a.factors.isEmpty ? "→ " + a.steps.dropFirst().map { "`\($0)`" }.joined(separator: " → ")
                                     : a.factors.dropFirst().map { "×\($0)" }.joined(separator: ", "))
            }
            parts.append("the load controller turns down \(knobs.joined(separator: "; ")) when the machine is short, and back up when it is not (in a preview at once; in a live take once the previews are at their lightest).")
        }
        if d.carriesForward {
            parts.append("In a live take, " + Self.carryNote
                + (d.carryOrder == .last ? " It gives way after the depth nodes (the take's third step on)." : ""))
        }
        return parts.joined(separator: " ")
    }

    /// What a declared priority means, in a few words.
    static func priorityNote(_ p: NodePriority) -> String {
        p == .take ? "the recording: deep queues, never dropped while the machine keeps up"
            : "gives way first under load: shallow queues, a lower thread priority"
    }

    /// One kind as Markdown.
    public static func markdown(_ d: NodeDescription) -> String {
        var s = "## \(d.kind)\n\n\(d.summary)\n\n"
        if !d.details.isEmpty { s += d.details + "\n\n" }
        if !d.inputs.isEmpty {
            s += "**Inputs**\n\n| input | type | description |\n|---|---|---|\n"
            for p in d.inputs { s += "| `\(p.name)` | \(p.typeText)\(p.isOptional ? " (optional)" : "") | \(p.doc) |\n" }
            s += "\n"
        }
        if !d.outputs.isEmpty {
            s += "**Outputs**\n\n| output | type | description |\n|---|---|---|\n"
            for p in d.outputs { s += "| `\(p.name)` | \(p.typeText) | \(p.doc) |\n" }
            s += "\n"
        }
        if !d.parameters.isEmpty {
            s += "**Parameters**\n\n| parameter | type | default | range | description |\n|---|---|---|---|---|\n"
            for p in d.parameters {
                s += "| `\(p.name)` | \(p.typeName) | `\(p.defaultText)` | \(p.rangeText ?? "") | \(p.doc) |\n"
            }
            s += "\n"
        }
        if !d.commands.isEmpty {
            s += "**Commands**\n\n| command | arguments | description |\n|---|---|---|\n"
            for c in d.commands {
                s += "| `\(c.name)` | \(c.usage.split(separator: "|", omittingEmptySubsequences: false).joined(separator: "\\|")) | \(c.doc) |\n"
            }
            s += "\n"
        }
        if let priority = d.priority {
            s += "**Priority:** `\(priority)` (\(Self.priorityNote(priority))); `priority:` in a config overrides it.\n\n"
        }
        if d.carriesForward || !d.adaptations.isEmpty { s += "**Under load**: \(Self.loadNote(d))\n\n" }
        return s
    }

    /// One kind for a terminal.
    public static func text(_ d: NodeDescription) -> String {
        var s = "\(d.kind) — \(d.summary)\n"
        if !d.details.isEmpty { s += "\n" + d.details + "\n" }
        func pad(_ t: String, _ n: Int) -> String { t.count >= n ? t + " " : t + String(repeating: " ", count: n - t.count) }
        if !d.inputs.isEmpty {
            s += "\nInputs:\n"
            for p in d.inputs { s += "  \(pad(p.name, 16))\(pad(p.typeText + (p.isOptional ? "?" : ""), 14))\(p.doc)\n" }
        }
        if !d.outputs.isEmpty {
            s += "\nOutputs:\n"
            for p in d.outputs { s += "  \(pad(p.name, 16))\(pad(p.typeText, 14))\(p.doc)\n" }
        }
        if !d.parameters.isEmpty {
            s += "\nParameters:\n"
            for p in d.parameters {
                let range = p.rangeText.map { ", \($0)" } ?? ""
                s += "  \(pad(p.name, 18))\(p.doc)\n  \(pad("", 18))\(p.typeName), default \(p.defaultText)\(range)\n"
            }
        }
        if !d.commands.isEmpty {
            s += "\nCommands:\n"
            for c in d.commands { s += "  \(pad(c.name + " " + c.usage, 18))\(c.doc)\n" }
        }
        if let priority = d.priority { s += "\nPriority: \(priority) (\(Self.priorityNote(priority)))\n" }
        if d.carriesForward || !d.adaptations.isEmpty { s += "\nUnder load: \(Self.loadNote(d))\n" }
        return s
    }
}
