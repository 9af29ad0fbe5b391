// LoadController: one controller for the whole graph that watches the take's queues and the
// previews' shedding, and turns the previews' declared knobs down under load (and back up).
import CineMedia
import Foundation
import Synchronization

/// A parameter a node kind can turn down when the machine is short: its values from the full
/// work to the lightest, as config text (for example bokeh `quality`: standard → draft), or as
/// factors of the configured whole number (for example the detector's `every`: ×1, ×2, ×3).
/// Step 0 restores the value the config gave; step S sets `steps[min(S, steps.count − 1)]` (or
/// the configured value times that factor). A preview's knobs step with the load level; a take
/// node's knobs step only once the previews are at their lightest (``LoadController``).
public struct NodeAdaptation: Sendable, Hashable {
    /// The parameter's config name.
    public var parameter: String
    /// Its values, the full work first (empty when the steps are ``factors``).
    public var steps: [String]
    /// Factors of the configured value, 1 first (empty when the steps are values).
    public var factors: [Int]
    /// Declares that `parameter` may be stepped through `steps` (full work first).
    public init(_ parameter: String, steps: [String]) {
        self.parameter = parameter
        self.steps = steps
        self.factors = []
    }
    /// Declares that the whole-number `parameter` may be multiplied by `factors` (1 first).
    public init(_ parameter: String, factors: [Int]) {
        self.parameter = parameter
        self.steps = []
        self.factors = factors
    }
    /// How many steps lighter than the configured work it can go.
    public var lightest: Int { max(steps.count, factors.count) - 1 }
    /// The value at `step` (0 = `configured`).
    public func value(atStep step: Int, configured: String) -> String {
        if step <= 0 { return configured }
        if !factors.isEmpty {
            guard let n = Int(configured) else { return configured }
            return String(n * factors[min(step, factors.count - 1)])
        }
        return steps[min(step, steps.count - 1)]
    }
}

/// Where a carrying node of the take (``Node/carriesForward``) stands in the order the take's
/// analysis gives way when the machine is short. The depth is carried first: a map a few frames
/// old is still right wherever nothing moved, and the focus reads it at the subject's box. Who
/// is where (and who is speaking) gives way last: the boxes and the mouths are what focus follows.
public enum CarryOrder: Int, Sendable, Comparable, CaseIterable {
    /// Carried from the take's first step (disparity, the matte, depth).
    case first
    /// Carried only from the take's third step, and at a smaller stride (detections, mouths).
    case last

    public static func < (a: CarryOrder, b: CarryOrder) -> Bool { a.rawValue < b.rawValue }

    /// The stride (compute one instant in this many) at each of the take's steps, lightest last.
    public var strides: [Int] {
        switch self {
        case .first: [2, 3, 4, 6]
        case .last: [1, 1, 2, 3]
        }
    }
    /// Instants a node of the take that processes every frame may be behind before this order
    /// carries at once, whatever the controller's stride (the frames come first).
    public var takeBehind: Int {
        switch self {
        case .first: 8
        case .last: 16
        }
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
/// first the preview nodes' ``NodeAdaptation`` parameters (set through the control channel);
/// then — once the previews are at their lightest and the take is still short — the take's
/// analysis, in the declared order (``CarryOrder``): at the take's step S the take nodes' own
/// knobs go to step S (the detector finds faces less often and tracks them in between), the
/// depth (``CarryOrder/first``) is computed on one frame in 2, 3, 4, then 6 and carried forward
/// on the others, and the detections (``CarryOrder/last``) only from step 3, on one frame in 2,
/// then 3. The frames themselves are never given up.
final class LoadController: Sendable {
    private typealias Knob = (node: String, adaptation: NodeAdaptation, configured: String, take: Bool)
    private let knobs: [Knob]
    private let carriers: [(name: String, order: CarryOrder)]
    private let setStride: @Sendable (CarryOrder, Int) -> Void
    /// Levels the previews' knobs take (0…previewLevels); the take's steps come after.
    private let previewLevels: Int
    /// The take's steps.
    static let takeSteps = 4
    private let policy: LoadPolicy
    private let level = Atomic<Int>(0)
    private let peak = Atomic<Int>(0)

    /// The live preview nodes' and take nodes' knobs of `graph`, and the take's carrying nodes
    /// `carriers` (their strides set through `setStride`); `nil` when it has none of them.
    init?(graph: Graph, carriers: [(name: String, order: CarryOrder)] = [],
          setStride: @escaping @Sendable (CarryOrder, Int) -> Void = { _, _ in }) {
        let knobs: [Knob] = graph.nodes.filter { $0.isLive && ($0.priority == .preview || $0.priority == .take) }
            .flatMap { n in
                n.description.adaptations.map {
                    (node: n.name, adaptation: $0,
                     configured: n.parameterTexts[$0.parameter] ?? ($0.steps.first ?? ""), take: n.priority == .take)
                }
            }
            .filter { !$0.configured.isEmpty }
        guard knobs.contains(where: { !$0.take }) || !carriers.isEmpty else { return nil }
        self.knobs = knobs
        self.carriers = carriers
        self.setStride = setStride
        previewLevels = knobs.filter { !$0.take }.map(\.adaptation.lightest).max() ?? 0
        let takeLevels = carriers.isEmpty && !knobs.contains(where: \.take) ? 0 : Self.takeSteps
        policy = LoadPolicy(maxLevel: previewLevels + takeLevels)
    }

    /// The take's step at `level` (0 until the previews are at their lightest).
    func takeStep(atLevel level: Int) -> Int { max(0, min(level - previewLevels, Self.takeSteps)) }

    /// The stride of the carrying nodes of `order` at `level` (1 = every frame).
    func stride(_ order: CarryOrder = .first, atLevel level: Int) -> Int {
        let step = takeStep(atLevel: level)
        return step == 0 ? 1 : order.strides[step - 1]
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
        let step = takeStep(atLevel: newLevel)
        for k in knobs {
            let value = k.adaptation.value(atStep: k.take ? step : newLevel, configured: k.configured)
            changes.append("\(k.node).\(k.adaptation.parameter)=\(value)")
            control.send(.set(parameter: k.adaptation.parameter, value: value), to: k.node) { _ in }
        }
        for order in CarryOrder.allCases {
            let names = carriers.filter { $0.order == order }.map(\.name)
            guard !names.isEmpty else { continue }
            let stride = stride(order, atLevel: newLevel)
            setStride(order, stride)
            changes.append("\(names.joined(separator: ",")).computed=1/\(stride)")
        }
        events.publish(GraphEvent(node: "graph", name: "load", timestamp: .zero, fields: [
            "level": String(newLevel), "changes": changes.joined(separator: " "),
            "shed": String(format: "%.2f", shed), "take-queue": String(format: "%.2f", depth),
        ]))
    }
}
