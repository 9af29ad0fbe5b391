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
    }
}
