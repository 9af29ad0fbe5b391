// `CineBench tensors DIR PHOTO...`: each learned model run by cinegraph's inference layer on real
// photos, its input and output tensors written as raw float32 files with a manifest, for
// Benchmarks/detector/tensors.py to run the same inputs through the reference runtime (LiteRT's
// Python Interpreter) and compare tensor by tensor.
import CineGStreamer
import CineGraph
import CineInference
import CineMedia
import CineVision
import Foundation

/// The models cinegraph ships, and how each one's input is made from a photo.
private let tensorModels: [(file: String, blazeFace: BlazeFace.Variant?)] = [
    ("face_detection_short_range.tflite", .shortRange),
    ("face_detection_full_range_sparse.tflite", .fullRange),
    ("pose_detection.tflite", .pose),
    ("palm_detection_lite.tflite", .palm),
    ("face_landmark.tflite", nil),
    ("selfie_segmentation.tflite", nil),
    ("selfie_segmentation_landscape.tflite", nil),
]

/// `photo` (RGBA) resized bilinearly to `width`×`height` into `input`, RGB in 0…1 (the
/// landmark and segmentation models' convention).
private func fillUnit(_ input: UnsafeMutableBufferPointer<Float>, from photo: Image, width: Int, height: Int) {
    let plane = photo.plane(0), pw = photo.width, ph = photo.height
    let sx = Double(pw) / Double(width), sy = Double(ph) / Double(height)
    for y in 0..<height {
        let v = min(max(0, (Double(y) + 0.5) * sy - 0.5), Double(ph - 1))
        let j0 = Int(v), j1 = min(j0 + 1, ph - 1), fy = Float(v - Double(j0))
        let top = plane.row(j0, as: UInt8.self), bottom = plane.row(j1, as: UInt8.self)
        for x in 0..<width {
            let u = min(max(0, (Double(x) + 0.5) * sx - 0.5), Double(pw - 1))
            let i0 = Int(u), i1 = min(i0 + 1, pw - 1), fx = Float(u - Double(i0))
            for c in 0..<3 {
                let a = Float(top[4 * i0 + c]) + fx * (Float(top[4 * i1 + c]) - Float(top[4 * i0 + c]))
                let b = Float(bottom[4 * i0 + c]) + fx * (Float(bottom[4 * i1 + c]) - Float(bottom[4 * i0 + c]))
                input[(y * width + x) * 3 + c] = (a + fy * (b - a)) / 255
            }
        }
    }
}

func runTensorDump(_ arguments: [String]) throws {
    guard let dir = arguments.first, arguments.count >= 2 else {
        throw BenchError("usage: CineBench tensors DIR PHOTO...")
    }
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    var manifest: [[String: Any]] = []
    for photoPath in arguments.dropFirst() {
        let photo = try ImageFile.read(photoPath, as: .rgba8)
        let name = URL(fileURLWithPath: photoPath).deletingPathExtension().lastPathComponent
        for (file, variant) in tensorModels {
            let model = try InferenceModel(file: try ModelFiles.resolve(file), threads: 1)
            let shape = model.inputShapes[0]
            if let variant {
                _ = BlazeFace(variant).prepareInput(photo, into: model.input(0))
            } else {
                fillUnit(model.input(0), from: photo, width: shape[2], height: shape[1])
            }
            try model.run()
            let stem = "\(dir)/\(file.replacingOccurrences(of: ".tflite", with: "")).\(name)"
            let input = model.input(0)
            try Data(buffer: UnsafeBufferPointer(input)).write(to: URL(fileURLWithPath: stem + ".in.bin"))
            var outputs: [String] = []
            for k in 0..<model.outputShapes.count {
                let path = "\(stem).out\(k).bin"
                try Data(buffer: model.output(k)).write(to: URL(fileURLWithPath: path))
                outputs.append(path)
            }
            manifest.append(["model": try ModelFiles.resolve(file), "photo": photoPath, "input": stem + ".in.bin",
                             "input_shape": shape, "outputs": outputs, "output_shapes": model.outputShapes])
        }
    }
    let json = try JSONSerialization.data(withJSONObject: manifest, options: [.prettyPrinted, .sortedKeys])
    try json.write(to: URL(fileURLWithPath: "\(dir)/manifest.json"))
    print("wrote \(manifest.count) model runs to \(dir)/manifest.json")
}
