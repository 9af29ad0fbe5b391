// CineInference alone: the real LiteRT library running the real model files — shapes read from
// the file, outputs that depend on the input and come back the same for the same input, one model
// per thread count, and errors that name the file.
import CineInference
import Foundation
import Testing

@Suite struct InferenceModelTests {
    private func blazeFace(threads: Int = 1) throws -> InferenceModel {
        try InferenceModel(file: try ModelFiles.resolve("face_detection_short_range.tflite"), threads: threads)
    }

    @Test func shapesComeFromTheFile() throws {
        let model = try blazeFace()
        #expect(model.inputShapes == [[1, 128, 128, 3]])
        #expect(Set(model.outputShapes) == [[1, 896, 16], [1, 896, 1]])
    }

    @Test func outputsDependOnTheInputAndRepeatExactly() throws {
        let model = try blazeFace()
        func scores(_ fill: (Int) -> Float) throws -> [Float] {
            let input = model.input(0)
            for i in 0..<input.count { input[i] = fill(i) }
            try model.run()
            let index = model.outputShapes.firstIndex(of: [1, 896, 1])!
            return Array(model.output(index))
        }
        let flat = try scores { _ in 0 }
        let noise = try scores { i in Float((i &* 2_654_435_761) % 1000) / 500 - 1 }
        let again = try scores { i in Float((i &* 2_654_435_761) % 1000) / 500 - 1 }
        #expect(flat.allSatisfy(\.isFinite) && noise.allSatisfy(\.isFinite))
        #expect(flat != noise, "the model's output does not depend on its input")
        #expect(noise == again, "the same input gave another output")
    }

    @Test func twoThreadsGiveWhatOneGives() throws {
        let one = try blazeFace(threads: 1), two = try blazeFace(threads: 2)
        for model in [one, two] {
            let input = model.input(0)
            for i in 0..<input.count { input[i] = Float(i % 255) / 127.5 - 1 }
            try model.run()
        }
        for k in one.outputShapes.indices {
            let a = Array(one.output(k)), b = Array(two.output(k))
            let worst = zip(a, b).map { abs($0 - $1) }.max() ?? 0
            #expect(worst < 1e-3, "output \(k) differs by \(worst)")
        }
    }

    @Test func aFileThatIsNotAModelIsAnErrorNamingIt() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-model-\(getpid()).tflite").path
        try Data("not a model".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect { try InferenceModel(file: path) } throws: { error in
            (error as? InferenceError)?.file == path
        }
        #expect(throws: (any Error).self) { try ModelFiles.resolve("no-such-model.tflite") }
    }
}
