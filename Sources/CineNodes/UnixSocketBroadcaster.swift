// UnixSocketBroadcaster: a listening Unix socket that sends every line to every connected client.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Listens on a Unix socket path; ``broadcast(_:)`` accepts waiting clients and writes the line
/// to each. Never blocks: a client that cannot keep up (its socket buffer full) or has gone is
/// dropped. Used from one thread (the node's).
final class UnixSocketBroadcaster {
    let path: String
    private let listener: Int32
    private var clients: [Int32] = []

    /// Creates the socket (replacing a stale one at `path`).
    init(path: String) throws {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw ParameterErrorBox("socket path is too long (at most 107 bytes): \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        unlink(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ParameterErrorBox("cannot create a socket: \(String(cString: strerror(errno)))") }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(fd, 8) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw ParameterErrorBox("cannot listen on \(path): \(reason)")
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        self.path = path
        self.listener = fd
    }

    deinit {
        for c in clients { close(c) }
        close(listener)
        unlink(path)
    }

    /// How many clients are connected.
    var clientCount: Int { clients.count }

    /// Accepts waiting clients, then writes `line` (plus a newline) to every client.
    func broadcast(_ line: String) {
        while true {
            let c = accept(listener, nil, nil)
            if c < 0 { break }
            _ = fcntl(c, F_SETFL, fcntl(c, F_GETFL) | O_NONBLOCK)
            clients.append(c)
        }
        guard !clients.isEmpty else { return }
        let bytes = Array((line + "\n").utf8)
        clients.removeAll { c in
            let sent = bytes.withUnsafeBytes { send(c, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent == bytes.count { return false }
            close(c)
            return true
        }
    }
}

/// An error with a message, turned into a ParameterError by the node.
struct ParameterErrorBox: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
