// `cinegraph matte`: a person matte of each image — MediaPipe's selfie segmentation on LiteRT,
// brought to the image's size along its own edges (MatteUpsampler) — written as a gray PNG.
import ArgumentParser
import CineGStreamer
import CineGraph
import CineInference
import CineMedia
import CineVision
import Foundation
import Logging

struct MatteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "matte",
        abstract: "Write a person matte of each image or movie frame (255 = person) as gray PNGs.",
        discussion: """
            The `matte` node's model (selfie segmentation, 256×144 landscape by default) runs on \
            each image; its matte is brought to the image's full size by a guided filter that \
            follows the image's own edges (hair, shoulders), unless --model-size keeps it at the \
            model's size. Writes DIR/NAME.matte.png for each image and prints one line per \
            image: the matte's path, the share of the image that is person, the time. A movie \
            (any other file GStreamer decodes) runs through the `matte` node, steadied over time \
            as in a live graph, into DIR/NAME.matte/00000.png, 00001.png, … (the guided filter \
            at its defaults).
            """)

    @Argument(help: "Image files (PNG or JPEG) or movies.") var images: [String]
    @Option(name: [.short, .long], help: "Folder for the mattes (created if missing).") var output = "."
    @Option(help: "Segmentation model file (a name in .models/ or a path).") var model = PersonMatte.landscapeFile
    @Flag(help: "Keep the matte at the model's size (no guided upsampling).") var modelSize = false
    @Option(help: "Guided filter window radius, in matte pixels.") var radius = MatteUpsampler().radius
    @Option(help: "Guided filter regularisation (luma 0…1, squared): larger keeps closer to the model's matte.")
    var epsilon = Double(MatteUpsampler().epsilon)
    @Flag(help: "No progress line for movies.") var quiet = false
    @OptionGroup var logging: LoggingOptions

    func run() throws {
        let person: PersonMatte
        do { person = try PersonMatte(file: model, threads: 1) } catch let e as InferenceError { throw ToolError(e.description) }
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        let logger = images.allSatisfy(MovieTool.isImage) ? nil : try logging.bootstrap()
        for path in images {
            if !MovieTool.isImage(path), let logger {
                try movie(path, logger: logger)
                continue
            }
            let t0 = Date()
            let color = try ImageFile.read(path, as: .rgba8)
            let coarse: Image
            do { coarse = try person.estimate(color) } catch let e as InferenceError { throw ToolError("\(path): \(e.description)") }
            let matte = modelSize ? coarse : MatteUpsampler(radius: radius, epsilon: Float(epsilon)).upsample(coarse, guide: color)
            let name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension + ".matte.png"
            let out = (output as NSString).appendingPathComponent(name)
            try ImageFile.write(matte, to: out)
            var person = 0
            for y in 0..<matte.height {
                let row = matte.plane(0).row(y, as: UInt8.self)
                for x in 0..<matte.width where row[x] >= 128 { person += 1 }
            }
            let share = 100 * Double(person) / Double(matte.width * matte.height)
            print(String(format: "%@: %dx%d matte, %.1f %% person, %.1f ms", out, matte.width, matte.height, share,
                         Date().timeIntervalSince(t0) * 1000))
        }
    }

    /// The movie at `path` through the `matte` node into DIR/NAME.matte/%05d.png.
    private func movie(_ path: String, logger: Logger) throws {
        let folder = (output as NSString).appendingPathComponent(((path as NSString).lastPathComponent as NSString).deletingPathExtension + ".matte")
        let frames = (folder as NSString).appendingPathComponent("%05d.png")
        let t0 = Date()
        let run = try MovieTool.run(path, name: "matte", progressNode: "frames", logger: logger, quiet: quiet) { g in
            g.add("matte", kind: "matte", inputs: ["image": "source.left"], ["model": model])
            g.add("frames", kind: "frames", inputs: ["video": modelSize ? "matte.matte" : "matte.full"], ["path": frames])
        }
        print(String(format: "%@: %d mattes, %.1f ms a frame", folder + "/", run.frames(of: "frames"),
                     Date().timeIntervalSince(t0) * 1000 / Double(max(1, run.frames(of: "frames")))))
    }
}
