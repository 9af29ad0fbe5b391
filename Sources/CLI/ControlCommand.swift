// `cinegraph control`: steer a running graph through its viewfinder's control API — the same
// JSON over HTTP the web page and embedders use (docs/control.md).
import ArgumentParser
import CineMedia
import CineViewfinder
import Foundation

struct ControlCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "control",
        abstract: "Send a command to a running graph's viewfinder (focus, fixed, aperture, still, record, state).",
        discussion: """
            URL is the viewfinder's address, as `cinegraph run` prints it (http://127.0.0.1:8080/). \
            Commands:
              focus --id N [--strong]     tracking focus on detection N (weak unless --strong)
              focus --point X,Y           tracking focus at a point (a tap where there is no rectangle)
              tap --point X,Y             the page's tap;  press --point X,Y: its long press
              fixed --point X,Y [--strong]   fixed focus on the plane at the point
              auto                        remove your focus decisions
              aperture F                  simulated aperture (f-number)
              still                       capture a still (the still node's folder)
              record start|stop           start or stop recording
              state                       the viewfinder's state as JSON
              nodes                       the graph's nodes, commands and parameters as JSON
            Points are normalised: 0...1, origin at the top left. A viewfinder off loopback needs \
            --token (or CINEGRAPH_TOKEN in the environment).
            """)

    @Argument(help: "The viewfinder's URL, e.g. http://127.0.0.1:8080/") var url: String
    /// What to ask the viewfinder for: one control API request each.
    enum Verb: String, ExpressibleByArgument, CaseIterable {
        case focus, tap, press, fixed, auto, aperture, still, record, state, nodes
    }

    @Argument(help: "What to send.") var command: Verb
    @Argument(help: "The value: an f-number for aperture, start or stop for record.") var value: String?
    @Option(help: "Detection id (focus).") var id: Int?
    @Option(help: "Normalised point X,Y in 0...1 (focus, tap, press, fixed).") var point: String?
    @Flag(help: "Strong focus: keep it until your next decision (focus --id, fixed).") var strong = false
    @Option(help: "The viewfinder's token (default: $CINEGRAPH_TOKEN).") var token: String?
    @Option(help: "Seconds to wait for the answer.") var timeout: Double = 10

    func run() throws {
        guard let base = URL(string: url), base.scheme == "http", base.host != nil
        else { throw ValidationError("URL must look like http://127.0.0.1:8080/") }
        let (method, path, body) = try request()
        var exchange = HTTPExchange(method: method, url: URL(string: path, relativeTo: base)!.absoluteURL)
        if let secret = token ?? ProcessInfo.processInfo.environment["CINEGRAPH_TOKEN"], !secret.isEmpty {
            exchange.headers.append(("Authorization", "Bearer \(secret)"))
        }
        if let body {
            exchange.body = try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])
            exchange.headers.append(("Content-Type", "application/json"))
        }
        let reply = Result { try exchange.send(timeout: timeout) }
        switch reply {
        case .failure(let error):
            printError("error: cannot reach \(url): \(error)")
            throw ExitCode(2)
        case .success(let answer):
            let (status, data) = (answer.status, answer.body)
            let json = try? JSONSerialization.jsonObject(with: data)
            guard (200..<300).contains(status) else {
                let message = (json as? [String: Any])?["error"] as? String ?? String(decoding: data, as: UTF8.self)
                printError("error: \(status): \(message)")
                throw ExitCode(1)
            }
            if let object = json as? [String: Any], let text = object["reply"] as? String {
                print(text)
            } else if let json,
                let pretty = try? JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted, .sortedKeys])
            {
                print(String(decoding: pretty, as: UTF8.self))
            } else {
                print(String(decoding: data, as: UTF8.self))
            }
        }
    }

    /// The HTTP method, path and JSON body for the command line.
    func request() throws -> (String, String, [String: Any]?) {
        func pointValue() throws -> [Double] {
            guard let point else { throw ValidationError("\(command) needs --point X,Y (normalised 0...1)") }
            guard let p = NormalizedPoint(parsing: point), p.isInsideFrame else {
                throw ValidationError("--point must be X,Y with both in 0...1, e.g. 0.4,0.5")
            }
            return [p.x, p.y]
        }
        func noValue() throws {
            if let value { throw ValidationError("\(command) takes no value ('\(value)')") }
        }
        switch command {
        case .focus:
            try noValue()
            if let id {
                if point != nil { throw ValidationError("give --id or --point, not both") }
                return ("POST", "/api/focus", strong ? ["id": id, "strong": true] : ["id": id])
            }
            if strong { throw ValidationError("--strong goes with --id (focus --point gives weak tracking focus)") }
            return ("POST", "/api/focus", ["point": try pointValue()])
        case .tap, .press:
            try noValue()
            return ("POST", "/api/\(command.rawValue)", ["point": try pointValue()])
        case .fixed:
            try noValue()
            var body: [String: Any] = ["point": try pointValue()]
            if strong { body["strong"] = true }
            return ("POST", "/api/fixed", body)
        case .auto, .still:
            try noValue()
            return ("POST", "/api/\(command.rawValue)", [:])
        case .aperture:
            guard let value, let f = Double(value) else {
                throw ValidationError("aperture needs an f-number, e.g. aperture 2.8")
            }
            return ("POST", "/api/aperture", ["value": f])
        case .record:
            guard let value, ["start", "stop"].contains(value) else {
                throw ValidationError("record needs start or stop")
            }
            return ("POST", "/api/record", ["action": value])
        case .state, .nodes:
            try noValue()
            return ("GET", "/api/\(command.rawValue)", nil)
        }
    }
}
