// GrayscalePlugin: a node kind in a dynamic library, loaded by a graph's `plugins:` list.
import CineGraph
import CineMedia

/// Kind `grayscale`: removes colour (sets the chroma planes to neutral) and can invert.
struct GrayscaleNode: Node {
    static let kind = "grayscale"
    static let summary = "Removes colour (plugin example)."

    @Input("Frames, I420") var video: Image
    @Output("Grey frames") var out: Image
    @Parameter(default: false, "Also invert the luma") var invert: Bool

    mutating func process(_ ctx: inout NodeContext) throws {
        guard video.format == .i420 else {
            throw NodeCommandError("grayscale takes I420 frames, got \(video.format)")
        }
        let frame = video.copy(using: ctx.pool)
        frame.plane(1).fill(byte: 128)
        frame.plane(2).fill(byte: 128)
        if invert {
            let y = frame.plane(0)
            for row in 0..<y.height {
                let p = y.row(row, as: UInt8.self)
                for x in 0..<y.width { p[x] = 255 &- p[x] }
            }
        }
        out = frame
    }
}

/// The entry point cinegraph calls after loading the library.
@_cdecl("cinegraph_plugin_register")
public func cinegraphPluginRegister(_ registry: UnsafeMutableRawPointer) {
    Unmanaged<NodeRegistry>.fromOpaque(registry).takeUnretainedValue().register(GrayscaleNode.self)
}
