// APIRequest: a route's request body as a Swift type. Its coding keys are the fields the route
// accepts (anything else is refused by name), its properties' types say what each field holds,
// and a refusal is a 400 that names the field — the control API's and the editor's routes
// decode their bodies this way instead of reading a dictionary.
import Foundation
import Hummingbird

/// A request body a route decodes: `Decodable`, with its fields listed by its `CodingKeys`.
///
/// ```swift
/// struct ApertureRequest: APIRequest {
///     var value: Double
///     enum CodingKeys: String, CodingKey, CaseIterable { case value }
/// }
/// let body = try await JSONRequest.decode(ApertureRequest.self, from: request)
/// ```
package protocol APIRequest: Decodable, Sendable {
    /// The fields the route accepts (the keys the decoding reads): every other field is
    /// refused as unknown.
    associatedtype CodingKeys: CodingKey & CaseIterable
}

/// A body with no fields (`{}` or nothing): for actions such as undo, still or auto.
package struct EmptyRequest: APIRequest {
    /// No field at all.
    package enum CodingKeys: CodingKey, CaseIterable {
        package var stringValue: String { switch self {} }
        package var intValue: Int? { nil }
        package init?(stringValue: String) { nil }
        package init?(intValue: Int) { nil }
    }
    package init(from decoder: any Decoder) throws {}
}

extension APIRequest {
    /// The names of the accepted fields.
    package static var fieldNames: Set<String> {
        Set(CodingKeys.allCases.map(\.stringValue))
    }
}

/// A request's JSON object, read once: its fields (already checked against the route's) and its
/// bytes, which the route's ``APIRequest`` decodes.
package struct RequestBody: Sendable {
    /// The object's fields.
    package let fields: [String: JSONValue]
    private let data: Data

    init(fields: [String: JSONValue], data: Data) {
        self.fields = fields
        self.data = data
    }

    /// A body holding `fields`, as a client would send it.
    package init(fields: [String: JSONValue]) {
        self.init(fields: fields, data: (try? JSONEncoder().encode(JSONValue.object(fields))) ?? Data("{}".utf8))
    }

    /// The body as `type`: wrong types and missing fields are 400s that name the field and say
    /// what to send.
    package func decode<R: APIRequest>(_ type: R.Type) throws -> R {
        do {
            return try JSONDecoder().decode(R.self, from: data)
        } catch let error as APIError {
            throw error
        } catch let error as DecodingError {
            throw APIError.badRequest(JSONRequest.message(error))
        }
    }
}

extension JSONRequest {
    /// Decodes the body as `type`: unknown fields, wrong types and missing fields are 400s that
    /// name the field and say what to send.
    package static func decode<R: APIRequest>(_ type: R.Type, from request: Request, limit: Int = bodyLimit) async throws -> R {
        try await body(request, allowed: R.fieldNames, limit: limit).decode(type)
    }

    /// A decoding failure in the words the API uses.
    static func message(_ error: DecodingError) -> String {
        func key(_ path: [any CodingKey]) -> String { path.last?.stringValue ?? "the body" }
        switch error {
        case .keyNotFound(let k, _):
            return "give \(k.stringValue)"
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            return "\(key(context.codingPath)) must be \(expected(type))"
        case .dataCorrupted(let context):
            // Numbers that do not fit the field (1.5 for a whole number, 1e40).
            return "\(key(context.codingPath)) must be a whole number"
        @unknown default:
            return "the body does not match this request"
        }
    }

    private static func expected(_ type: Any.Type) -> String {
        switch type {
        case is Bool.Type: return "true or false"
        case is Int.Type, is Int32.Type, is Int64.Type: return "a whole number"
        case is Double.Type, is Float.Type: return "a number"
        case is String.Type: return "a string"
        default: return "a \(type)"
        }
    }
}

// MARK: - Field types shared by routes

/// `[x, y]`, both in 0…1 (normalised, origin top left): a point in the picture.
package struct UnitPoint: Decodable, Sendable, Equatable {
    package var x: Double
    package var y: Double

    package init(x: Double, y: Double) { (self.x, self.y) = (x, y) }

    package init(from decoder: any Decoder) throws {
        let key = decoder.codingPath.last?.stringValue ?? "point"
        guard case .array(let a) = try JSONValue(from: decoder), a.count == 2, let x = a[0].number, let y = a[1].number
        else { throw APIError.badRequest("\(key) must be [x, y], two numbers") }
        guard (0...1).contains(x), (0...1).contains(y) else {
            throw APIError.badRequest("\(key) [\(x), \(y)] is outside 0...1 (normalised, origin top left)")
        }
        (self.x, self.y) = (x, y)
    }

    /// `x,y`, as the focus node's commands take a point.
    package var argument: String { "\(x),\(y)" }
}

/// A whole number in 0…`Int32.max`: a detection or group ID.
package struct SubjectID: Decodable, Sendable, Equatable {
    package var value: Int

    package init(from decoder: any Decoder) throws {
        let key = decoder.codingPath.last?.stringValue ?? "id"
        let v = try JSONValue(from: decoder)
        guard let d = v.number, d == d.rounded(), d >= 0, d <= Double(Int32.max) else {
            throw APIError.badRequest("\(key) must be a whole number in 0...\(Int32.max)")
        }
        value = Int(d)
    }
}

/// A finite number (JSON has no infinity, but `1e999` decodes to one).
package struct FiniteNumber: Decodable, Sendable, Equatable {
    package var value: Double

    package init(from decoder: any Decoder) throws {
        let key = decoder.codingPath.last?.stringValue ?? "value"
        guard let d = try JSONValue(from: decoder).number, d.isFinite else {
            throw APIError.badRequest("\(key) must be a number")
        }
        value = d
    }
}

/// A short value a node's parameter or command argument takes, as its text: a number,
/// `true`/`false`, or text.
package struct ScalarText: Decodable, Sendable, Equatable {
    package var text: String

    package init(from decoder: any Decoder) throws {
        let key = decoder.codingPath.last?.stringValue ?? "value"
        guard let text = JSONRequest.scalarText(try JSONValue(from: decoder)) else {
            throw APIError.badRequest("\(key) must be a number, true/false, or short text")
        }
        self.text = text
    }
}
