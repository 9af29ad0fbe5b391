// ImageFile: the direct PNG, JPEG and PNM decoders agree with GStreamer's own decoders on the
// same files, quoting survives any path, and bad files are clear errors naming the file.
import CineMedia
import Foundation
import Testing

@testable import CineGStreamer

extension CineGStreamerTests {
    @Suite struct ImageFileTests {
        /// A 101×67 (odd sizes: strides wider than rows) gradient with texture, in `format`.
        static func pattern(_ format: PixelFormat) -> Image {
            let image = Image(width: 101, height: 67, format: format)
            let p = image.plane(0), channels = format == .gray8 ? 1 : 4
            for y in 0..<image.height {
                let row = p.row(y, as: UInt8.self)
                for x in 0..<image.width {
                    for c in 0..<channels {
                        row[channels * x + c] = c == 3 ? 255 : UInt8((x * 2 + y * 3 + c * 50 + (x * y) % 17) & 0xFF)
                    }
                }
            }
            return image
        }

        static func folder(_ name: String) -> String {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cinegraph-imagefile-\(name)-\(getpid())")
            try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            return dir.path
        }

        /// Decodes `path` through `filesrc ! decodebin ! videoconvert` — GStreamer's reading.
        static func viaGStreamer(_ path: String, _ format: PixelFormat) throws -> Image? {
            var out: Image?
            try ImageFile.forEachFrame(ofMovie: path, format: format) { _, image in
                out = image.copy()
                return false
            }
            return out
        }

        static func samePixels(_ a: Image, _ b: Image) -> Int {
            var differing = 0
            let bytes = a.format == .gray8 ? a.width : 4 * a.width
            for y in 0..<a.height {
                let ra = a.plane(0).row(y, as: UInt8.self), rb = b.plane(0).row(y, as: UInt8.self)
                for x in 0..<bytes where ra[x] != rb[x] { differing += 1 }
            }
            return differing
        }

        @Test(arguments: [PixelFormat.gray8, .rgba8])
        func pngRoundTripIsExactAndMatchesGStreamer(_ format: PixelFormat) throws {
            let path = Self.folder("png") + "/a \"quoted\" \\ name.png"
            let original = Self.pattern(format)
            try ImageFile.write(original, to: path)
            let direct = try ImageFile.read(path, as: format)
            #expect(direct.width == 101 && direct.height == 67 && direct.format == format)
            #expect(Self.samePixels(direct, original) == 0)
            let reference = try #require(try Self.viaGStreamer(path, format))
            #expect(Self.samePixels(direct, reference) == 0)
        }

        @Test func jpegMatchesGStreamersDecoder() throws {
            let path = Self.folder("jpeg") + "/photo.jpg"
            try ImageFile.write(Self.pattern(.rgba8), to: path, jpegQuality: 90)
            for format in [PixelFormat.gray8, .rgba8] {
                let direct = try ImageFile.read(path, as: format)
                let reference = try #require(try Self.viaGStreamer(path, format))
                #expect(direct.width == reference.width && direct.height == reference.height)
                // jpegdec uses the fast integer IDCT and videoconvert its own YUV→RGB matrix;
                // TurboJPEG the accurate IDCT: a few levels apart at most, a level or so on average.
                var worst = 0, total = 0
                let bytes = format == .gray8 ? direct.width : 4 * direct.width
                for y in 0..<direct.height {
                    let a = direct.plane(0).row(y, as: UInt8.self), b = reference.plane(0).row(y, as: UInt8.self)
                    for x in 0..<bytes {
                        worst = max(worst, abs(Int(a[x]) - Int(b[x])))
                        total += abs(Int(a[x]) - Int(b[x]))
                    }
                }
                let mean = Double(total) / Double(bytes * direct.height)
                #expect(worst <= 8 && mean <= 1.5, "\(format): largest difference \(worst), mean \(mean)")
            }
        }

        @Test func binaryPGMAndPPMAreRead() throws {
            let dir = Self.folder("pnm")
            var pgm = Data("P5\n# a comment\n3 2\n255\n".utf8)
            pgm.append(contentsOf: [0, 10, 20, 30, 40, 250])
            try pgm.write(to: URL(fileURLWithPath: dir + "/g.pgm"))
            let g = try ImageFile.read(dir + "/g.pgm", as: .gray8)
            #expect(g.width == 3 && g.height == 2)
            #expect(g.plane(0).row(1, as: UInt8.self)[2] == 250)
            var ppm = Data("P6 1 1 255\n".utf8)
            ppm.append(contentsOf: [255, 0, 0])
            try ppm.write(to: URL(fileURLWithPath: dir + "/c.ppm"))
            let c = try ImageFile.read(dir + "/c.ppm", as: .rgba8)
            #expect(Array(UnsafeBufferPointer(start: c.plane(0).row(0, as: UInt8.self), count: 4)) == [255, 0, 0, 255])
        }

        @Test func badFilesAreErrorsNamingTheFile() throws {
            let dir = Self.folder("bad")
            let cases: [(String, Data, String)] = [
                ("empty.png", Data(), "empty"),
                ("cut.png", Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0]), "PNG"),
                ("cut.jpg", Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10]), "JPEG"),
                ("short.pgm", Data("P5 4 4 255\n".utf8) + Data([1, 2]), "cut short"),
                ("deep.pgm", Data("P5 1 1 65535\n".utf8) + Data([1, 2]), "8-bit"),
                ("text.png", Data("hello, not an image".utf8), "cannot be read as an image"),
            ]
            for (name, bytes, words) in cases {
                try bytes.write(to: URL(fileURLWithPath: dir + "/" + name))
                do {
                    _ = try ImageFile.read(dir + "/" + name, as: .gray8)
                    Issue.record("\(name) was read")
                } catch let e as ImageFileError {
                    #expect(e.description.hasPrefix(dir + "/" + name + ": "), "\(e)")
                    #expect(e.description.contains(words), "\(name): \(e)")
                }
            }
            #expect(throws: ImageFileError.self) { try ImageFile.read(dir + "/missing.png", as: .gray8) }
        }

        @Test func quotedEscapesBackslashesAndQuotes() {
            #expect(Pipeline.quoted(#"a\b"c"#) == #""a\\b\"c""#)
            #expect(Pipeline.quoted("plain") == "\"plain\"")
        }
    }
}
