// CineBench srt: a remote stereo camera over SRT — the shipped send and receive graphs as two
// processes over loopback on the same two cores, 1080p, frames and timestamps checked end to end.
import Foundation

func runSRTBench() throws {
    let seconds = ProcessInfo.processInfo.environment["BENCH_SRT_SECONDS"] ?? "60"
    let size = ProcessInfo.processInfo.environment["BENCH_SRT_SIZE"] ?? "1920x1080"
    print("\nsrt — graphs/srt-send.conf → graphs/srt-receive.conf over loopback, \(seconds) s, 2×\(size) side by side")
    let text = try capture("Benchmarks/live/srt.sh \(seconds) \(size)")
    var v: [String: String] = [:]
    for kv in (text.split(separator: "\n").last ?? "").split(separator: " ") {
        let p = kv.split(separator: "=", maxSplits: 1)
        if p.count == 2 { v[String(p[0])] = String(p[1]) }
    }
    report("srt: frames the camera made / sent / received (aim: all)", "\(v["camera_frames"] ?? "?") / \(v["sent"] ?? "?") / \(v["received"] ?? "?")")
    report("srt: frames lost; stamps off the 1/30 s grid (aim 0, 0)", "\(v["lost"] ?? "?"); \(v["stamps_off"] ?? "?")")
    report("srt: CPU cores, camera box / render box", "\(v["sender_cpu"] ?? "?") / \(v["receiver_cpu"] ?? "?")")
}
