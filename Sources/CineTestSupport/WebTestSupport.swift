// WebTestSupport: what the web suites share — a small HTTP client, polling until a condition
// holds, the folder screenshots go to — beside WebDriver (headless Chromium).
import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where the web suites write artefacts (screenshots, chromedriver's log): `.build/test-artifacts/`.
public enum TestArtefacts {
    /// The checkout this file is in.
    public static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `.build/test-artifacts/viewfinder` (the viewfinder's and the editor's screenshots), created.
    public static let web: URL = {
        let u = repoRoot.appendingPathComponent(".build/test-artifacts/viewfinder")
        try? FileManager.default.createDirectory(at: u, withIntermediateDirectories: true)
        return u
    }()
}

/// A test helper's failure, in words.
public struct TestFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ d: String) { description = d }
}

/// Polls `condition` every 100 ms until it holds or `seconds` pass.
public func eventually(_ seconds: Double, _ what: String, _ condition: () async throws -> Bool) async throws {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(100))
    }
    throw TestFailure("timed out after \(seconds) s waiting for \(what)")
}

/// A minimal HTTP client for the control API.
public struct HTTP: Sendable {
    public let base: URL
    public var token: String?

    public init(base: URL, token: String? = nil) {
        self.base = base
        self.token = token
    }

    public struct Reply: Sendable {
        public var status: Int
        public var body: Data
        public var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
        public var error: String { json["error"] as? String ?? "" }
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    public func request(
        _ method: String, _ path: String, body: Data? = nil, contentType: String? = "application/json",
        headers: [String: String] = [:]
    ) async throws -> Reply {
        var r = URLRequest(url: URL(string: path, relativeTo: base)!)
        r.httpMethod = method
        r.timeoutInterval = 15
        if let token { r.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let contentType, body != nil { r.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        for (k, v) in headers { r.setValue(v, forHTTPHeaderField: k) }
        r.httpBody = body
        let (data, response) = try await URLSession.shared.data(for: r)
        return Reply(status: (response as! HTTPURLResponse).statusCode, body: data)
    }

    public func get(_ path: String) async throws -> Reply { try await request("GET", path) }

    public func post(_ path: String, _ json: String) async throws -> Reply {
        try await request("POST", path, body: Data(json.utf8))
    }
}
