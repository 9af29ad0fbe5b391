// `cinegraph matte`: a person matte of each image — MediaPipe's selfie segmentation on LiteRT,
// brought to the image's size along its own edges (MatteUpsampler) — written as a gray PNG.
import ArgumentParser
import CineGStreamer
import CineInference
import CineMedia
import CineVision
import Foundation

struct MatteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "matte",
        abstract: "Write a person matte of each image (255 = person) as a gray PNG.",
        discussion: """
            The `matte` node's model (selfie segmentation, 256×144 landscape by default) runs on \
            each image; its matte is brought to the image's full size by a guided filter that \
            follows the image's own edges (hair, shoulders), unless --model-size keeps it at the \
            model's size. Writes DIR/NAME.matte.png for each image and prints one line per \
            image: the matte's path, the share of the image that is person, the time.
            """)

    @Argument(help: "Image files (PNG or JPEG).") var images: [String]
    @Option(name: [.short, .long], help: "Folder for the mattes (created if missing).") var output = "."
    @Option(help: "Segmentation model file (a name in .models/ or a path).") var model = PersonMatte.landscapeFile
    @Flag(help: "Keep the matte at the model's size (no guided upsampling).") var modelSize = false
    @Option(help: "Guided filter window radius, in matte pixels.") var radius = MatteUpsampler().radius
    @Option(help: "Guided filter regularisation (luma 0…1, squared): larger keeps closer to the model's matte.")
    var epsilon = Double(MatteUpsampler().epsilon)

    func run() throws {
        let person: PersonMatte
        do { person = try PersonMatte(file: model, threads: 1) } catch let e as InferenceError { throw ValidationError(e.description) }
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        for path in images {
            let t0 = Date()
            let color = try ImageFile.read(path, as: .rgba8)
            let coarse: Image
            do { coarse = try person.estimate(color) } catch let e as InferenceError { throw ValidationError("\(path): \(e.description)") }
            let matte = modelSize ? coarse : MatteUpsampler(radius: radius, epsilon: Float(epsilon)).upsample(coarse, guide: Self.luma(of: color))
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

    /// BT.601 luma of an RGBA image, the guide the upsampler follows.
    static func luma(of rgba: Image) -> Image {
        let out = Image(width: rgba.width, height: rgba.height, format: .gray8)
        for y in 0..<rgba.height {
            let s = rgba.plane(0).row(y, as: UInt8.self), d = out.plane(0).row(y, as: UInt8.self)
            for x in 0..<rgba.width {
                let r = Int(s[4 * x]), g = Int(s[4 * x + 1]), b = Int(s[4 * x + 2])
                d[x] = UInt8((77 * r + 150 * g + 29 * b + 128) >> 8)
            }
        }
        return out
    }
}
