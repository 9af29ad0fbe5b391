// CascadeXMLElement: a small XML reader for OpenCV FileStorage files — elements, attributes,
// text and line numbers; enough for cascades, with errors that say where.

import Foundation
/// One element of an XML document, with its source line and a path for error messages.
public struct CascadeXMLElement: Sendable {
    /// Tag name.
    public var name: String
    /// Attributes in document order.
    public var attributes: [String: String]
    /// Concatenated character data directly inside this element (comments removed).
    public var text: String
    /// Child elements in document order.
    public var children: [CascadeXMLElement]
    /// 1-based line where the start tag is.
    public var line: Int
    /// Path from the root, e.g. `cascade/stages/_[3]`.
    public var path: String

    /// The first child named `name`.
    public func child(_ name: String) -> CascadeXMLElement? { children.first { $0.name == name } }

    /// Parses `text`; `file` names the document in errors.
    public static func parse(_ text: String, file: String) throws -> CascadeXMLElement {
        var reader = Reader(bytes: Array(text.utf8), file: file)
        return try reader.document()
    }

    /// A hand-written recursive-descent reader over UTF-8 bytes.
    private struct Reader {
        let bytes: [UInt8]
        let file: String
        var i = 0
        var line = 1

        init(bytes: [UInt8], file: String) {
            self.bytes = bytes
            self.file = file
        }

        func fail(_ message: String, element: String = "") -> CascadeError {
            CascadeError(file: file, line: line, element: element, "malformed XML: " + message)
        }

        mutating func advance(_ n: Int = 1) {
            for _ in 0..<n where i < bytes.count {
                if bytes[i] == 10 { line += 1 }
                i += 1
            }
        }

        func starts(with s: String) -> Bool {
            let u = Array(s.utf8)
            guard i + u.count <= bytes.count else { return false }
            for k in 0..<u.count where bytes[i + k] != u[k] { return false }
            return true
        }

        mutating func skip(past s: String, what: String) throws {
            while i < bytes.count && !starts(with: s) { advance() }
            guard i < bytes.count else { throw fail("unterminated \(what)") }
            advance(s.utf8.count)
        }

        mutating func skipSpace() {
            while i < bytes.count, bytes[i] == 32 || bytes[i] == 9 || bytes[i] == 10 || bytes[i] == 13 { advance() }
        }

        mutating func name() throws -> String {
            let start = i
            while i < bytes.count {
                let c = bytes[i]
                if c == 32 || c == 9 || c == 10 || c == 13 || c == UInt8(ascii: ">") || c == UInt8(ascii: "/")
                    || c == UInt8(ascii: "=") { break }
                advance()
            }
            guard i > start else { throw fail("expected a name") }
            return String(decoding: bytes[start..<i], as: UTF8.self)
        }

        /// Skips the prolog, comments and doctype, then reads the root element.
        mutating func document() throws -> CascadeXMLElement {
            while true {
                skipSpace()
                if starts(with: "<?") { try skip(past: "?>", what: "processing instruction"); continue }
                if starts(with: "<!--") { try skip(past: "-->", what: "comment"); continue }
                if starts(with: "<!") { try skip(past: ">", what: "declaration"); continue }
                break
            }
            guard i < bytes.count, bytes[i] == UInt8(ascii: "<") else { throw fail("no root element") }
            return try element(parentPath: "", index: 0)
        }

        mutating func element(parentPath: String, index: Int) throws -> CascadeXMLElement {
            let startLine = line
            advance()  // <
            let tag = try name()
            let path = parentPath.isEmpty ? tag : parentPath + "/" + tag + (tag == "_" ? "[\(index)]" : "")
            var e = CascadeXMLElement(name: tag, attributes: [:], text: "", children: [], line: startLine, path: path)
            while true {
                skipSpace()
                guard i < bytes.count else { throw fail("unterminated start tag", element: path) }
                if bytes[i] == UInt8(ascii: "/") {
                    advance()
                    guard i < bytes.count, bytes[i] == UInt8(ascii: ">") else { throw fail("expected '>'", element: path) }
                    advance()
                    return e
                }
                if bytes[i] == UInt8(ascii: ">") { advance(); break }
                let key = try name()
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "=") else { throw fail("attribute \(key) has no value", element: path) }
                advance()
                skipSpace()
                guard i < bytes.count, bytes[i] == 34 || bytes[i] == 39 else { throw fail("attribute \(key) is not quoted", element: path) }
                let q = bytes[i]
                advance()
                let s = i
                while i < bytes.count && bytes[i] != q { advance() }
                guard i < bytes.count else { throw fail("unterminated attribute \(key)", element: path) }
                e.attributes[key] = String(decoding: bytes[s..<i], as: UTF8.self)
                advance()
            }
            var text: [UInt8] = []
            var childIndex = 0
            while true {
                guard i < bytes.count else { throw fail("element is never closed", element: path) }
                if bytes[i] == UInt8(ascii: "<") {
                    if starts(with: "<!--") { try skip(past: "-->", what: "comment"); continue }
                    if starts(with: "<![CDATA[") {
                        advance(9)
                        while i < bytes.count && !starts(with: "]]>") { text.append(bytes[i]); advance() }
                        advance(3)
                        continue
                    }
                    if starts(with: "</") {
                        advance(2)
                        let closing = try name()
                        guard closing == tag else {
                            throw fail("</\(closing)> closes <\(tag)> opened on line \(startLine)", element: path)
                        }
                        skipSpace()
                        guard i < bytes.count, bytes[i] == UInt8(ascii: ">") else { throw fail("expected '>'", element: path) }
                        advance()
                        let decoded = String(decoding: text, as: UTF8.self)
                        e.text = text.contains(0x26) ? decodeEntities(decoded) : decoded  // '&' tested on bytes: cheap
                        return e
                    }
                    e.children.append(try element(parentPath: path, index: childIndex))
                    childIndex += 1
                } else {
                    text.append(bytes[i])
                    advance()
                }
            }
        }

        func decodeEntities(_ s: String) -> String {
            s.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
                .replacingOccurrences(of: "&amp;", with: "&")
        }
    }
}
