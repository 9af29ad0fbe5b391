// WebDriver: drives Debian's headless Chromium through chromedriver with the W3C WebDriver
// protocol (plain JSON over HTTP) — open a page, run a script, pointer actions, screenshots.
import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// HTTP/1.1 over a blocking socket, one request per connection (Foundation's URLSession on
/// Linux cannot read chromedriver's replies, whose `Content-Length:N` has no space: "Failed
/// writing header").
public enum PlainHTTP {
    /// Sends a request and returns the body (chunked transfer decoded); 30 s socket timeouts.
    public static func request(_ method: String, host: String, port: Int, path: String, body: Data?) throws -> Data {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket() failed") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr(host)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw TestFailure("cannot connect to \(host):\(port)") }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n"
        if let body { head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" }
        var request = Data((head + "\r\n").utf8)
        if let body { request.append(body) }
        try request.withUnsafeBytes { raw in
            var sent = 0
            while sent < raw.count {
                let n = send(fd, raw.baseAddress! + sent, raw.count - sent, 0)
                guard n > 0 else { throw TestFailure("send() failed") }
                sent += n
            }
        }
        // chromedriver keeps the connection open and writes `Content-Length:N` (no space):
        // read the header, then exactly that many bytes (or to EOF without a length).
        var response = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        var split: Range<Data.Index>?
        var expected: Int?
        while true {
            if split == nil, let s = response.range(of: Data("\r\n\r\n".utf8)) {
                split = s
                let header = String(decoding: response[..<s.lowerBound], as: UTF8.self).lowercased()
                for line in header.components(separatedBy: "\r\n") where line.hasPrefix("content-length:") {
                    expected = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
                }
            }
            if let split, let expected, response.count - split.upperBound >= expected { break }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n < 0 { throw TestFailure("recv() failed or timed out") }
            if n == 0 { break }
            response.append(contentsOf: buffer[0..<n])
        }
        guard let split else { throw TestFailure("no HTTP header") }
        let header = String(decoding: response[..<split.lowerBound], as: UTF8.self).lowercased()
        var payload = Data(response[split.upperBound...])
        if header.contains("transfer-encoding: chunked") {
            var decoded = Data()
            while let line = payload.range(of: Data("\r\n".utf8)),
                let size = Int(String(decoding: payload[..<line.lowerBound], as: UTF8.self), radix: 16), size > 0
            {
                let start = line.upperBound
                decoded.append(payload[start..<(start + size)])
                payload = Data(payload[(start + size + 2)...])
            }
            payload = decoded
        }
        return payload
    }
}

/// A chromedriver process and one browser session; `quit()` ends both (also on deinit).
public final class WebDriver: @unchecked Sendable {
    public static let chromedriver = "/usr/bin/chromedriver"
    public static let chromium = "/usr/bin/chromium"

    private let process = Process()
    private let base: URL
    private var session = ""
    private let profile: URL

    /// Starts chromedriver on a free port and opens a headless browser `width`×`height`.
    public init(width: Int = 900, height: Int = 720) async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.chromedriver),
            FileManager.default.isExecutableFile(atPath: Self.chromium)
        else {
            throw TestFailure("chromium and chromium-driver are not installed: run scripts/setup.sh (apt packages)")
        }
        let port = try Self.freePort()
        base = URL(string: "http://127.0.0.1:\(port)")!
        profile = FileManager.default.temporaryDirectory.appendingPathComponent("cg-chromium-\(UUID().uuidString)")
        process.executableURL = URL(fileURLWithPath: Self.chromedriver)
        process.arguments = [
            "--port=\(port)", "--allowed-ips=127.0.0.1",
            "--log-path=\(TestArtefacts.web.appendingPathComponent("chromedriver.log").path)",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        do {
            var lastError = ""
            do {
                try await eventually(15, "chromedriver to listen on \(port)") {
                    do { return try await self.call("GET", "/status")["ready"] as? Bool == true } catch {
                        lastError = "\(error)"
                        return false
                    }
                }
            } catch {
                throw TestFailure("\(error) (running: \(process.isRunning), last error: \(lastError))")
            }
            let caps: [String: Any] = [
                "capabilities": [
                    "alwaysMatch": [
                        "browserName": "chrome",
                        "goog:chromeOptions": [
                            "binary": Self.chromium,
                            "args": [
                                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                                "--window-size=\(width),\(height)", "--user-data-dir=\(profile.path)",
                                "--no-first-run", "--disable-extensions",
                            ],
                        ],
                    ] as [String: Any]
                ]
            ]
            let value = try await call("POST", "/session", caps)
            guard let id = value["sessionId"] as? String else { throw TestFailure("no WebDriver session: \(value)") }
            session = id
        } catch {
            quit()
            throw error
        }
    }

    deinit { quit() }

    /// Ends the browser session and chromedriver (bounded: kills after 5 s).
    public func quit() {
        if !session.isEmpty {
            let s = session
            session = ""
            _ = try? PlainHTTP.request("DELETE", host: "127.0.0.1", port: base.port!, path: "/session/\(s)", body: nil)
        }
        if process.isRunning {
            process.terminate()
            let deadline = Date().addingTimeInterval(5)
            while process.isRunning && Date() < deadline { usleep(50_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        try? FileManager.default.removeItem(at: profile)
    }

    /// Opens `url`.
    public func open(_ url: URL) async throws { _ = try await sessionCall("POST", "/url", ["url": url.absoluteString]) }

    /// Runs `script` (a function body; `arguments` holds `args`) and returns its value; a
    /// returned promise is awaited.
    @discardableResult
    public func execute(_ script: String, _ args: [Any] = []) async throws -> Any? {
        let r = try await sessionCall("POST", "/execute/sync", ["script": script, "args": args], raw: true)
        return r["value"].flatMap { $0 is NSNull ? nil : $0 }
    }

    /// Presses the left button at viewport (x, y), holds it `milliseconds`, releases.
    public func press(x: Int, y: Int, milliseconds: Int) async throws {
        let actions: [String: Any] = [
            "actions": [
                [
                    "type": "pointer", "id": "finger", "parameters": ["pointerType": "mouse"],
                    "actions": [
                        ["type": "pointerMove", "duration": 0, "origin": "viewport", "x": x, "y": y],
                        ["type": "pointerDown", "button": 0],
                        ["type": "pause", "duration": milliseconds],
                        ["type": "pointerUp", "button": 0],
                    ],
                ] as [String: Any]
            ]
        ]
        _ = try await sessionCall("POST", "/actions", actions)
        _ = try await sessionCall("DELETE", "/actions")
    }

    /// Drags the mouse from one viewport point to another (down, moves over `milliseconds`, up).
    public func drag(from a: (x: Int, y: Int), to b: (x: Int, y: Int), milliseconds: Int = 300) async throws {
        var moves: [[String: Any]] = [
            ["type": "pointerMove", "duration": 0, "origin": "viewport", "x": a.x, "y": a.y],
            ["type": "pointerDown", "button": 0],
        ]
        for k in 1...6 {
            moves.append(["type": "pointerMove", "duration": milliseconds / 6, "origin": "viewport",
                          "x": a.x + (b.x - a.x) * k / 6, "y": a.y + (b.y - a.y) * k / 6])
        }
        moves.append(["type": "pointerUp", "button": 0])
        let actions: [String: Any] = [
            "actions": [["type": "pointer", "id": "finger", "parameters": ["pointerType": "mouse"], "actions": moves] as [String: Any]]
        ]
        _ = try await sessionCall("POST", "/actions", actions)
        _ = try await sessionCall("DELETE", "/actions")
    }

    /// Clicks the element matching a CSS selector.
    public func click(_ selector: String) async throws {
        let found = try await sessionCall("POST", "/element", ["using": "css selector", "value": selector], raw: true)
        guard let element = (found["value"] as? [String: Any])?.values.first as? String else {
            throw TestFailure("no element \(selector)")
        }
        _ = try await sessionCall("POST", "/element/\(element)/click", [:])
    }

    /// Saves a PNG screenshot of the page as `name`.png in the artefact folder; returns its path.
    @discardableResult
    public func screenshot(_ name: String) async throws -> URL {
        let r = try await sessionCall("GET", "/screenshot", nil, raw: true)
        guard let text = r["value"] as? String, let png = Data(base64Encoded: text) else {
            throw TestFailure("no screenshot")
        }
        let url = TestArtefacts.web.appendingPathComponent("\(name).png")
        try png.write(to: url)
        return url
    }

    // MARK: - Protocol

    private func sessionCall(_ method: String, _ path: String, _ body: [String: Any]? = nil, raw: Bool = false)
        async throws -> [String: Any]
    {
        try await call(method, "/session/\(session)\(path)", body, raw: raw)
    }

    /// One WebDriver request; returns `value` (or, with `raw`, the whole reply) and turns a
    /// WebDriver error into a thrown one.
    private func call(_ method: String, _ path: String, _ body: [String: Any]? = nil, raw: Bool = false)
        async throws -> [String: Any]
    {
        let payload = try body.map { try JSONSerialization.data(withJSONObject: $0) }
        let port = base.port!
        let data: Data = try await withCheckedThrowingContinuation { c in
            Thread {
                c.resume(
                    with: Result {
                        try PlainHTTP.request(method, host: "127.0.0.1", port: port, path: path, body: payload)
                    })
            }
            .start()
        }
        let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        if let value = json["value"] as? [String: Any], let error = value["error"] as? String {
            throw TestFailure("WebDriver \(method) \(path): \(error): \(value["message"] ?? "")")
        }
        if raw { return json }
        return json["value"] as? [String: Any] ?? [:]
    }

    /// A TCP port nobody listens on now (bound then released).
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket() failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { throw TestFailure("bind() failed") }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw TestFailure("getsockname() failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
