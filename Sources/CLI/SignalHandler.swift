// SignalHandler: the first SIGINT/SIGTERM drains the graph in order; the second aborts.
import CineGraph
import Dispatch
import Foundation
import Synchronization

/// Unchecked: `sources` is written once, in `install()`, before any signal can arrive.
final class SignalHandler: @unchecked Sendable {
    private let runner: GraphRunner
    private let count = Atomic<Int>(0)
    private var sources: [any DispatchSourceSignal] = []

    init(runner: GraphRunner) { self.runner = runner }

    var draining: Bool { count.load(ordering: .acquiring) > 0 }
    var aborted: Bool { count.load(ordering: .acquiring) > 1 }

    func install() {
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { [self] in self.received(sig == SIGINT ? "interrupt" : "terminate") }
            source.resume()
            sources.append(source)
        }
    }

    /// Starts an orderly stop (also used when --duration is reached).
    func drain(reason: String) {
        guard count.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing).exchanged else { return }
        printError(clearLine + "cinegraph: \(reason): stopping — finishing files (again to abort)")
        runner.drain()
    }

    private func received(_ name: String) {
        let n = count.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue
        if n == 1 {
            printError(clearLine + "cinegraph: \(name): stopping — finishing files (again to abort)")
            runner.drain()
        } else if n == 2 {
            printError(clearLine + "cinegraph: \(name) again: aborting")
            runner.abort()
            DispatchQueue.global().asyncAfter(deadline: .now() + 5) { exit(130) }
        } else {
            exit(130)
        }
    }
}

/// Reads control messages from stdin and prints the replies.
enum ControlReader {
    static func start(_ runner: GraphRunner) {
        let thread = Thread {
            while let line = readLine() {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.isEmpty { continue }
                guard let (node, message) = ControlMessage.parse(trimmed) else {
                    printError("control: expected node.param=value, node.param?, or node command [args]")
                    continue
                }
                runner.send(message, to: node) { result in
                    switch result {
                    case .success(let s): printError("control: \(s)")
                    case .failure(let e as NodeParameterError):
                        if case .invalid = e { printError("control: error: \(node).\(e)") } else {
                            printError("control: error: node '\(node)': \(e)")
                        }
                    case .failure(let e): printError("control: error: \(e)")
                    }
                }
            }
        }
        thread.start()
    }
}

/// Returns the cursor to the start of the line and clears it, when stderr is a terminal.
let clearLine: String = isatty(STDERR_FILENO) != 0 ? "\r\u{1B}[K" : ""
