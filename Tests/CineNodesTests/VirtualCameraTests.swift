// `virtual-camera`: the frames a call app would see. This machine has no v4l2loopback module (a
// container cannot load kernel modules), so the pipeline runs with a stand-in: the same scaling
// and YUY2 conversion, into a file instead of v4l2sink; the file is read back and checked.
import CineGraph
import CineMedia
import Foundation
import Testing
@testable import CineNodes

@Suite(.serialized) struct VirtualCameraTests {
    /// An I420 frame whose luma is a horizontal ramp.
    func ramp(width: Int, height: Int) -> Image {
        let image = Image(width: width, height: height, format: .i420)
        for y in 0..<height {
            let row = image.plane(0).row(y, as: UInt8.self)
            for x in 0..<width { row[x] = UInt8(16 + x * 200 / (width - 1)) }
        }
        for p in 1...2 {
            let plane = image.plane(p)
            for y in 0..<plane.height { plane.row(y, as: UInt8.self).update(repeating: 128, count: plane.width) }
        }
        return image
    }

    @Test func framesReachTheStandInAsYUY2AtTheCallSize() throws {
        let folder = temporaryFolder("virtual-camera")
        let file = folder.appendingPathComponent("call.yuy2").path
        // 320x180 in, 160x120 out: scaled, with borders above and below (16:9 into 4:3).
        var h = try NodeHarness(VirtualCameraNode.self, parameters: [
            "size": "160x120", "output": "filesink location=\(file)",
        ])
        try h.start()
        for i in 0..<10 { _ = try h.process([\.$video: ramp(width: 320, height: 180)], at: Timestamp(frame: i, fps: 30)) }
        try h.finish()
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        #expect(bytes.count == 10 * 160 * 120 * 2, "\(bytes.count) bytes")
        // YUY2: Y0 U Y1 V. The middle row carries the ramp; the top row is a black border.
        let frame = Array(bytes.suffix(160 * 120 * 2))
        let middle = (0..<160).map { frame[(60 * 160 + $0) * 2] }
        let top = (0..<160).map { frame[$0 * 2] }
        #expect(middle.first! < 30 && middle.last! > 200 && zip(middle, middle.dropFirst()).allSatisfy { $0 <= $1 + 1 })
        #expect(top.allSatisfy { $0 <= 20 }, "border \(top.prefix(8))")
        #expect(frame[120 * 160 + 1] == 128)  // neutral chroma
    }

    @Test func aMissingDeviceSaysHowToCreateIt() throws {
        do {
            var h = try NodeHarness(VirtualCameraNode.self, parameters: ["device": "/dev/video-cinegraph-none"])
            try h.start()
            _ = try h.process([\.$video: ramp(width: 64, height: 64)], at: .zero)
            Issue.record("a missing device was accepted")
        } catch {
            #expect("\(error)".contains("/dev/video-cinegraph-none") && "\(error)".contains("modprobe v4l2loopback"), "\(error)")
        }
        #expect(throws: ParameterError.self) { try NodeHarness(VirtualCameraNode.self, parameters: ["format": "MJPG"]) }
    }

    /// sysfs: a loopback device sits under /sys/devices/virtual, a real camera under its bus.
    @Test func loopbackDevicesAreTheVirtualOnes() throws {
        let root = temporaryFolder("v4l-sysfs")
        let fm = FileManager.default
        for (entry, parent, name) in [("video0", "pci0000:00/usb1/1-1", "USB Camera"), ("video10", "virtual", "cinegraph")] {
            let real = root.appendingPathComponent("devices/\(parent)/video4linux/\(entry)")
            try fm.createDirectory(at: real, withIntermediateDirectories: true)
            try name.write(to: real.appendingPathComponent("name"), atomically: true, encoding: .utf8)
            try fm.createDirectory(at: root.appendingPathComponent("class"), withIntermediateDirectories: true)
            try fm.createSymbolicLink(atPath: root.appendingPathComponent("class/\(entry)").path, withDestinationPath: real.path)
        }
        let found = V4L2Loopback.outputs(sysfs: root.appendingPathComponent("class").path)
        #expect(found == [V4L2Loopback.Device(path: "/dev/video10", name: "cinegraph")])
        #expect(V4L2Loopback.deviceName("/dev/video0", sysfs: root.appendingPathComponent("class").path) == "USB Camera")
    }
}
