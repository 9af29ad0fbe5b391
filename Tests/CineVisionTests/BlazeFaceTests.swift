// BlazeFace: anchors as MediaPipe lays them out, decoding and weighted suppression on hand-made
// tensors, the letterbox's way back, and the real model (LiteRT) on a real photo and a
// synthetic frame.
import CineInference
import CineMedia
import Foundation
import Testing

@testable import CineVision

@Suite struct BlazeFaceTests {
    @Test func anchorsMatchMediaPipesLayout() {
        let short = BlazeFace(.shortRange).anchors
        #expect(short.count == 896)
        #expect(short[0] == .init(x: 0.5 / 16, y: 0.5 / 16) && short[1] == short[0])  // two per 16×16 cell
        #expect(short[512] == .init(x: 0.5 / 8, y: 0.5 / 8) && short[517] == short[512])  // six per 8×8 cell
        #expect(short[895] == .init(x: 7.5 / 8, y: 7.5 / 8))
        let full = BlazeFace(.fullRange).anchors
        #expect(full.count == 2304 && full[1] == .init(x: 1.5 / 48, y: 0.5 / 48))
    }

    @Test func decodeMergesOverlapsByScoreAndMapsThroughTheLetterbox() {
        let b = BlazeFace(.shortRange)
        var regressors = [Float](repeating: 0, count: 896 * 16), scores = [Float](repeating: -10, count: 896)
        // Two overlapping candidates on anchor 0's cell (centre 4,4 px), one shifted 2 px right,
        // and a separate weak one that stays below the threshold.
        for (i, dx, logit) in [(0, Float(60), Float(3)), (1, Float(62), Float(1)), (600, Float(0), Float(-1))] {
            regressors[16 * i] = dx; regressors[16 * i + 1] = 60; regressors[16 * i + 2] = 32; regressors[16 * i + 3] = 32
            scores[i] = logit
        }
        // A 256×128 frame: the letterbox puts it in the middle half of the input's height.
        let box = BlazeFace.Letterbox(width: 256, height: 128)
        let faces = regressors.withUnsafeBufferPointer { r in
            scores.withUnsafeBufferPointer { s in b.decode(regressors: r, scores: s, letterbox: box) }
        }
        #expect(faces.count == 1)
        guard let f = faces.first else { return }
        let w3 = Float(1 / (1 + exp(-3.0))), w1 = Float(1 / (1 + exp(-1.0)))
        let cx = Double((4 + 60 * w3 / (w3 + w1) + 62 * w1 / (w3 + w1)) / 128)  // weighted centre
        #expect(abs(f.bounds.x + f.bounds.width / 2 - cx) < 1e-5)
        #expect(abs(f.bounds.width - 0.25) < 1e-6)
        #expect(abs(f.bounds.height - 0.5) < 1e-6)  // 32 px of the 64 px the frame's height covers
        #expect(abs(f.bounds.y - ((64.0 - 16 - 32) / 64)) < 1e-6)
        #expect(abs(f.score - Double(w3)) < 1e-6)
    }

    @Test func yawComesFromTheNoseBetweenTheEars() {
        func face(nose: Double) -> BlazeFaceDetection {
            BlazeFaceDetection(bounds: .init(x: 0, y: 0, width: 1, height: 1), score: 1,
                               keypoints: [.init(x: 0.4, y: 0.4), .init(x: 0.6, y: 0.4), .init(x: nose, y: 0.5),
                                           .init(x: 0.5, y: 0.7), .init(x: 0.3, y: 0.5), .init(x: 0.7, y: 0.5)])
        }
        #expect(abs(face(nose: 0.5).yaw) < 1e-9)
        #expect(face(nose: 0.65).yaw > 0.7)
        #expect(face(nose: 0.35).yaw < -0.7)
    }

    /// The real model through LiteRT (installed by scripts/fetch-models.sh) on the astronaut
    /// photo: one face, where OpenCV's frontal cascade also puts it.
    @Test func realModelFindsTheAstronautsFace() throws {
        let detector = try BlazeFaceDetector()
        let photo = try CascadeFixtures.image("astronaut200")
        let faces = try detector.detect(photo)
        #expect(faces.count == 1, "\(faces)")
        guard let f = faces.first else { return }
        #expect(f.score > 0.8)
        // OpenCV's frontal cascade: x 71, y 26, 36×36 of 200×200. BlazeFace's box is the same face.
        let cascade = NormalizedRect(x: 71 / 200, y: 26 / 200, width: 36 / 200, height: 36 / 200)
        let ix = max(0, min(f.bounds.x + f.bounds.width, cascade.x + cascade.width) - max(f.bounds.x, cascade.x))
        let iy = max(0, min(f.bounds.y + f.bounds.height, cascade.y + cascade.height) - max(f.bounds.y, cascade.y))
        let overlap: Double = ix * iy / (cascade.width * cascade.height)
        #expect(overlap > 0.6, "\(f.bounds)")
        #expect(abs(f.yaw) < 0.5)
    }

    @Test func missingAndForeignModelFilesAreClearErrors() throws {
        #expect(throws: InferenceError.self) { try BlazeFaceDetector(file: "/nonexistent/face.tflite") }
        do {
            _ = try BlazeFaceDetector(file: "selfie_segmentation.tflite")
            Issue.record("a segmentation model was taken for a face detector")
        } catch let e as InferenceError {
            #expect(e.description.contains("selfie_segmentation.tflite") && e.description.contains("not a BlazeFace"), "\(e)")
        }
        let bogus = FileManager.default.temporaryDirectory.appendingPathComponent("bogus-\(getpid()).tflite").path
        try Data("not a model".utf8).write(to: URL(fileURLWithPath: bogus))
        #expect(throws: InferenceError.self) { try BlazeFaceDetector(file: bogus) }
    }
}
