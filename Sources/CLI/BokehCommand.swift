// `cinegraph bokeh`: portrait-mode stills — an image plus its disparity map (PFM) in, the same
// image with synthetic shallow depth of field out.
import ArgumentParser
import CineGStreamer
import CineMedia
import CineNodes
import CineVision
import Foundation

struct BokehCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bokeh",
        abstract: "Render shallow depth of field into a still from its disparity map (portrait mode).",
        discussion: """
            The disparity map is a one-channel PFM in the Middlebury convention (little-endian \
            floats, rows bottom to top, +inf invalid), in pixels of its own width, of the same \
            aspect ratio as the image. Focus on a disparity (--focus-disparity, in the map's \
            pixels) or on a point of the image (--focus-point x,y in image pixels: the median \
            disparity around it). Output: .png or .jpg.

            Example: cinegraph bokeh left.png --disparity disp0.pfm --focus-point 640,360 --aperture 2 -o out.png
            """)

    @Argument(help: "The image: PNG, JPEG, PPM (read directly, full colour; 16-bit PNG is reduced to 8 bits), or any other format GStreamer decodes.") var image: String
    @Option(help: "Disparity map, PFM (Middlebury convention).") var disparity: String
    @Option(help: "Focus disparity, in pixels of the disparity map.") var focusDisparity: Double?
    @Option(help: "Focus point x,y in image pixels.") var focusPoint: PointArgument?
    @Option(help: "Aperture f-number, \(LensModel.minimumFNumber)...\(LensModel.maximumFNumber).")
    var aperture: Double = LensModel.defaultFNumber
    @Option(help: "Largest blur radius as a fraction of the image height.") var maxBlur: Double = 0.03
    @Option(help: "Speed / fidelity.") var quality: BokehQuality = .high
    @Option(name: .shortAndLong, help: "Output image (.png, .jpg).") var output: String

    func validate() throws {
        if (focusDisparity == nil) == (focusPoint == nil) {
            throw ValidationError("give exactly one of --focus-disparity and --focus-point")
        }
        guard LensModel.fNumberRange.contains(aperture) else {
            throw ValidationError("--aperture \(aperture) is outside \(LensModel.minimumFNumber)...\(LensModel.maximumFNumber)")
        }
        guard (0...0.2).contains(maxBlur) else { throw ValidationError("--max-blur must lie in 0...0.2") }
    }

    func run() throws {
        // Full colour in and out: the still never goes through 4:2:0.
        let picture: Image
        do {
            picture = try ImageFile.read(image, as: .rgba8)
        } catch {
            throw ToolError("\(error)")
        }
        guard picture.width > 0, picture.height > 0 else { throw ToolError("\(image): the image is empty (0 pixels)") }
        let pfm = try PortableFloatMap(contentsOf: disparity)
        let map = DisparityMap(values: pfm.values, referenceWidth: pfm.values.width, referenceHeight: pfm.values.height)
        let focus: Double
        if let focusDisparity {
            focus = focusDisparity
        } else if let point = focusPoint {
            guard (0..<Double(picture.width)).contains(point.x), (0..<Double(picture.height)).contains(point.y) else {
                throw ValidationError("--focus-point must be x,y inside the \(picture.width)x\(picture.height) image")
            }
            guard let d = Self.medianDisparity(map, atNormalized: point.x / Double(picture.width), point.y / Double(picture.height)) else {
                throw ValidationError("no valid disparity around --focus-point \(point)")
            }
            focus = d
        } else {
            throw ValidationError("give exactly one of --focus-disparity and --focus-point")
        }
        var settings = BokehRenderer.Settings()
        settings.maxBlur = maxBlur
        settings.quality = quality
        let renderer = BokehRenderer(settings: settings)
        let out: Image
        do {
            out = try renderer.render(picture, disparity: map, focusDisparity: focus, fNumber: aperture)
        } catch {
            throw ToolError("\(image): \(error)")
        }
        do {
            try ImageFile.write(out, to: output)
        } catch {
            throw ToolError("\(output): \(error)")
        }
        print("\(output): f/\(aperture), focus disparity \(String(format: "%.2f", focus)) px")
    }

    /// The median valid disparity in a 5×5-sample window of the map around a normalised point.
    static func medianDisparity(_ map: DisparityMap, atNormalized x: Double, _ y: Double) -> Double? {
        let plane = map.values.plane(0)
        let cx = min(plane.width - 1, Int(x * Double(plane.width))), cy = min(plane.height - 1, Int(y * Double(plane.height)))
        var values: [Float] = []
        for yy in max(0, cy - 2)...min(plane.height - 1, cy + 2) {
            for xx in max(0, cx - 2)...min(plane.width - 1, cx + 2) {
                let v = plane.row(yy, as: Float.self)[xx]
                if v.isFinite { values.append(v) }
            }
        }
        guard !values.isEmpty else { return nil }
        return Double(values.sorted()[values.count / 2])
    }
}
