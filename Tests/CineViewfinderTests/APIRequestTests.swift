// The control API's request bodies as types: what each decodes to, and the 400 each refusal is.
import CineTestSupport
import Foundation
import Testing

@testable import CineEditor
@testable import CineViewfinder

@Suite struct APIRequestTests {
    private func refusal<R: APIRequest>(_ type: R.Type, _ fields: [String: JSONValue]) -> String? {
        do {
            _ = try JSONRequest.decode(type, fields: fields)
            return nil
        } catch let e as APIError {
            #expect(e.status == .badRequest)
            return e.message
        } catch {
            Issue.record("not an APIError: \(error)")
            return nil
        }
    }

    @Test func goodBodiesDecodeToTheirFields() throws {
        let focus = try JSONRequest.decode(FocusRequest.self, fields: ["id": .integer(7), "strong": .bool(true)])
        #expect(focus.id?.value == 7 && focus.strong == true && focus.point == nil)
        let tap = try JSONRequest.decode(PointRequest.self, fields: ["point": .array([.number(0.25), .integer(1)])])
        #expect(tap.point == UnitPoint(x: 0.25, y: 1) && tap.point.argument == "0.25,1.0")
        let record = try JSONRequest.decode(RecordRequest.self, fields: ["action": .string("stop")])
        #expect(record.action == .stop)
        let command = try JSONRequest.decode(
            CommandRequest.self, fields: ["name": .string("focus"), "arguments": .object(["id": .integer(3), "strong": .bool(false)])])
        #expect(command.name == "focus" && command.arguments?.values == ["id": "3", "strong": "false"])
        #expect(try JSONRequest.decode(ParameterValueRequest.self, fields: ["value": .number(2.5)]).value.text == "2.5")
        _ = try JSONRequest.decode(EmptyRequest.self, fields: [:])
        #expect(EmptyRequest.fieldNames.isEmpty && FocusRequest.fieldNames == ["id", "strong", "point"])
    }

    @Test func eachRefusalNamesTheFieldAndWhatToSend() {
        #expect(refusal(FocusRequest.self, ["id": .number(1.5)])?.contains("id must be a whole number") == true)
        #expect(refusal(FocusRequest.self, ["id": .integer(-1)])?.contains("0...2147483647") == true)
        #expect(refusal(FocusRequest.self, ["strong": .integer(1)]) == "strong must be true or false")
        #expect(refusal(PointRequest.self, [:]) == "give point")
        #expect(refusal(PointRequest.self, ["point": .array([.number(0.5)])]) == "point must be [x, y], two numbers")
        #expect(refusal(PointRequest.self, ["point": .array([.number(1.5), .number(0)])])?.contains("outside 0...1") == true)
        #expect(refusal(RecordRequest.self, ["action": .string("pause")])?.contains("\"start\" or \"stop\"") == true)
        #expect(refusal(CommandRequest.self, ["name": .integer(3)]) == "name must be a string")
        #expect(refusal(CommandRequest.self, ["name": .string("x"), "arguments": .array([])]) == "arguments must be a JSON object")
        #expect(refusal(CommandRequest.self, ["name": .string("x"), "arguments": .object(["p": .string("../etc")])])?.contains("without '/'") == true)
        #expect(refusal(ParameterValueRequest.self, ["value": .null])?.contains("value must be a number, true/false") == true)
        #expect(refusal(ApertureRequest.self, ["value": .string("f/2")]) == "value must be a number")
    }
}

/// The pages are three files each (Pages/*.html, .css, .js), served as one response.
@Suite struct PageAssemblyTests {
    @Test func eachPageIsServedWithItsStyleAndScriptInline() {
        for (name, page) in [("viewfinder", ViewfinderPage.template), ("editor", EditorPage.template)] {
            #expect(!page.contains("src=\"\(name).js\"") && !page.contains("href=\"\(name).css\""), "\(name)")
            #expect(page.components(separatedBy: "<script nonce=\"NONCE\">").count == 2, "\(name)")
            #expect(page.components(separatedBy: "<style nonce=\"NONCE\">").count == 2, "\(name)")
            #expect(page.hasPrefix("<!doctype html>") && page.contains("use strict"), "\(name)")
        }
    }

    @Test func aStylesheetAndAScriptAreInlinedWhereTheyWereNamed() {
        let html = Array(#"<head><link rel="stylesheet" href="a.css"></head><body><script src="a.js"></script></body>"#.utf8)
        let page = PageResponse.assemble(html: html, files: ["a.css": Array("p { color: red; }\n".utf8), "a.js": Array("f();\n".utf8)])
        #expect(page == #"<head><style nonce="NONCE">"# + "\np { color: red; }\n</style></head><body>" + #"<script nonce="NONCE">"# + "\nf();\n</script></body>")
    }
}

extension JSONRequest {
    /// What a route decodes from a body holding `fields`.
    fileprivate static func decode<R: APIRequest>(_ type: R.Type, fields: [String: JSONValue]) throws -> R {
        try RequestBody(fields: fields).decode(type)
    }
}
