// LibraryChatter: keeps the runtime's informational lines ("INFO: Created TensorFlow Lite XNNPACK
// delegate for CPU.", printed once per process by the first compile) off the user's terminal,
// which shows cinegraph's words only. LiteRT 2.3.0 exports no logger control, and its
// environment's log option does not reach TensorFlow Lite's own minimal logger.
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

enum LibraryChatter {
    private static let firstCompile = Mutex(true)

    /// Runs `body` (the first model compile in the process) with standard error captured; then
    /// writes back every captured line that is not the runtime's `INFO:` chatter — warnings,
    /// errors and whatever another thread printed meanwhile are kept. Later calls run `body` as is.
    static func quieted<T>(_ body: () throws -> T) rethrows -> T {
        try firstCompile.withLock { first in
            guard first else { return try body() }
            first = false
            var fds: [Int32] = [0, 0]
            let saved = dup(STDERR_FILENO)
            guard saved >= 0, pipe(&fds) == 0 else { return try body() }
            _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
            fflush(nil)
            dup2(fds[1], STDERR_FILENO)
            defer {
                fflush(nil)
                dup2(saved, STDERR_FILENO)
                close(saved)
                close(fds[1])
                var captured = [UInt8]()
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let n = read(fds[0], &buffer, buffer.count)
                    if n <= 0 { break }
                    captured += buffer[0..<n]
                }
                close(fds[0])
                let kept = String(decoding: captured, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
                    .filter { !$0.hasPrefix("INFO: ") }.joined(separator: "\n")
                if !kept.isEmpty { FileHandle.standardError.write(Data(kept.utf8)) }
            }
            return try body()
        }
    }
}
