// BenchSupport: what every CineBench section shares — one clock, one way to run another
// process (a shell line, a peer in the bench venv), one error, and the report that the closing
// summary table reads.
import CineGraph
import Dispatch
import Foundation
import Synchronization

/// Seconds on the monotonic clock.
func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

/// The wall seconds `body` takes.
func time(_ body: () throws -> Void) rethrows -> Double {
    let t0 = now()
    try body()
    return now() - t0
}

/// The median of `values` (the upper one of an even count); 0 for none.
func median(_ values: [Double]) -> Double { values.isEmpty ? 0 : values.sorted()[values.count / 2] }

/// Times `body` `count` times; the median and mean in seconds. The median is what a report
/// leads with: on a shared 2-core machine, other processes inflate the mean.
func measure(_ count: Int, _ body: () throws -> Void) rethrows -> (median: Double, mean: Double) {
    var samples: [Double] = []
    for _ in 0..<count { samples.append(try time(body)) }
    return (median(samples), samples.reduce(0, +) / Double(max(1, count)))
}

/// A bench step that could not run.
struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Runs `command` in `/bin/sh`; its standard output, or `BenchError` when it fails.
func capture(_ command: String) throws -> String {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/sh")
    p.arguments = ["-c", command]
    let out = Pipe()
    p.standardOutput = out
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else { throw BenchError("command failed (\(p.terminationStatus)): \(command)") }
    return String(decoding: data, as: UTF8.self)
}

/// Runs one program as a user's shell would (`posix_spawn`, no shell in between, standard
/// output and error to `output`) and returns its wall seconds from spawn to exit: the whole
/// process, start-up included, and nothing of the bench's own (Foundation's `Process` closes
/// every possible descriptor in the child, tens of milliseconds that belong to no tool).
func spawnWall(_ arguments: [String], output: String) throws -> Double {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    let argv = arguments.map { strdup($0) } + [nil]
    defer { for a in argv { free(a) } }
    var pid: pid_t = 0
    let t0 = now()
    let rc = posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ)
    guard rc == 0 else { throw BenchError("cannot start \(arguments[0]): \(String(cString: strerror(rc)))") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let seconds = now() - t0
    guard status == 0 else { throw BenchError("\(arguments.joined(separator: " ")) failed (status \(status))") }
    return seconds
}

/// Runs `command` in `/bin/sh` with its output discarded; the whole process's wall seconds.
func shell(_ command: String) throws -> Double {
    try time { _ = try capture(command + " > /dev/null 2>&1") }
}

/// The bench venv's python (OpenCV, MediaPipe, LiteRT's Interpreter: the peers), made once by
/// scripts/bench-venv.sh; `BenchError` when it cannot be made.
func benchPython() throws -> String {
    let path = try capture("bash scripts/bench-venv.sh").trimmingCharacters(in: .whitespacesAndNewlines)
    guard !path.isEmpty else { throw BenchError("scripts/bench-venv.sh printed no interpreter") }
    return path
}

/// Every figure reported so far, for the closing table of `make bench`.
let reported = Mutex<[(name: String, value: String)]>([])

/// Prints one figure and keeps it for the summary table.
func report(_ name: String, _ value: String) {
    print(String(format: "%-58@ %@", name as NSString, value))
    reported.withLock { $0.append((name, value)) }
}

/// This process's CPU seconds (user + system, every thread) so far.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}
