// Small node kinds used by the runtime tests: a counting source, filters and a collecting sink.
import CineGraph
import CineMedia
import Foundation
import Synchronization

/// Emits 0, 1, 2, … at t = i ms; `count: 0` never ends on its own.
struct Tick: Node {
    static let kind = "tick"
    static let summary = "Counts."
    @Output("The count") var value: Int
    @Output("The count as text") var text: String
    @Parameter(default: 10, range: 0...1_000_000, "How many to send (0 = until stopped)") var count: Int
    @Parameter(default: false, "Live source") var live: Bool
    @Parameter(default: 0, range: 0...1, "Seconds to sleep per packet") var pace: Double
    @Parameter(default: 1, range: 1...100, "Step between values") var stepSize: Int
    var i = 0
    var isLive: Bool { live }
    mutating func process(_ ctx: inout NodeContext) throws {
        if count > 0 && i >= count {
            ctx.endOfStream()
            return
        }
        if pace > 0 { Thread.sleep(forTimeInterval: pace) }
        ctx.timestamp = Timestamp(nanoseconds: Int64(i) * 1_000_000)
        value = i * stepSize
        if ctx.isConnected($text) { text = String(i) }
        i += 1
    }
}

/// Negates: an output that shares its name with its input (`value` in, `value` out).
struct Negate: Node {
    static let kind = "negate"
    static let summary = "Negates."
    @Input("A number") var value: Int
    @Output(name: "value", "The number negated") var negated: Int
    mutating func process(_ ctx: inout NodeContext) throws {
        if ctx.isConnected($negated) { negated = -value }
    }
}

/// Doubles; skips odd values when `evens-only` is set; fails at `fail-at`.
struct Doubler: Node {
    static let kind = "doubler"
    static let summary = "Doubles."
    @Input("A number") var input: Int
    @Output("Twice the number") var output: Int
    @Parameter(default: false, "Emit nothing for odd inputs") var evensOnly: Bool
    @Parameter(default: -1, range: -1...1_000_000, "Throw at this input value") var failAt: Int
    @Parameter(default: 1, range: 1...10, "Multiplier applied after doubling") var factor: Int
    @Parameter(default: 0, range: 0...1, "Seconds to sleep per packet") var delay: Double
    static let commands = [CommandDescription("ping", "Answers pong")]
    mutating func process(_ ctx: inout NodeContext) throws {
        if input == failAt { throw TestFailure(message: "boom at \(input)") }
        if delay > 0 { Thread.sleep(forTimeInterval: delay) }
        if evensOnly && input % 2 == 1 { return }
        output = input * 2 * factor
    }
    mutating func handle(_ command: NodeCommand, _ ctx: inout NodeContext) throws -> String {
        guard command.name == "ping" else { throw NodeCommandError("unknown command \(command.name)") }
        return "pong \(factor)"
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Adds two numbers of one instant.
struct Adder: Node {
    static let kind = "adder"
    static let summary = "Adds."
    @Input("First") var a: Int
    @Input("Second") var b: Int
    @OptionalInput("Optional third") var c: Int?
    @Output("Sum") var sum: Int
    mutating func process(_ ctx: inout NodeContext) throws { sum = a + b + (c ?? 0) }
}

/// Posts a `value` event per packet, a `finished` event with the count and its thread's
/// niceness; sleeps `delay` per packet and `first-delay` on the first (an encoder starting).
struct Collect: Node {
    static let kind = "collect"
    static let summary = "Collects."
    @Input("Values") var input: Int
    @Parameter(default: 0, range: 0...1, "Seconds to sleep per packet") var delay: Double
    @Parameter(default: 0, range: 0...5, "Seconds to sleep on the first packet") var firstDelay: Double
    var received = 0
    mutating func process(_ ctx: inout NodeContext) throws {
        if received == 0 && firstDelay > 0 { Thread.sleep(forTimeInterval: firstDelay) }
        if delay > 0 { Thread.sleep(forTimeInterval: delay) }
        received += 1
        ctx.post("value", ["v": String(input), "t": String(ctx.timestamp.nanoseconds), "carried": ctx.carried.joined(separator: ",")])
    }
    mutating func finish(_ ctx: inout NodeContext) throws {
        ctx.post("finished", ["count": String(received), "nice": String(NodePriority.currentThreadNiceness)])
    }
}

/// Takes a string (for type mismatch tests).
struct TextSink: Node {
    static let kind = "text-sink"
    static let summary = "Takes text."
    @Input("Text") var input: String
    @Parameter(default: "", "Any text (a path, say)") var label: String
    mutating func process(_ ctx: inout NodeContext) throws {}
}

/// A sink whose every input is optional.
struct OptionalSink: Node {
    static let kind = "optional-sink"
    static let summary = "Takes anything."
    @OptionalInput("Maybe a number") var input: Int?
    mutating func process(_ ctx: inout NodeContext) throws {}
}

/// Holds `depth` packets back, sends each with its own timestamp, and flushes the rest in `finish`.
struct Hold: Node {
    static let kind = "hold"
    static let summary = "Holds packets back."
    @Input("Values") var input: Int
    @Output("The same values, later") var output: Int
    @Parameter(default: 3, range: 0...100, "Packets held") var depth: Int
    var held: [(Timestamp, Int)] = []
    mutating func process(_ ctx: inout NodeContext) throws {
        held.append((ctx.timestamp, input))
        while held.count > depth {
            let (t, v) = held.removeFirst()
            output = v
            ctx.emit(at: t)
        }
    }
    mutating func finish(_ ctx: inout NodeContext) throws {
        for (t, v) in held {
            output = v
            ctx.emit(at: t)
        }
        held.removeAll()
    }
}

/// Forwards a `ping` to another node through the graph's control handle; replies land in `replies`.
struct Relay: Node {
    static let kind = "relay"
    static let summary = "Relays a command."
    static let replies = Mutex<[String]>([])
    @Input("Values") var input: Int
    @Parameter(default: "", "Node to ping at the first packet") var target: String
    var sent = false
    mutating func process(_ ctx: inout NodeContext) throws {
        guard !sent else { return }
        sent = true
        let doublers = ctx.graph.nodes(ofKind: "doubler").joined(separator: ",")
        ctx.graph.send(.command(NodeCommand("ping")), to: target) { result in
            let text: String
            switch result {
            case .success(let s): text = s
            case .failure(let e): text = "error: \(e)"
            }
            Relay.replies.withLock { $0.append("\(text) [\(doublers)]") }
        }
    }
}

func testRegistry() -> NodeRegistry {
    let r = NodeRegistry()
    r.register(Tick.self)
    r.register(Doubler.self)
    r.register(Adder.self)
    r.register(Collect.self)
    r.register(TextSink.self)
    r.register(OptionalSink.self)
    r.register(Hold.self)
    r.register(Relay.self)
    r.register(Heavy.self)
    r.register(Analysis.self)
    r.register(LateAnalysis.self)
    r.register(TwoCounts.self)
    r.register(Negate.self)
    r.register(Frames.self)
    r.register(LooseFrames.self)
    r.register(Brighten.self)
    r.register(LumaSink.self)
    return r
}

/// Two outputs of one type: `value` and `input` (named like Doubler's input).
struct TwoCounts: Node {
    static let kind = "two-counts"
    static let summary = "Counts twice."
    @Output("The count") var value: Int
    @Output("The count again") var input: Int
    var i = 0
    mutating func process(_ ctx: inout NodeContext) throws {
        guard i < 3 else { return ctx.endOfStream() }
        ctx.timestamp = Timestamp(nanoseconds: Int64(i))
        (value, input) = (i, i)
        i += 1
    }
}

/// Passes numbers on after `cost` seconds of work (never less than `floor`: a preview the
/// controller cannot relieve); the load controller may turn `cost` down.
struct Heavy: Node {
    static let kind = "heavy"
    static let summary = "Works hard."
    static var adaptations: [NodeAdaptation] { [NodeAdaptation("cost", steps: ["0.05", "0.002"])] }
    @Input("A number") var input: Int
    @Output("The number") var output: Int
    @Parameter(default: 0.05, range: 0...1, "Seconds of work per packet") var cost: Double
    @Parameter(default: 0, range: 0...1, "Seconds of work per packet whatever `cost` says") var floor: Double
    mutating func process(_ ctx: inout NodeContext) throws {
        Thread.sleep(forTimeInterval: max(cost, floor))
        output = input
        ctx.post("cost", ["v": String(cost)])
    }
}

/// A cheap analysis that gives way last (``CarryOrder/last``), like a detector: sends its
/// input ×100 and posts its `every`, a knob the load controller multiplies in a live take.
struct LateAnalysis: Node {
    static let kind = "late-analysis"
    static let summary = "Finds who is where."
    static let carriesForward = true
    static let carryOrder = CarryOrder.last
    static var adaptations: [NodeAdaptation] { [NodeAdaptation("every", factors: [1, 2, 3])] }
    @Input("A number") var input: Int
    @Output("The number × 100") var output: Int
    @Parameter(default: 2, range: 1...100, "A detection every N frames") var every: Int
    mutating func process(_ ctx: inout NodeContext) throws {
        output = input * 100
        ctx.post("every", ["v": String(every)])
    }
}

/// A slow analysis whose last output may stand in for a frame (``Node/carriesForward``): sends
/// its input ×10 after `cost` seconds.
struct Analysis: Node {
    static let kind = "analysis"
    static let summary = "Analyses slowly."
    static let carriesForward = true
    @Input("A number") var input: Int
    @Output("The number × 10") var output: Int
    @Parameter(default: 0.05, range: 0...1, "Seconds of work per packet") var cost: Double
    mutating func process(_ ctx: inout NodeContext) throws {
        Thread.sleep(forTimeInterval: cost)
        output = input * 10
    }
}

/// Collects events from a runner, thread-safely.
final class Events: Sendable {
    private let list = Mutex<[GraphEvent]>([])
    init(_ runner: GraphRunner) { runner.subscribe { e in self.list.withLock { $0.append(e) } } }
    var all: [GraphEvent] { list.withLock { $0 } }
    func values(from node: String) -> [Int] {
        all.filter { $0.node == node && $0.name == "value" }.compactMap { Int($0.fields["v"]!) }
    }
    /// The `carried` field of each value event of `node`, in order.
    func carried(from node: String) -> [String] {
        all.filter { $0.node == node && $0.name == "value" }.map { $0.fields["carried"] ?? "" }
    }
    func finishedCount(_ node: String) -> Int? {
        all.first { $0.node == node && $0.name == "finished" }.flatMap { Int($0.fields["count"]!) }
    }
}

/// Three small 4×2 images in a pixel format named by text, at t = 0, 1, 2 ms.
struct ThreeImages {
    var i = 0
    mutating func next(_ format: String, _ ctx: inout NodeContext) -> Image? {
        guard i < 3 else {
            ctx.endOfStream()
            return nil
        }
        ctx.timestamp = Timestamp(nanoseconds: Int64(i) * 1_000_000)
        i += 1
        return Image(width: 4, height: 2, format: PixelFormat(rawValue: format) ?? .i420)
    }
}

/// Images in `format`, declared as i420 or rgba8.
struct Frames: Node {
    static let kind = "frames"
    static let summary = "Makes images."
    @Output(formats: [.i420, .rgba8], "Images in `format`") var video: Image
    @Parameter(default: "i420", "i420 or rgba8") var format: String
    var images = ThreeImages()
    mutating func process(_ ctx: inout NodeContext) throws { if let v = images.next(format, &ctx) { video = v } }
}

/// Like `frames`, but declares nothing about its formats (a plugin written before formats).
struct LooseFrames: Node {
    static let kind = "loose-frames"
    static let summary = "Makes images, formats undeclared."
    @Output("Images in `format`") var video: Image
    @Parameter(default: "i420", "any pixel format") var format: String
    var images = ThreeImages()
    mutating func process(_ ctx: inout NodeContext) throws { if let v = images.next(format, &ctx) { video = v } }
}

/// Passes images on in their own format.
struct Brighten: Node {
    static let kind = "brighten"
    static let summary = "Keeps the format."
    @Input("Images") var video: Image
    @Output(formatOf: "video", "The same images") var brightened: Image
    mutating func process(_ ctx: inout NodeContext) throws { brightened = video }
}

/// Takes only luma formats; posts each image's format.
struct LumaSink: Node {
    static let kind = "luma-sink"
    static let summary = "Takes gray8 or I420."
    @Input(formats: [.gray8, .i420], "Images") var video: Image
    mutating func process(_ ctx: inout NodeContext) throws { ctx.post("format", ["f": video.format.rawValue]) }
}
