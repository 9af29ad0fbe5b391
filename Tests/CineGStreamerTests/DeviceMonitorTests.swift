// DeviceMonitor: listing devices works on a machine with none, and whatever is listed is named.
import Testing

@testable import CineGStreamer

extension CineGStreamerTests {
    @Suite struct DeviceMonitorTests {
        @Test func listingDevicesReturnsNamedDevicesOfTheAskedKind() {
            let cameras = DeviceMonitor.devices(.camera)
            #expect(cameras.allSatisfy { !$0.name.isEmpty && $0.kind == .camera })
            let microphones = DeviceMonitor.devices(.microphone)
            #expect(microphones.allSatisfy { !$0.name.isEmpty && $0.kind == .microphone })
            let all = DeviceMonitor.devices()
            #expect(all.count == cameras.count + microphones.count)
        }

        @Test func stereoFormatsAreToldByTheirShape() throws {
            // Caps as the device monitor lists a side-by-side USB stereo camera's formats.
            let sbs = try #require(StereoFormat(caps: "image/jpeg, width=(int)2560, height=(int)720, framerate=(fraction)30/1"))
            #expect(sbs == StereoFormat(caps: "image/jpeg, width=(int)2560, height=(int)720, framerate=(fraction){ 60/1, 30/1 }"))
            #expect(sbs.layout == .sideBySide && sbs.format == "mjpeg" && sbs.width == 2560)
            #expect(sbs.description == "2560x720 mjpeg, side-by-side (two 1280x720 views)")
            let raw = try #require(StereoFormat(caps: "video/x-raw, format=(string)YUY2, width=(int)1280, height=(int)480, framerate=(fraction)30/1"))
            #expect(raw.format == "yuy2" && raw.layout == .sideBySide)
            #expect(StereoFormat(caps: "video/x-raw, format=(string)NV12, width=(int)640, height=(int)960")?.layout == .topBottom)
            // Ordinary webcams: 16:9, 4:3, a size given as a range.
            #expect(StereoFormat(caps: "image/jpeg, width=(int)1920, height=(int)1080, framerate=(fraction)30/1") == nil)
            #expect(StereoFormat(caps: "video/x-raw, format=(string)YUY2, width=(int)640, height=(int)480") == nil)
            #expect(StereoFormat(caps: "video/x-raw, width=(int)[ 1, 4096 ], height=(int)[ 1, 2160 ]") == nil)
        }
    }
}
