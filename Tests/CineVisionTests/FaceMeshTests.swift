// The face landmark model's crop and head pose on hand-made points, then the real model (LiteRT)
// on real photos: a face is a face, a cat is not, a mirrored head turns the other way; and faces
// found at every scale of a large photo.
import CineInference
import CineMedia
import Foundation
import Testing

@testable import CineVision

@Suite struct FaceMeshTests {
    /// A detection whose eyes are tilted by `degrees` (clockwise in the image).
    private func face(tilt degrees: Double) -> BlazeFaceDetection {
        let a = degrees * .pi / 180, r = 0.05
        return BlazeFaceDetection(
            bounds: .init(x: 0.4, y: 0.3, width: 0.2, height: 0.2), score: 1,
            keypoints: [.init(x: 0.5 - r * cos(a), y: 0.4 - r * sin(a)), .init(x: 0.5 + r * cos(a), y: 0.4 + r * sin(a)),
                        .init(x: 0.5, y: 0.42), .init(x: 0.5, y: 0.45), .init(x: 0.41, y: 0.4), .init(x: 0.59, y: 0.4)])
    }

    @Test func cropIsCentredOnTheFaceAndTurnsWithItsEyes() {
        let crop = FaceMesh.Crop(face: face(tilt: 30), width: 1000, height: 500)
        #expect(abs(crop.side - 300) < 1e-9)  // 1.5 × the longer side (0.2 × 1000 px)
        // The eyes' line is 30° in pixels: the normalised offsets are scaled by 1000 and 500.
        let expected = atan2(0.05 * sin(.pi / 6) * 500, 0.05 * cos(.pi / 6) * 1000)
        #expect(abs(crop.angle - expected) < 1e-9)
        let centre = crop.frame(u: 96, v: 96)
        #expect(abs(centre.x - 500) < 1e-9 && abs(centre.y - 200) < 1e-9)
        let right = crop.frame(u: 192, v: 96)  // half a side along the eyes' line
        #expect(abs(right.x - (500 + 150 * cos(expected))) < 1e-9 && abs(right.y - (200 + 150 * sin(expected))) < 1e-9)
    }

    @Test func poseReadsYawPitchAndRollFromTheMesh() {
        /// A head with eye corners at x ±1, forehead above and chin below, turned by `yaw` about the
        /// vertical axis, then `pitch` about the horizontal one, then rolled in the image.
        func mesh(yaw: Double, pitch: Double, roll: Double) -> [MeshPoint] {
            let (y, p, r) = (yaw * .pi / 180, pitch * .pi / 180, roll * .pi / 180)
            func place(_ v: SIMD3<Double>) -> MeshPoint {
                var q = SIMD3(v.x * cos(y) - v.z * sin(y), v.y, v.x * sin(y) + v.z * cos(y))
                q = SIMD3(q.x, q.y * cos(p) + q.z * sin(p), -q.y * sin(p) + q.z * cos(p))
                q = SIMD3(q.x * cos(r) - q.y * sin(r), q.x * sin(r) + q.y * cos(r), q.z)
                return MeshPoint(x: 300 + 50 * q.x, y: 200 + 50 * q.y, z: 50 * q.z)
            }
            var points = [MeshPoint](repeating: MeshPoint(x: 300, y: 200, z: 0), count: FaceMesh.pointCount)
            points[33] = place(SIMD3(-1, 0, 0.2))
            points[263] = place(SIMD3(1, 0, 0.2))
            points[10] = place(SIMD3(0, -1.3, 0.1))
            points[152] = place(SIMD3(0, 1.3, 0.1))
            return points
        }
        let frontal = FaceMesh.pose(mesh(yaw: 0, pitch: 0, roll: 0))
        #expect(abs(frontal.yaw) < 1e-6 && abs(frontal.pitch) < 1e-6 && abs(frontal.roll) < 1e-6)
        #expect(frontal.facing == .towards)
        let turned = FaceMesh.pose(mesh(yaw: 35, pitch: 0, roll: 0))
        #expect(abs(turned.yaw - 35) < 1e-6 && abs(turned.pitch) < 1e-6, "\(turned)")
        let up = FaceMesh.pose(mesh(yaw: 0, pitch: 20, roll: 0))
        #expect(abs(up.pitch - 20) < 1e-6 && abs(up.yaw) < 1e-6, "\(up)")
        let tilted = FaceMesh.pose(mesh(yaw: 0, pitch: 0, roll: 15))
        #expect(abs(tilted.roll - 15) < 1e-6, "\(tilted)")
        #expect(FaceMesh.pose(mesh(yaw: -70, pitch: 0, roll: 0)).facing == .away)
    }

    @Test func tileEdgesCutFacesOnlyInsideTheImage() {
        let inner = NormalizedRect(x: 0.25, y: 0, width: 0.5, height: 1)  // a square in the middle of a wide frame
        #expect(BlazeFaceDetector.cutByInnerEdge(.init(x: 0, y: 0.4, width: 0.2, height: 0.2), square: inner))
        #expect(!BlazeFaceDetector.cutByInnerEdge(.init(x: 0.4, y: 0, width: 0.2, height: 0.2), square: inner))  // the frame's top
        #expect(!BlazeFaceDetector.cutByInnerEdge(.init(x: 0.4, y: 0.4, width: 0.2, height: 0.2), square: inner))
        #expect(BlazeFaceDetector.holds(inner, .init(x: 0.3, y: 0.3, width: 0.1, height: 0.1)))
        #expect(!BlazeFaceDetector.holds(inner, .init(x: 0.2, y: 0.3, width: 0.1, height: 0.1)))
    }

    // MARK: - The real models

    /// The astronaut's face: a face (presence near 1), turned little; points on the face.
    @Test func realModelSeesTheAstronautsFaceNearlyFrontal() throws {
        let photo = try CascadeFixtures.image("astronaut200")
        let face = try #require(try BlazeFaceDetector().detect(photo).first)
        let mesh = try FaceLandmarker().mesh(of: face, in: photo)
        #expect(mesh.points.count == 468)
        #expect(mesh.presence > 0.9, "\(mesh.presence)")
        #expect(abs(mesh.pose.yaw) < 20 && abs(mesh.pose.roll) < 20, "\(mesh.pose)")
        let nose = mesh.points[1], b = face.bounds
        #expect(nose.x > b.x * 200 && nose.x < (b.x + b.width) * 200 && nose.y > b.y * 200 && nose.y < (b.y + b.height) * 200)
    }

    /// The cameraman looks into his camera, his head turned: mirrored, it turns the other way.
    @Test func aMirroredHeadTurnsTheOtherWay() throws {
        let photo = try CascadeFixtures.image("camera160")
        let mirrored = Image(width: photo.width, height: photo.height, format: .gray8)
        for y in 0..<photo.height {
            let s = photo.plane(0).row(y, as: UInt8.self), d = mirrored.plane(0).row(y, as: UInt8.self)
            for x in 0..<photo.width { d[x] = s[photo.width - 1 - x] }
        }
        let detector = try BlazeFaceDetector(), landmarker = try FaceLandmarker()
        let face = try #require(try detector.detectAtEveryScale(photo).first)
        let flipped = try #require(try detector.detectAtEveryScale(mirrored).first)
        let a = try landmarker.mesh(of: face, in: photo).pose, b = try landmarker.mesh(of: flipped, in: mirrored).pose
        #expect(abs(a.yaw) > 25, "\(a)")
        #expect(abs(a.yaw + b.yaw) < 10, "\(a) vs \(b)")
        #expect(abs(a.roll + b.roll) < 15, "\(a) vs \(b)")  // roll reads less steadily on a 160 px photo
    }

    /// A cat's face put to the landmark model as if it were a person's: not a face.
    @Test func aCatIsNotAFace() throws {
        let photo = try CascadeFixtures.image("chelsea226")
        let box = NormalizedRect(x: 0.05, y: 0.05, width: 0.6, height: 0.9)
        let cat = BlazeFaceDetection(bounds: box, score: 1, keypoints: [.init(x: 0.3, y: 0.4), .init(x: 0.6, y: 0.4)])
        let landmarker = try FaceLandmarker()
        let mesh = try landmarker.mesh(of: cat, in: photo)
        #expect(mesh.presence < 0.5, "\(mesh.presence)")
        // The check `cinegraph detect` and the detector node share drops it — and so does the
        // photo's second vote, though the box is scored 1: the landmark model rules it out.
        #expect(try landmarker.confirmed([cat], in: photo, minScore: 0.5, minPresence: 0.5).isEmpty)
        #expect(try landmarker.confirmed([cat], in: photo, minScore: 0.5, minPresence: 0.5, sure: (0.75, 0.05)).isEmpty,
                "\(mesh.presence)")
    }

    /// A face the landmark model is less sure of than `minPresence` is still kept on a photo when
    /// the detector is sure of it (`sure`): both votes, each with its own bar.
    @Test func aFaceTheDetectorIsSureOfNeedsOnlyTheLandmarkModelNotToRuleItOut() throws {
        let photo = try CascadeFixtures.image("astronaut200")
        let face = try #require(try BlazeFaceDetector().detectAtEveryScale(photo).first)
        let landmarker = try FaceLandmarker()
        let presence = try landmarker.mesh(of: face, in: photo).presence
        let unreachable = presence + 0.01  // a bar the landmark model's own vote cannot pass
        #expect(try landmarker.confirmed([face], in: photo, minScore: 0, minPresence: unreachable).isEmpty)
        #expect(try landmarker.confirmed([face], in: photo, minScore: 0, minPresence: unreachable,
                                         sure: (face.score - 0.01, presence - 0.01)).count == 1)
        // Either vote short of its bar: dropped.
        #expect(try landmarker.confirmed([face], in: photo, minScore: 0, minPresence: unreachable,
                                         sure: (face.score + 0.01, presence - 0.01)).isEmpty)
        #expect(try landmarker.confirmed([face], in: photo, minScore: 0, minPresence: unreachable,
                                         sure: (face.score - 0.01, unreachable)).isEmpty)
    }

    /// The astronaut at twice its size (its face 72 px) in a 1600×1200 grey frame: too small for
    /// the model on the whole frame, found at every scale, where it is, best of all boxes; the
    /// landmark model keeps it alone.
    @Test func smallFacesAreFoundAtEveryScale() throws {
        let photo = try CascadeFixtures.image("astronaut200")
        let frame = Image(width: 1600, height: 1200, format: .gray8)
        frame.plane(0).fill(byte: 128)
        let ox = 1010, oy = 707
        for y in 0..<2 * photo.height {
            let s = photo.plane(0).row(y / 2, as: UInt8.self), d = frame.plane(0).row(oy + y, as: UInt8.self)
            for x in 0..<2 * photo.width { d[ox + x] = s[x / 2] }
        }
        let detector = try BlazeFaceDetector()
        #expect(try detector.detect(frame).isEmpty)
        let faces = try detector.detectAtEveryScale(frame, smallestFace: 64)
        let landmarker = try FaceLandmarker()
        let kept = try landmarker.confirmed(faces, in: frame, minScore: 0, minPresence: 0.5)
        #expect(kept.count == 1, "\(faces.map { ($0.bounds, $0.score) })")
        guard let f = faces.first else { return }
        let cx = (f.bounds.x + f.bounds.width / 2) * 1600, cy = (f.bounds.y + f.bounds.height / 2) * 1200
        #expect(abs(cx - Double(ox + 178)) < 25 && abs(cy - Double(oy + 88)) < 25, "\(cx), \(cy)")
    }

    /// The astronaut at ¾ of 200 px (her face about 27 px) in a 1280×720 frame, a wide shot's
    /// small face: found when the squares go down to 24 px faces, with two detectors sharing
    /// the squares; not when they stop at 64 px faces.
    @Test func aWideShotsSmallFaceIsFoundDownToTheSmallestFaceAskedFor() throws {
        let photo = try CascadeFixtures.image("astronaut200")
        let frame = Image(width: 1280, height: 720, format: .gray8)
        frame.plane(0).fill(byte: 128)
        let ox = 300, oy = 400, side = 150
        for y in 0..<side {
            let s = photo.plane(0).row(y * 4 / 3, as: UInt8.self), d = frame.plane(0).row(oy + y, as: UInt8.self)
            for x in 0..<side { d[ox + x] = s[x * 4 / 3] }
        }
        let detector = try BlazeFaceDetector(), partner = try BlazeFaceDetector()
        let landmarker = try FaceLandmarker()
        let coarse = try landmarker.confirmed(try detector.detectAtEveryScale(frame, smallestFace: 64), in: frame, minScore: 0.5, minPresence: 0.5)
        #expect(coarse.isEmpty)
        let faces = try landmarker.confirmed(try detector.detectAtEveryScale(frame, smallestFace: 24, partner: partner), in: frame,
                                             minScore: 0.5, minPresence: 0.5)
        #expect(faces.count == 1, "\(faces.map(\.face.bounds))")
        guard let f = faces.first?.face else { return }
        // Her face: 71, 26, 36×36 of 200 px (OpenCV's cascade), so about (ox + 67, oy + 33) here.
        let cx = (f.bounds.x + f.bounds.width / 2) * 1280, cy = (f.bounds.y + f.bounds.height / 2) * 720
        #expect(abs(cx - Double(ox + 67)) < 12 && abs(cy - Double(oy + 33)) < 12, "\(cx), \(cy)")
        #expect(f.bounds.width * 1280 < 40, "\(f.bounds)")
    }

    @Test func aModelOfAnotherFamilyIsAClearError() {
        do {
            _ = try FaceLandmarker(file: BlazeFaceDetector.shortRangeFile)
            Issue.record("a face detector was taken for a landmark model")
        } catch let e as InferenceError {
            #expect(e.description.contains("face_detection_short_range.tflite") && e.description.contains("not a face landmark model"), "\(e)")
        } catch {
            Issue.record("\(error)")
        }
    }
}

/// BlazePose's person detector: the body box from its points, and the real model on a portrait.
@Suite struct PoseDetectorTests {
    @Test func theBodyComesFromTheShouldersAndHips() {
        // A 1000×500 frame: hips' centre at (0.5, 0.6), the body's reach 150 px below it,
        // shoulders at (0.4, 0.5), the upper body's reach 200 px above them.
        let d = BlazeFaceDetection(bounds: .init(x: 0.45, y: 0.1, width: 0.1, height: 0.2), score: 0.9,
                                   keypoints: [.init(x: 0.5, y: 0.6), .init(x: 0.5, y: 0.9), .init(x: 0.4, y: 0.5), .init(x: 0.4, y: 0.1)])
        let p = PoseDetector.person(d, width: 1000, height: 500)
        #expect(abs(p.body.x - 0.3) < 1e-9 && abs(p.body.width - 0.2) < 1e-9)  // 200 px wide round x = 400
        #expect(abs(p.body.y - 0.26) < 1e-9)  // 250 − 0.6 · 200 = 130 px
        #expect(abs(p.body.y + p.body.height - 0.9) < 1e-9)  // hips at 300 px + a 150 px radius
    }

    @Test func realModelFindsTheAstronautWithHerBodyBelowHerFace() throws {
        let photo = try CascadeFixtures.image("astronaut200")
        let people = try PoseDetector().detect(photo)
        #expect(people.count == 1, "\(people)")
        guard let p = people.first else { return }
        print("POSE head \(p.head) body \(p.body) kp \(p.keypoints)")
        #expect(p.score > 0.5)
        // OpenCV's frontal cascade puts her face at 71, 26, 36×36 of 200×200.
        let face = NormalizedRect(x: 71 / 200, y: 26 / 200, width: 36 / 200, height: 36 / 200)
        let ix = max(0, min(p.head.x + p.head.width, face.x + face.width) - max(p.head.x, face.x))
        let iy = max(0, min(p.head.y + p.head.height, face.y + face.height) - max(p.head.y, face.y))
        #expect(ix * iy > 0, "\(p.head)")  // the model's head box sits lower, on the chin
        #expect(p.keypoints[0].y > face.y + face.height)  // the hips below the face
        #expect(p.body.x <= face.x && p.body.x + p.body.width >= face.x + face.width && p.body.y <= face.y + 0.01)
    }

    @Test func aFaceModelIsNotAPoseDetector() {
        do {
            _ = try PoseDetector(file: BlazeFaceDetector.shortRangeFile)
            Issue.record("a face detector was taken for a pose detector")
        } catch let e as InferenceError {
            #expect(e.description.contains("not a pose detector"), "\(e)")
        } catch {
            Issue.record("\(error)")
        }
    }
}
