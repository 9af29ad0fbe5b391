// HTTPExchange: one HTTP/1.1 request to a viewfinder's or editor's API and its answer, over a
// plain socket — the client side `cinegraph control` and the benches need, without
// FoundationNetworking (libcurl and its thirty libraries cost every process ~13 ms at start-up,
// and cannot be linked into the static release build).
import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// A blocking HTTP/1.1 exchange (`Connection: close`) with an `http://` server.
///
/// ```swift
/// let reply = try HTTPExchange(method: "GET", url: URL(string: "http://127.0.0.1:8080/api/state")!)
///     .send(timeout: 5)
/// ```
public struct HTTPExchange: Sendable {
    /// Why an exchange failed, in words for a terminal.
    public struct Failure: Error, CustomStringConvertible {
        /// What failed, naming the address.
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// The server's status code and body.
    public struct Reply: Sendable {
        /// The HTTP status code.
        public let status: Int
        /// The body (a chunked one reassembled).
        public let body: Data
    }

    /// `GET`, `POST`, …
    public let method: String
    /// An absolute `http://` address.
    public let url: URL
    /// Extra request headers (name, value).
    public var headers: [(String, String)] = []
    /// The request body, if any.
    public var body: Data?

    /// An exchange with nothing sent yet.
    public init(method: String, url: URL, headers: [(String, String)] = [], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// Sends the request and reads the whole answer, or fails after `timeout` seconds without
    /// progress (connecting, writing or reading).
    public func send(timeout: Double) throws -> Reply {
        guard url.scheme == "http", let host = url.host else {
            throw Failure("\(url.absoluteString): only http:// addresses (the viewfinder serves plain HTTP)")
        }
        let port = url.port ?? 80
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw Failure("cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var fd: Int32 = -1
        var lastError = ECONNREFUSED
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let a = candidate, fd < 0 {
            let s = socket(a.pointee.ai_family, a.pointee.ai_socktype, a.pointee.ai_protocol)
            if s >= 0 {
                var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1e6))
                setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
                setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
                if connect(s, a.pointee.ai_addr, a.pointee.ai_addrlen) == 0 { fd = s } else {
                    lastError = errno
                    close(s)
                }
            }
            candidate = a.pointee.ai_next
        }
        guard fd >= 0 else { throw Failure("cannot connect to \(host):\(port): \(String(cString: strerror(lastError)))") }
        defer { close(fd) }

        var path = url.path.isEmpty ? "/" : url.path
        if let query = url.query { path += "?" + query }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body?.count ?? 0)\r\n\r\n"
        var request = Data(head.utf8)
        if let body { request.append(body) }
        try request.withUnsafeBytes { raw in
            var sent = 0
            while sent < raw.count {
                let n = Glibc.send(fd, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
                guard n > 0 else { throw Failure("sending to \(host):\(port): \(String(cString: strerror(errno)))") }
                sent += n
            }
        }
        var answer = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n == 0 { break }
            guard n > 0 else {
                throw Failure(errno == EAGAIN ? "no answer from \(host):\(port) within \(timeout) s"
                                              : "reading from \(host):\(port): \(String(cString: strerror(errno)))")
            }
            answer.append(contentsOf: buffer[0..<n])
        }
        return try Self.parse(answer)
    }

    /// Splits a whole HTTP/1.1 answer into status and body (plain, sized or chunked).
    static func parse(_ answer: Data) throws -> Reply {
        guard let split = answer.range(of: Data("\r\n\r\n".utf8)) else { throw Failure("the answer has no HTTP header") }
        let lines = String(decoding: answer[..<split.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/"), let status = Int(statusParts[1]) else {
            throw Failure("not an HTTP answer: \(lines[0])")
        }
        var body = Data(answer[split.upperBound...])
        let chunked = lines.dropFirst().contains {
            $0.lowercased().hasPrefix("transfer-encoding:") && $0.lowercased().contains("chunked")
        }
        if chunked {
            var out = Data(), rest = body[...]
            while let lineEnd = rest.range(of: Data("\r\n".utf8)),
                let size = Int(String(decoding: rest[..<lineEnd.lowerBound], as: UTF8.self)
                    .split(separator: ";")[0].trimmingCharacters(in: .whitespaces), radix: 16), size > 0
            {
                let start = lineEnd.upperBound
                guard rest.endIndex - start >= size else { break }
                out.append(rest[start..<(start + size)])
                rest = rest[min(rest.endIndex, start + size + 2)...]
            }
            body = out
        }
        return Reply(status: status, body: body)
    }
}
