// CascadeDetector tests: the same rectangles as OpenCV 4.14's detectMultiScale on photographs
// shipped with scikit-image (fixtures made once by Tests/CascadeFixtures/make_fixtures.py),
// bit-exact integral images and pyramid resize, Haar stump/tree/tilted, LBP and old-format
// cascades, thread independence, and errors that name the file and the element.
import CineMedia
import CineVision
import Foundation
import Testing

/// Fixture files (outside the test target, so SwiftPM does not treat them as resources).
enum CascadeFixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("CascadeFixtures")

    struct Case: Decodable {
        var image: String
        var cascade: String
        var scaleFactor: Double
        var minNeighbors: Int
        var rects: [[Int]]
    }
    struct Table: Decodable {
        var width: Int, height: Int, pixels: [UInt8]
        var sum: [Int32], squares: [Int64], tilted: [Int32]
    }
    struct Resize: Decodable {
        var width: Int, height: Int, pixels: [UInt8], outWidth: Int, outHeight: Int, out: [UInt8]
    }
    struct File: Decodable {
        var opencv: String
        var cases: [Case]
        var integral: Table
        var resize: Resize
    }

    static func load() throws -> File {
        try JSONDecoder().decode(File.self, from: Data(contentsOf: directory.appendingPathComponent("opencv_detections.json")))
    }

    /// Reads a binary PGM (P5) into a gray8 image.
    static func image(_ name: String) throws -> Image {
        let data = try Data(contentsOf: directory.appendingPathComponent(name + ".pgm"))
        let bytes = [UInt8](data)
        var fields: [String] = [], i = 0, cur = ""
        while fields.count < 4 {
            let c = bytes[i]
            i += 1
            if c == 32 || c == 10 || c == 9 || c == 13 {
                if !cur.isEmpty { fields.append(cur); cur = "" }
            } else { cur.append(Character(UnicodeScalar(c))) }
        }
        let w = Int(fields[1])!, h = Int(fields[2])!
        let img = Image(width: w, height: h, format: .gray8)
        for y in 0..<h {
            let row = img.plane(0).row(y, as: UInt8.self)
            for x in 0..<w { row[x] = bytes[i + y * w + x] }
        }
        return img
    }

    static func cascade(_ file: String) throws -> CascadeClassifier {
        try CascadeClassifier(contentsOf: CascadeCatalog.resolve(file))
    }

    static var haveOpenCVData: Bool { FileManager.default.fileExists(atPath: "/usr/share/opencv4/haarcascades") }
}

@Suite("CascadeDetector")
struct CascadeDetectorTests {
    @Test(.enabled(if: CascadeFixtures.haveOpenCVData))
    func testSameRectanglesAsOpenCVOnPhotographs() throws {
        let file = try CascadeFixtures.load()
        var images: [String: Image] = [:]
        for c in file.cases {
            let img = try images[c.image] ?? CascadeFixtures.image(c.image)
            images[c.image] = img
            let detector = CascadeDetector(try CascadeFixtures.cascade(c.cascade))
            let params = CascadeDetector.Parameters(scaleFactor: c.scaleFactor, minNeighbors: c.minNeighbors, threads: 2)
            let ours = try detector.detect(in: img, parameters: params)
                .map { [$0.x, $0.y, $0.width, $0.height] }.sorted { $0.lexicographicallyPrecedes($1) }
            #expect(ours == c.rects, "\(c.image) \(c.cascade) minNeighbors \(c.minNeighbors)")
        }
    }

    @Test(.enabled(if: CascadeFixtures.haveOpenCVData))
    func testFindsTheAstronautsFaceWithFrontalAndLBPCascades() throws {
        let img = try CascadeFixtures.image("astronaut200")
        let haar = try CascadeDetector(CascadeFixtures.cascade("haarcascade_frontalface_default.xml")).detect(in: img)
        #expect(haar.count == 1)
        let face = CascadeRect(x: 71, y: 26, width: 36, height: 36)
        #expect(haar.first.map { $0.intersectionOverUnion(face) > 0.9 } == true)
        let alt2 = try CascadeDetector(CascadeFixtures.cascade("haarcascade_frontalface_alt2.xml")).detect(in: img)
        #expect(alt2.first.map { $0.intersectionOverUnion(face) > 0.6 } == true)
    }

    @Test func testIntegralImagesMatchOpenCV() throws {
        let t = try CascadeFixtures.load().integral
        let ii = t.pixels.withUnsafeBufferPointer {
            IntegralImage(pixels: $0.baseAddress!, width: t.width, height: t.height, rowStride: t.width, squares: true, tilted: true)
        }
        #expect(Array(ii.sum) == t.sum)
        #expect(ii.squaredSum.map { Int64($0) } == t.squares)
        #expect(Array(ii.tiltedSum) == t.tilted)
    }

    @Test func testPyramidResizeIsBitExactWithOpenCV() throws {
        let r = try CascadeFixtures.load().resize
        var out = [UInt8](repeating: 0, count: r.outWidth * r.outHeight)
        r.pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                CascadeScaler.resize(src.baseAddress!, width: r.width, height: r.height, stride: r.width,
                                     into: dst.baseAddress!, width: r.outWidth, height: r.outHeight, stride: r.outWidth)
            }
        }
        #expect(out == r.out)
    }

    @Test(.enabled(if: CascadeFixtures.haveOpenCVData))
    func testReadsEveryStandardCascade() throws {
        for dir in ["/usr/share/opencv4/haarcascades", "/usr/share/opencv4/lbpcascades"] {
            for f in try FileManager.default.contentsOfDirectory(atPath: dir) where f.hasSuffix(".xml") {
                let c = try CascadeClassifier(contentsOf: dir + "/" + f)
                #expect(c.stageCount > 0 && c.windowWidth > 0, "\(f)")
            }
        }
        let old = try CascadeFixtures.cascade("haarcascade_licence_plate_rus_16stages.xml")
        #expect(old.windowWidth == 64 && old.windowHeight == 16 && old.stageCount == 16)
        #expect(try CascadeFixtures.cascade("haarcascade_upperbody.xml").hasTiltedFeatures)
        #expect(try CascadeFixtures.cascade("lbpcascade_frontalface.xml").featureKind == .lbp)
    }

    @Test(.enabled(if: CascadeFixtures.haveOpenCVData))
    func testResultsDoNotDependOnThreads() throws {
        let img = try CascadeFixtures.image("camera160")
        let d = CascadeDetector(try CascadeFixtures.cascade("haarcascade_profileface.xml"))
        let one = try d.detect(in: img, parameters: .init(minNeighbors: 0, threads: 1))
        let two = try d.detect(in: img, parameters: .init(minNeighbors: 0, threads: 2))
        #expect(one == two && !one.isEmpty)
    }

    @Test func testMalformedXMLNamesFileLineAndElement() {
        let broken = "<?xml version=\"1.0\"?>\n<opencv_storage>\n<cascade>\n  <stageType>BOOST</stageType>\n</opencv_storage>\n"
        let e1 = #expect(throws: CascadeError.self) { try CascadeClassifier(xml: broken, name: "broken.xml") }
        #expect(e1?.description.hasPrefix("broken.xml:5") == true)
        #expect(e1?.description.contains("</opencv_storage> closes <cascade>") == true)

        let hog = "<opencv_storage><cascade type_id=\"opencv-cascade-classifier\"><stageType>BOOST</stageType>\n<featureType>HOG</featureType></cascade></opencv_storage>"
        let e2 = #expect(throws: CascadeError.self) { try CascadeClassifier(xml: hog, name: "hog.xml") }
        #expect(e2?.description == "hog.xml:2: <opencv_storage/cascade/featureType>: unsupported feature type 'HOG'; supported: HAAR, LBP (HOG cascades are not)")

        let noThreshold = """
            <opencv_storage><cascade><stageType>BOOST</stageType><featureType>HAAR</featureType>
            <height>2</height><width>2</width><stages><_><weakClassifiers/></_></stages></cascade></opencv_storage>
            """
        let e3 = #expect(throws: CascadeError.self) { try CascadeClassifier(xml: noThreshold, name: "t.xml") }
        #expect(e3?.element == "opencv_storage/cascade/stages/_[0]")
        #expect(e3?.message == "missing <stageThreshold>")

        let missing = #expect(throws: CascadeError.self) { try CascadeClassifier(contentsOf: "/nonexistent/x.xml") }
        #expect(missing?.file == "/nonexistent/x.xml")
    }

    @Test func testFeatureOutsideTheWindowIsRejected() {
        let xml = """
            <opencv_storage><cascade><stageType>BOOST</stageType><featureType>HAAR</featureType>
            <height>4</height><width>4</width><stages><_><stageThreshold>0</stageThreshold><weakClassifiers>
            <_><internalNodes>0 -1 0 0.5</internalNodes><leafValues>1 -1</leafValues></_></weakClassifiers></_></stages>
            <features><_><rects><_>0 0 5 2 -1.</_><_>0 0 2 2 2.</_></rects><tilted>0</tilted></_></features></cascade></opencv_storage>
            """
        let e = #expect(throws: CascadeError.self) { try CascadeClassifier(xml: xml, name: "big.xml") }
        #expect(e?.element == "features/_[0]/rects/_[0]")
    }

    @Test(.enabled(if: CascadeFixtures.haveOpenCVData))
    func testBadImagesAndTypesAreClearErrors() throws {
        let d = CascadeDetector(try CascadeFixtures.cascade("haarcascade_frontalface_default.xml"))
        var px: UInt8 = 0
        let e = #expect(throws: CascadeError.self) { try d.detect(pixels: &px, width: 0, height: 10, rowStride: 0) }
        #expect(e?.message.contains("0x10") == true)
        let f = #expect(throws: CascadeError.self) { try d.detect(in: Image(width: 8, height: 8, format: .float32)) }
        #expect(f?.message.contains("float32") == true)
        let t = #expect(throws: CascadeError.self) { try CascadeCatalog.standard.type(named: "dragon") }
        #expect(t?.message.contains("humanFace") == true)
    }

    @Test(.enabled(if: CascadeFixtures.haveOpenCVData))
    func testFindsSyntheticFacesFromTheSyntheticCamera() throws {
        let scene = SyntheticScene(SyntheticScene.Configuration(width: 1280, height: 720, fps: 30, seed: 1))
        let detector = CascadeDetector(try CascadeFixtures.cascade("haarcascade_frontalface_default.xml"))
        var checked = 0, found = 0
        // A few instants where a subject faces the camera with its whole face in frame.
        for f in stride(from: 30, to: scene.frameCount, by: 45) where checked < 3 {
            let t = scene.time(ofFrame: f)
            guard let s = scene.subjects(at: t).first(where: {
                $0.facingCamera && $0.face.width > 0.03 && $0.face.x > 0.1 && $0.face.x + $0.face.width < 0.9 && $0.face.y > 0.05
            }) else { continue }
            let l = Image(width: 1280, height: 720, format: .i420), r = Image(width: 1280, height: 720, format: .i420)
            scene.render(frame: f, left: l, right: r, groundTruth: nil)
            // Detect in a crop around the face (debug builds are slow), at the face's scales only.
            let fw = s.face.width * 1280, fh = s.face.height * 720
            let side = Int(max(fw, fh) * 2.2) & ~1
            let cx = Int((s.face.x + s.face.width / 2) * 1280), cy = Int((s.face.y + s.face.height / 2) * 720)
            let x0 = max(0, min(1280 - side, cx - side / 2)) & ~1, y0 = max(0, min(720 - side, cy - side / 2)) & ~1
            let crop = l.cropped(x: x0, y: y0, width: side, height: side)
            let p = CascadeDetector.Parameters(minWidth: Int(fw * 0.6), minHeight: Int(fw * 0.6), maxWidth: Int(fw * 1.6),
                                               maxHeight: Int(fw * 1.6))
            let rects = try detector.detect(in: crop, parameters: p)
            let truth = CascadeRect(x: Int(s.face.x * 1280) - x0, y: Int(s.face.y * 720) - y0, width: Int(fw), height: Int(fh))
            checked += 1
            if rects.contains(where: { $0.intersectionOverUnion(truth) > 0.4 }) { found += 1 }
        }
        try #require(checked > 0)
        #expect(found == checked, "found \(found) of \(checked) synthetic faces")
    }
}

@Suite struct MirroredProfileTests {
    /// The profile cascade knows faces turned one way; with the mirrored pass, a picture and its
    /// mirror image give mirror-image "looking away" detections.
    @Test func profileDetectionsAreSymmetricUnderMirroring() throws {
        var detector = try CascadeMultiDetector(types: ["humanFace"], detectWidth: 0,
                                                parameters: CascadeDetector.Parameters(minNeighbors: 2))
        detector.profilesInFullScans = true
        var found = 0
        for name in ["astronaut200", "camera160", "chelsea226"] {
            let image = try CascadeFixtures.image(name)
            let mirrored = Image(width: image.width, height: image.height, format: .gray8)
            for y in 0..<image.height {
                let a = image.plane(0).row(y, as: UInt8.self), b = mirrored.plane(0).row(y, as: UInt8.self)
                for x in 0..<image.width { b[image.width - 1 - x] = a[x] }
            }
            let away = try detector.observe(image).filter { $0.facing == .away }.map(\.bounds)
            let back = try detector.observe(mirrored).filter { $0.facing == .away }.map {
                NormalizedRect(x: 1 - $0.bounds.x - $0.bounds.width, y: $0.bounds.y, width: $0.bounds.width, height: $0.bounds.height)
            }
            print("mirrored profile test: \(name): \(away.count) away, \(back.count) in the mirror")
            found += away.count
            #expect(away.count == back.count, "\(name): \(away) vs \(back)")
            // The window grid is anchored at the left edge, so mirrored hits land a few pixels apart: the same face.
            for b in away { #expect(back.contains { ObjectTracker.iou($0, b) > 0.5 }, "\(name): \(b) has no mirror twin in \(back)") }
        }
        #expect(found > 0, "no profile detections at all: the test would prove nothing")
    }
}

@Suite struct SpreadDetectionTests {
    /// A detection spread over 1, 2, 3 or 5 parts (each a share of the pyramid scales) gives, on
    /// the same picture, exactly the whole scan's observations — and none before the last part.
    @Test func spreadRoundsEqualTheWholeScan() throws {
        var detector = try CascadeMultiDetector(types: ["humanFace"], detectWidth: 0,
                                                parameters: CascadeDetector.Parameters(minNeighbors: 2))
        detector.profilesInFullScans = true
        let image = try CascadeFixtures.image("astronaut200")
        let whole = try detector.observe(image)
        #expect(!whole.isEmpty, "nothing found: the comparison would prove nothing")
        for parts in [1, 2, 3, 5] {
            var round = try detector.begin(image, parts: parts)
            for part in 0..<parts {
                #expect(!round.isComplete && round.observations.isEmpty, "\(parts) parts: done early at \(part)")
                try detector.scan(image, into: &round)
            }
            #expect(round.isComplete)
            #expect(round.observations.map(\.bounds) == whole.map(\.bounds), "\(parts) parts")
            #expect(round.observations.map(\.confidence) == whole.map(\.confidence), "\(parts) parts")
        }
    }
}
