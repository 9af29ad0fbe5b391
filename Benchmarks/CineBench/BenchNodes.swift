// Minimal node kinds for measuring the runtime's own cost per packet.
import CineGraph
import CineMedia

struct CountSource: Node {
    static let kind = "bench-source"
    static let summary = "Emits integers as fast as the graph takes them."
    @Output("Counter") var value: Int
    @Parameter(default: 100_000, range: 1...100_000_000, "How many") var count: Int
    var i = 0
    mutating func process(_ ctx: inout NodeContext) throws {
        guard i < count else { return ctx.endOfStream() }
        ctx.timestamp = Timestamp(nanoseconds: Int64(i))
        value = i
        i += 1
    }
}

struct PassThrough: Node {
    static let kind = "bench-pass"
    static let summary = "Forwards its input."
    @Input("In") var input: Int
    @Output("Out") var output: Int
    mutating func process(_ ctx: inout NodeContext) throws { output = input }
}

struct Discard: Node {
    static let kind = "bench-sink"
    static let summary = "Drops its input."
    @Input("In") var input: Int
    mutating func process(_ ctx: inout NodeContext) throws {}
}
