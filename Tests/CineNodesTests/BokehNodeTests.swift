// The `bokeh` node through the harness: frames in, blurred frames and the focus used out;
// the focus input overrides the parameters; bad frames fail naming node and frame.
import CineGraph
import CineMedia
import CineNodes
import CineGStreamer
import CineVision
import Foundation
import Testing

@Suite struct BokehNodeTests {
    /// A 160×90 synthetic frame with subjects in view, and its exact disparity.
    func frame() -> (Image, DisparityMap, Double) {
        let scene = SyntheticScene(SyntheticScene.Configuration(width: 160, height: 90, fps: 30, seed: 1))
        var index = 0
        while scene.subjects(at: scene.time(ofFrame: index)).isEmpty && index < scene.frameCount - 1 { index += 15 }
        let l = Image(width: 160, height: 90, format: .i420), r = Image(width: 160, height: 90, format: .i420)
        let truth = Image(width: 160, height: 90, format: .float32)
        scene.render(frame: index, left: l, right: r, groundTruth: truth)
        let focus = scene.subjects(at: scene.time(ofFrame: index)).map(\.disparity).max() ?? 20
        return (l, DisparityMap(values: truth, referenceWidth: 160, referenceHeight: 90), focus)
    }

    @Test func rendersBlurredFramesAndReportsTheFocusUsed() throws {
        let (image, map, focus) = frame()
        var h = try NodeHarness(BokehNode.self, parameters: ["aperture": "1.4", "focus-disparity": "\(focus)", "max-blur": "0.05"])
        let out = try h.process([\.$image: image, \.$disparity: map])
        let video = try #require(out[\.$video])
        #expect(video.width == 160 && video.height == 90 && video.format == .i420)
        #expect(pixelBytes(video) != pixelBytes(image))
        let state = try #require(out[\.$state])
        #expect(state.fNumber == 1.4 && abs(state.focusDisparity - focus) < 1e-9)
    }

    @Test func focusInputOverridesTheParameters() throws {
        let (image, map, _) = frame()
        var h = try NodeHarness(BokehNode.self, parameters: ["aperture": "8"])
        let focus = FocusState(focusDisparity: 12, fNumber: 2, targetDetectionID: 4, transitionProgress: 0.5)
        let out = try h.process([\.$image: image, \.$disparity: map, \.$focus: focus])
        let state = try #require(out[\.$state])
        #expect(state == focus)
    }

    @Test func aMatteRedrawsTheOutlineAndAWrongOneIsNamed() throws {
        let (image, map, focus) = frame()
        // The coarse map (a quarter of the frame) and a matte of the subject (the truth's nearest layer).
        let coarse = Image(width: 40, height: 22, format: .float32), matte = Image(width: 40, height: 22, format: .gray8)
        for y in 0..<22 {
            let c = coarse.plane(0).row(y, as: Float.self), m = matte.plane(0).row(y, as: UInt8.self)
            for x in 0..<40 {
                let d = map.values.plane(0).row(min(89, y * 4 + 2), as: Float.self)[x * 4 + 2]
                c[x] = d
                m[x] = abs(Double(d) - focus) < 0.05 * focus ? 255 : 0
            }
        }
        let small = DisparityMap(values: coarse, referenceWidth: 160, referenceHeight: 90)
        let parameters = ["aperture": "1.4", "max-blur": "0.05"]
        var plain = try NodeHarness(BokehNode.self, parameters: parameters)
        var drawn = try NodeHarness(BokehNode.self, parameters: parameters)
        let state = FocusState(focusDisparity: focus, fNumber: 1.4)
        let a = try #require(try plain.process([\.$image: image, \.$disparity: small, \.$focus: state])[\.$video])
        let b = try #require(try drawn.process([\.$image: image, \.$disparity: small, \.$focus: state, \.$matte: matte])[\.$video])
        #expect(pixelBytes(a) != pixelBytes(b))
        let rgba = Image(width: 40, height: 22, format: .rgba8)
        #expect(throws: ImageFormatError(input: "matte", got: .rgba8, takes: [.gray8])) {
            try drawn.process([\.$image: image, \.$disparity: small, \.$matte: rgba])
        }
    }

    @Test func aMatteOfTheWrongFormatIsRefusedWhenTheGraphLoads() {
        // A view is not a matte: the built-in kinds declare their formats, so this fails at load,
        // at the connection, before any camera opens.
        let text = """
            nodes:
              camera: { kind: synthetic, size: 320x180, duration: 1s }
              bokeh: { kind: bokeh, image: camera.left, disparity: camera.disparity, matte: camera.right }
              out: { kind: frames, video: bokeh, path: /tmp/never/%05d.png }
            """
        do {
            _ = try Graph.parse(text, file: "m.conf", registry: .standard())
            Issue.record("loaded")
        } catch let e as ConfigErrors {
            #expect(e.errors.count == 1, "\(e)")
            #expect(e.errors.first?.description.contains("m.conf:3:") == true, "\(e)")
            #expect(e.errors.first?.description.contains("input 'matte' takes gray8 images but camera.right gives i420") == true, "\(e)")
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func outOfRangeApertureIsRejectedAtLoad() {
        #expect(throws: (any Error).self) { try NodeHarness(BokehNode.self, parameters: ["aperture": "0.8"]) }
        #expect(throws: (any Error).self) { try NodeHarness(BokehNode.self, parameters: ["quality": "ultra"]) }
    }

    @Test func badFramesFailNamingNodeAndFrame() throws {
        let (image, map, _) = frame()
        var h = try NodeHarness(BokehNode.self)
        _ = try h.process([\.$image: image, \.$disparity: map])
        let wide = DisparityMap(values: Image(width: 80, height: 20, format: .float32), referenceWidth: 160, referenceHeight: 90)
        do {
            _ = try h.process([\.$image: image, \.$disparity: wide], at: Timestamp(seconds: 1))
            Issue.record("a map of another aspect ratio was accepted")
        } catch let error as BokehError {
            #expect(error.description.contains("aspect ratio"))
        }
        let nan = map.values.copy()
        nan.plane(0).row(3, as: Float.self)[4] = .nan
        #expect(throws: BokehError.self) {
            _ = try h.process([\.$image: image, \.$disparity: DisparityMap(values: nan, referenceWidth: 160, referenceHeight: 90),
                               \.$focus: FocusState(focusDisparity: 10)])
        }
        #expect(throws: BokehError.self) {
            _ = try h.process([\.$image: image, \.$disparity: map, \.$focus: FocusState(focusDisparity: 10, fNumber: 40)])
        }
    }

    @Test func bokehGraphValidates() throws {
        let g = try Graph.load(contentsOf: repoRoot.appendingPathComponent("graphs/bokeh.conf").path, registry: .standard())
        #expect(g.nodes.map(\.name).sorted() == ["bokeh", "camera", "movie", "still"])
    }

    /// The `cinegraph` built beside this test bundle (`make build` builds both).
    static func cinegraphBinary() throws -> String {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let path = URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("cinegraph").path
        try #require(FileManager.default.isExecutableFile(atPath: path), "no cinegraph beside the tests at \(path): run make build")
        return path
    }

    @Test func portraitToolRendersAStillFromAPFM() throws {
        let binary = try Self.cinegraphBinary()
        let folder = temporaryFolder("bokeh-cli")
        let (image, map, focus) = frame()
        let input = folder.appendingPathComponent("in.png").path, pfm = folder.appendingPathComponent("d.pfm").path
        let output = folder.appendingPathComponent("out.png").path
        try StillSinkNode.write(image, to: input)
        // A half-resolution map in the Middlebury convention: disparities in its own pixels.
        let half = Image(width: 80, height: 45, format: .float32)
        for y in 0..<45 {
            for x in 0..<80 { half.plane(0).row(y, as: Float.self)[x] = map.values.plane(0).row(2 * y, as: Float.self)[2 * x] / 2 }
        }
        half.plane(0).row(0, as: Float.self)[0] = .infinity
        try PortableFloatMap(values: half).write(to: pfm)
        func run(_ arguments: [String]) throws -> (Int32, String) { try Self.run(binary, arguments) }
        let (status, text) = try run(["bokeh", input, "--disparity", pfm, "--focus-disparity", "\(focus / 2)",
                                      "--aperture", "2", "-o", output])
        #expect(status == 0, "\(text)")
        #expect(try MediaProbe.inspect(path: output).width == 160)
        let (pointStatus, _) = try run(["bokeh", input, "--disparity", pfm, "--focus-point", "80,45", "-o", output])
        #expect(pointStatus == 0)
        let (badStatus, badText) = try run(["bokeh", input, "--disparity", pfm, "--focus-disparity", "3", "--aperture", "0.5",
                                            "-o", output])
        #expect(badStatus != 0 && badText.contains("--aperture"))
    }

    @Test func portraitToolKeepsFullColourAndNamesBadFiles() throws {
        let binary = try Self.cinegraphBinary()
        let folder = temporaryFolder("bokeh-cli-colour")
        func run(_ arguments: [String]) throws -> (Int32, String) { try Self.run(binary, arguments) }
        // Single-pixel colour detail (red, green, blue columns) that 4:2:0 would smear; the
        // left half in focus (disparity 20), the right half far behind (disparity 2).
        let w = 64, h = 32
        let image = Image(width: w, height: h, format: .rgba8)
        let map = Image(width: w, height: h, format: .float32)
        for y in 0..<h {
            let row = image.plane(0).row(y, as: UInt8.self)
            for x in 0..<w {
                row[4 * x] = x % 3 == 0 ? 220 : 20
                row[4 * x + 1] = x % 3 == 1 ? 200 : 30
                row[4 * x + 2] = x % 3 == 2 ? 210 : 40
                row[4 * x + 3] = 255
                map.plane(0).row(y, as: Float.self)[x] = x < w / 2 ? 20 : 2
            }
        }
        let input = folder.appendingPathComponent("in.png").path, pfm = folder.appendingPathComponent("d.pfm").path
        let output = folder.appendingPathComponent("out.png").path
        try ImageFile.write(image, to: input)
        try PortableFloatMap(values: map).write(to: pfm)
        let (status, text) = try run(["bokeh", input, "--disparity", pfm, "--focus-disparity", "20", "--aperture", "1.4", "-o", output])
        #expect(status == 0, "\(text)")
        let out = try ImageFile.read(output, as: .rgba8)
        var exact = 0, changed = 0
        for y in 0..<h {
            let a = image.plane(0).row(y, as: UInt8.self), b = out.plane(0).row(y, as: UInt8.self)
            for x in 0..<w {
                let same = (0..<3).allSatisfy { a[4 * x + $0] == b[4 * x + $0] }
                if x < w / 2 - 2 { exact += same ? 1 : 0 } else if x >= w / 2 + 4 { changed += same ? 0 : 1 }
            }
        }
        // The in-focus half comes back bit for bit, colour detail and all; the far half is blurred.
        #expect(exact == (w / 2 - 2) * h)
        #expect(changed > (w / 2 - 4) * h * 9 / 10)
        // An empty file and a file that is not an image: one clear error naming the file.
        let empty = folder.appendingPathComponent("empty.png").path
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        let (emptyStatus, emptyText) = try run(["bokeh", empty, "--disparity", pfm, "--focus-disparity", "20", "-o", output])
        #expect(emptyStatus != 0 && emptyText.contains("empty.png") && emptyText.contains("empty"), "\(emptyText)")
        let (pfmStatus, pfmText) = try run(["bokeh", input, "--disparity", input, "--focus-disparity", "20", "-o", output])
        #expect(pfmStatus != 0 && pfmText.contains("in.png"), "\(pfmText)")
        // A 16-bit PNG is read (reduced to 8 bits) and rendered.
        let deep = folder.appendingPathComponent("deep.png").path
        try Self.png16(width: w, height: h) { x, y in UInt16(x * 1000 + y * 10) }.write(to: URL(fileURLWithPath: deep))
        let (deepStatus, deepText) = try run(["bokeh", deep, "--disparity", pfm, "--focus-disparity", "20", "-o", output])
        #expect(deepStatus == 0, "\(deepText)")
        let grey = try ImageFile.read(output, as: .rgba8)
        #expect(grey.width == w && grey.plane(0).row(3, as: UInt8.self)[4 * 10] == UInt8((10 * 1000 + 30) >> 8))
    }

    /// Runs `binary` with `arguments`; its exit status and its output (stdout and stderr).
    static func run(_ binary: String, _ arguments: [String]) throws -> (Int32, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = arguments
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        try p.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return (p.terminationStatus, text)
    }

    /// A 16-bit greyscale PNG, written by hand (stored deflate blocks, no compression).
    static func png16(width: Int, height: Int, _ sample: (Int, Int) -> UInt16) -> Data {
        var raw = [UInt8]()
        for y in 0..<height {
            raw.append(0)
            for x in 0..<width { let v = sample(x, y); raw += [UInt8(v >> 8), UInt8(v & 0xFF)] }
        }
        var crcTable = [UInt32](repeating: 0, count: 256)
        for n in 0..<256 {
            var c = UInt32(n)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            crcTable[n] = c
        }
        func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + body
            var c: UInt32 = 0xFFFF_FFFF
            for b in typed { c = crcTable[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
            return be32(UInt32(body.count)) + typed + be32(c ^ 0xFFFF_FFFF)
        }
        var z: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let n = min(65535, raw.count - offset)
            let last: UInt8 = offset + n == raw.count ? 1 : 0
            z += [last, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            z += raw[offset..<(offset + n)]
            offset += n
        } while offset < raw.count
        var a: UInt32 = 1, b: UInt32 = 0
        for v in raw { a = (a + UInt32(v)) % 65521; b = (b + a) % 65521 }
        z += be32(b << 16 | a)
        let header = be32(UInt32(width)) + be32(UInt32(height)) + [16, 0, 0, 0, 0]
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", z) + chunk("IEND", []))
    }
}
