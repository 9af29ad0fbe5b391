// LoadController: one controller for the whole graph that watches the take's queues and the
// previews' shedding, and turns the previews' declared knobs down under load (and back up).
import CineMedia
import Foundation
import Synchronization

/// A parameter a node kind can turn down when the machine is short: its values from the full
/// work to the lightest, as config text (for example bokeh `quality`: standard → draft). Level 0
/// restores the value the config gave; level L sets `steps[min(L, steps.count − 1)]`.
public struct NodeAdaptation: Sendable, Hashable {
    /// The parameter's config name.
    public var parameter: String
    /// Its values, the full work first.
    public var steps: [String]
    /// Declares that `parameter` may be stepped through `steps` (full work first).
    public init(_ parameter: String, steps: [String]) {
        self.parameter = parameter
        self.steps = steps
    }
}

/// What the load controller looks at, and when it moves: a pure decision, testable alone.
///
/// Every tick (0.5 s) it measures the **pressure**: the share of packets the previews shed in
/// the last tick, and how full the take's live queues are. Pressure (shed > `shedHigh`, or a take
/// queue over `depthHigh` of its capacity) on `upTicks` ticks in a row raises the level by one;
/// calm (shed < `shedLow` and take queues under `depthLow`) on `downTicks` ticks in a row lowers
/// it by one. Raising quickly and lowering slowly is the hysteresis: no flapping.
public struct LoadPolicy: Sendable, Hashable {
    /// Share of preview packets shed in a tick above which the tick is under pressure.
    public var shedHigh = 0.2
    /// Share below which (with shallow take queues) the tick is calm.
    public var shedLow = 0.05
    /// Fill of the fullest take queue (0…1) above which the tick is under pressure.
    public var depthHigh = 0.5
    /// Fill below which (with little shedding) the tick is calm.
    public var depthLow = 0.2
    /// Ticks under pressure in a row that raise the level by one.
    public var upTicks = 2
    /// Calm ticks in a row that lower the level by one.
    public var downTicks = 10
    /// The highest level (the lightest step of every knob).
    public var maxLevel: Int
    /// Creates a policy with levels 0…`maxLevel`.
    public init(maxLevel: Int) { self.maxLevel = maxLevel }

    /// The decision state between ticks.
    public struct State: Sendable, Hashable {
        /// The load level: 0 = previews at full work.
        public var level = 0
        var pressured = 0
        var calm = 0
        /// The state at the start: level 0.
        public init() {}
    }

    /// One tick: the previews' shed share and the take's fullest queue (0…1) → the new state.
    public func tick(_ s: State, shed: Double, takeDepth: Double) -> State {
        var s = s
        if shed > shedHigh || takeDepth > depthHigh {
            s.pressured += 1
            s.calm = 0
            if s.pressured >= upTicks && s.level < maxLevel {
                s.level += 1
                s.pressured = 0
            }
        } else if shed < shedLow && takeDepth < depthLow {
            s.calm += 1
            s.pressured = 0
            if s.calm >= downTicks && s.level > 0 {
                s.level -= 1
                s.calm = 0
            }
        } else {
            s.pressured = 0
            s.calm = 0
        }
        return s
    }
}

/// Runs a ``LoadPolicy`` against a running graph and posts a `load` event (node `graph`, fields
/// `level` and `changes`) each time the level moves. The levels are declared steps, lightest last:
/// first the preview nodes' ``NodeAdaptation`` parameters (set through the control channel),
/// then — once the previews are at their lightest and the take is still short — the take's
/// analysis (``Node/carriesForward``: disparity, detections, a matte) computed on one frame in 2,
/// 3, 4, then 6 and carried forward on the others. The frames themselves are never given up.
final class LoadController: Sendable {
    private let knobs: [(node: String, adaptation: NodeAdaptation, configured: String)]
    private let carriers: [String]
    private let setStride: @Sendable (Int) -> Void
    /// Levels the previews' knobs take (0…previewLevels); the take's steps come after.
    private let previewLevels: Int
    /// The take's analysis stride at each take step, lightest last.
    static let takeStrides = [2, 3, 4, 6]
    private let policy: LoadPolicy
    private let level = Atomic<Int>(0)
    private let peak = Atomic<Int>(0)

    /// The preview nodes' knobs of `graph` and the take's carrying nodes `carriers` (their
    /// stride set through `setStride`); `nil` when it has neither or nothing is live.
    init?(graph: Graph, carriers: [String] = [], setStride: @escaping @Sendable (Int) -> Void = { _ in }) {
        let knobs = graph.nodes.filter { $0.priority == .preview && $0.isLive }
            .flatMap { n in
                n.description.adaptations.map { (node: n.name, adaptation: $0, configured: n.parameterTexts[$0.parameter] ?? $0.steps[0]) }
            }
        guard !knobs.isEmpty || !carriers.isEmpty else { return nil }
        self.knobs = knobs
        self.carriers = carriers
        self.setStride = setStride
        previewLevels = knobs.map { $0.adaptation.steps.count - 1 }.max() ?? 0
        policy = LoadPolicy(maxLevel: previewLevels + (carriers.isEmpty ? 0 : Self.takeStrides.count))
    }

    /// The take's analysis stride at `level` (1 until the previews are at their lightest).
    func stride(atLevel level: Int) -> Int {
        level <= previewLevels ? 1 : Self.takeStrides[min(level - previewLevels, Self.takeStrides.count) - 1]
    }

    /// The level now (0 = full work).
    var currentLevel: Int { level.load(ordering: .relaxed) }
    /// The highest level reached.
    var peakLevel: Int { peak.load(ordering: .relaxed) }

    /// Ticks every `interval` seconds until `finished()` says so (or `summary()` has no runner).
    func run(interval: Double = 0.5, summary: @escaping @Sendable () -> RunSummary?, control: GraphControl,
             events: EventHub, finished: @escaping @Sendable () -> Bool) {
        let thread = Thread { [self] in
            var state = LoadPolicy.State()
            guard var last = summary() else { return }
            while !finished() {
                Thread.sleep(forTimeInterval: interval)
                guard !finished(), let now = summary() else { return }
                let preview = { (s: RunSummary) in s.edges.filter { $0.priority == .preview && $0.policy == .dropOldest } }
                let pushed = preview(now).reduce(0) { $0 + $1.pushed + $1.dropped } - preview(last).reduce(0) { $0 + $1.pushed + $1.dropped }
                let shed = Double(now.previewDrops - last.previewDrops) / Double(max(1, pushed))
                let depth = now.edges.filter { $0.priority == .take && $0.policy == .dropOldest }
                    .map { Double($0.depth) / Double(max(1, $0.capacity)) }.max() ?? 0
                last = now
                let next = policy.tick(state, shed: shed, takeDepth: depth)
                if next.level != state.level { apply(next.level, shed: shed, depth: depth, control: control, events: events) }
                state = next
            }
        }
        thread.name = "cinegraph.load"
        thread.start()
    }

    private func apply(_ newLevel: Int, shed: Double, depth: Double, control: GraphControl, events: EventHub) {
        level.store(newLevel, ordering: .relaxed)
        if newLevel > peak.load(ordering: .relaxed) { peak.store(newLevel, ordering: .relaxed) }
        var changes: [String] = []
        for k in knobs {
            let value = newLevel == 0 ? k.configured : k.adaptation.steps[min(newLevel, k.adaptation.steps.count - 1)]
            changes.append("\(k.node).\(k.adaptation.parameter)=\(value)")
            control.send(.set(parameter: k.adaptation.parameter, value: value), to: k.node) { _ in }
        }
        if !carriers.isEmpty {
            let stride = stride(atLevel: newLevel)
            setStride(stride)
            changes.append("\(carriers.joined(separator: ",")).every=\(stride)")
        }
        events.publish(GraphEvent(node: "graph", name: "load", timestamp: .zero, fields: [
            "level": String(newLevel), "changes": changes.joined(separator: " "),
            "shed": String(format: "%.2f", shed), "take-queue": String(format: "%.2f", depth),
        ]))
    }
}
