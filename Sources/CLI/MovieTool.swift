// MovieTool: the tools that take images or movies (`detect`, `matte`) — which paths are movies,
// and how a movie runs through a graph of the nodes the tool stands for.
import ArgumentParser
import CineGraph
import Foundation
import Logging

enum MovieTool {
    /// What `ImageFile` reads; any other path is taken for a movie.
    static let imageExtensions: Set<String> = ["png", "jpg", "jpeg"]

    /// Whether `path` names an image (by its extension) rather than a movie.
    static func isImage(_ path: String) -> Bool {
        imageExtensions.contains((path as NSString).pathExtension.lowercased())
    }

    /// Runs the graph `name` on the movie at `path`: node `source` reads its frames (`source.left`),
    /// `nodes` adds the rest; a progress bar on `progressNode` when the frame count is known. A
    /// file that is missing or not a movie throws a ``ToolError`` naming it.
    static func run(_ path: String, name: String, progressNode: String, logger: Logger, quiet: Bool,
                    nodes: (inout GraphSpec) -> Void) throws -> ToolRun {
        let source = try describe(path)
        var spec = GraphSpec(name: name)
        spec.add("source", kind: "file", ["path": path, "fps": source.fps])
        nodes(&spec)
        return try ToolGraph.run(spec, logger: logger, quiet: quiet,
                                 progress: source.frames.map { (node: progressNode, total: $0) })
    }

    /// The movie at `path` as GStreamer decodes it (``StabilizeCommand/describe(_:)``); a file
    /// that is missing or not a movie throws a ``ToolError`` naming it.
    static func describe(_ path: String) throws -> (width: Int, height: Int, fps: Double, frames: Int?) {
        guard FileManager.default.isReadableFile(atPath: path) else { throw ToolError("\(path): no such file, or it is not readable") }
        do { return try StabilizeCommand.describe(path) } catch {
            throw ToolError("\(path): GStreamer cannot read this file as video: \(error)")
        }
    }
}
