// `cinegraph devices`: cameras and microphones GStreamer can see, with their formats.
import ArgumentParser
import CineGStreamer
import CineNodes

struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List cameras and microphones with their formats, and virtual cameras (v4l2loopback outputs).")

    @Flag(help: "Show every format of every device.") var verbose = false

    func run() throws {
        let loopbacks = V4L2Loopback.outputs()
        let outputs = Set(loopbacks.map(\.path))
        // A loopback device also shows as a camera (what is written to it can be read back): it
        // is listed as an output, where cinegraph's virtual-camera node writes.
        let all = DeviceMonitor.devices().filter { $0.path.map { !outputs.contains($0) } ?? true }
        for kind in [DeviceInfo.Kind.camera, .microphone] {
            let list = all.filter { $0.kind == kind }
            print(kind == .camera ? "Cameras:" : "Microphones:")
            if list.isEmpty { print("  (none found)") }
            for d in list {
                print("  \(d.path ?? "-")  \(d.name)")
                for f in verbose ? d.formats : Array(d.formats.prefix(6)) { print("      \(f)") }
                if !verbose && d.formats.count > 6 { print("      … \(d.formats.count - 6) more (--verbose)") }
                // Formats shaped like two views: this is (probably) a stereo camera.
                var seen = Set<String>()
                let stereo = d.formats.compactMap(StereoFormat.init(caps:)).filter { seen.insert($0.description).inserted }
                if let best = stereo.max(by: { $0.width * $0.height < $1.width * $1.height }) {
                    print("    looks like a stereo camera: " + stereo.map(\.description).joined(separator: "; "))
                    print("    graph: { kind: camera, device: \(d.path ?? "auto"), size: \(best.width)x\(best.height), format: \(best.format), layout: \(best.layout.rawValue), calibration: stereo.yml }")
                    print("    calibrate it first: docs/stereo-rig.md")
                }
            }
        }
        print("Virtual cameras (outputs for the virtual-camera node):")
        if loopbacks.isEmpty { print("  (none: create one with `\(VirtualCameraNode.modprobe)`)") }
        for d in loopbacks { print("  \(d.path)  \(d.name)  (v4l2loopback)") }
        if all.filter({ $0.kind == .camera }).isEmpty {
            print("\nNo camera: `cinegraph demo` records the synthetic stereo camera (graphs/demo.conf).")
        }
    }
}
