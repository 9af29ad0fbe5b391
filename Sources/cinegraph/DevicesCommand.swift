// `cinegraph devices`: cameras and microphones GStreamer can see, with their formats.
import ArgumentParser
import CineGStreamer

struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices", abstract: "List cameras and microphones with their formats.")

    @Flag(help: "Show every format of every device.") var verbose = false

    func run() throws {
        try GStreamer.initialize()
        let all = DeviceMonitor.devices()
        for kind in [DeviceInfo.Kind.camera, .microphone] {
            let list = all.filter { $0.kind == kind }
            print(kind == .camera ? "Cameras:" : "Microphones:")
            if list.isEmpty { print("  (none found)") }
            for d in list {
                print("  \(d.path ?? "-")  \(d.name)")
                for f in verbose ? d.formats : Array(d.formats.prefix(6)) { print("      \(f)") }
                if !verbose && d.formats.count > 6 { print("      … \(d.formats.count - 6) more (--verbose)") }
            }
        }
        if all.filter({ $0.kind == .camera }).isEmpty {
            print("\nNo camera: `cinegraph demo` records the synthetic stereo camera (graphs/demo.conf).")
        }
    }
}
