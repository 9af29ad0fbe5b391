// The `still` sink: a PNG or JPEG on command and at an interval, decodable by GStreamer, with
// a JSON sidecar holding the focus state and detections.
import CineGStreamer
import CineGraph
import CineMedia
import CineNodes
import Foundation
import Testing

@Suite(.serialized) struct StillSinkTests {
    func testFrame() -> Image {
        let image = Image(width: 64, height: 48, format: .i420)
        for p in 0..<3 {
            let plane = image.plane(p)
            for y in 0..<plane.height { for x in 0..<plane.width { plane.row(y, as: UInt8.self)[x] = UInt8(p == 0 ? 16 + x * 3 : 128) } }
        }
        return image
    }

    @Test func stillCommandWritesAPNGAndItsSidecar() throws {
        let folder = temporaryFolder("still-png")
        var h = try NodeHarness(StillSinkNode.self, parameters: ["path": folder.appendingPathComponent("shot-{index}.png").path])
        #expect(throws: NodeCommandError.self) { try h.command(NodeCommand("still")) }
        let focus = FocusState(focusDisparity: 31.5, fNumber: 2.8, targetDetectionID: 7)
        let face = Detection(id: 7, type: .humanFace, bounds: NormalizedRect(x: 0.4, y: 0.2, width: 0.2, height: 0.3))
        _ = try h.process([\.$image: testFrame(), \.$focus: focus, \.$detections: [face]], at: Timestamp(seconds: 0.5))
        let path = try h.command(NodeCommand("still"))
        #expect(path.hasSuffix("shot-0.png"))
        let info = try MediaProbe.inspect(path: path)
        #expect(info.width == 64 && info.height == 48)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.appendingPathComponent("shot-0.json").path))) as? [String: Any]
        let sidecar = try #require(json)
        #expect(sidecar["timestamp"] as? Double == 0.5)
        #expect((sidecar["focus"] as? [String: Any])?["focusDisparity"] as? Double == 31.5)
        #expect((sidecar["detections"] as? [[String: Any]])?.first?["id"] as? Int == 7)
        #expect(h.events.contains { $0.name == "still-saved" })
    }

    @Test func intervalWritesJPEGsOnSchedule() throws {
        let folder = temporaryFolder("still-jpeg")
        var h = try NodeHarness(StillSinkNode.self, parameters: [
            "path": folder.appendingPathComponent("tick-{index}.jpg").path, "interval": "0.1s",
        ])
        for i in 0..<5 { _ = try h.process([\.$image: testFrame()], at: Timestamp(seconds: Double(i) * 0.05)) }
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(files == ["tick-0.jpg", "tick-0.json", "tick-1.jpg", "tick-1.json", "tick-2.jpg", "tick-2.json"])
        let bytes = try Data(contentsOf: folder.appendingPathComponent("tick-0.jpg"))
        #expect(bytes.prefix(2) == Data([0xFF, 0xD8]))
    }

    @Test func fullColourFramesAreWrittenInFullColour() throws {
        // An RGBA frame (from the bokeh node on an RGBA still, or a custom node) is written as
        // it is: single-pixel colour detail survives, bit for bit, in the PNG.
        let image = Image(width: 30, height: 20, format: .rgba8)
        for y in 0..<20 {
            let row = image.plane(0).row(y, as: UInt8.self)
            for x in 0..<30 {
                row[4 * x] = x % 3 == 0 ? 230 : 10
                row[4 * x + 1] = x % 3 == 1 ? 210 : UInt8(y * 5)
                row[4 * x + 2] = x % 3 == 2 ? 250 : 40
                row[4 * x + 3] = 255
            }
        }
        let folder = temporaryFolder("still-rgba")
        var h = try NodeHarness(StillSinkNode.self, parameters: ["path": folder.appendingPathComponent("rgb.png").path])
        _ = try h.process([\.$image: image], at: .zero)
        let path = try h.command(NodeCommand("still"))
        let back = try ImageFile.read(path, as: .rgba8)
        var same = 0
        for y in 0..<20 {
            let a = image.plane(0).row(y, as: UInt8.self), b = back.plane(0).row(y, as: UInt8.self)
            for x in 0..<120 where a[x] == b[x] { same += 1 }
        }
        #expect(same == 20 * 120)
    }

    @Test func unknownExtensionsAreRejectedAtLoad() {
        #expect(throws: ParameterError.self) { try NodeHarness(StillSinkNode.self, parameters: ["path": "x.gif"]) }
    }
}
