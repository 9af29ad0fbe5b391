// timecode-demo: registers a custom node beside the built-in ones and runs a graph from code.
import CineGStreamer
import CineGraph
import CineNodes
import Foundation

let folder = CommandLine.arguments.dropFirst().first ?? "out"
let registry = NodeRegistry.standard()
registry.register(TimecodeNode.self)

let config = """
    graph: timecode-demo
    nodes:
      camera: { kind: synthetic, size: 320x180, live: false, duration: 1s }
      stamp: { kind: timecode, video: camera.left, scale: 3 }
      movie: { kind: movie, video: stamp, path: \(folder)/timecode.mp4 }
    """
do {
    let graph = try Graph.parse(config, file: "timecode-demo", registry: registry)
    let runner = GraphRunner(graph: graph)
    runner.subscribe { print("event: \($0)") }
    let summary = try runner.run()
    let info = try MediaProbe.inspect(path: "\(folder)/timecode.mp4")
    print("timecode-demo: \(summary.nodes.map { "\($0.name) \($0.processed)" }.joined(separator: ", ")); "
        + "movie \(info.width)x\(info.height), \(info.frameCount) frames")
    guard info.frameCount == 30 else {
        print("timecode-demo: expected 30 frames")
        exit(1)
    }
} catch {
    print("timecode-demo: \(error)")
    exit(1)
}
