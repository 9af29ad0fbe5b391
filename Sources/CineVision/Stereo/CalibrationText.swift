// CalibrationText: finds named matrices, vectors and scalars in the text of an OpenCV
// FileStorage file (YAML or XML) or a ROS camera_info YAML file, with errors naming the field.
import Foundation

/// The text of a calibration file, queried by field name.
struct CalibrationText {
    /// The two syntaxes.
    enum Format { case yaml, xml }

    let text: String
    let file: String
    let format: Format

    /// Whether the file has a field `name`.
    func has(_ name: String) -> Bool { body(name) != nil }

    /// The text after `name:` (YAML, up to the next top-level key) or inside `<name …>…</name>` (XML).
    func body(_ name: String) -> Substring? {
        switch format {
        case .xml:
            guard let open = text.range(of: "<\(name)(\\s[^>]*)?>", options: .regularExpression),
                let close = text.range(of: "</\(name)>", range: open.upperBound..<text.endIndex)
            else { return nil }
            return text[open.upperBound..<close.lowerBound]
        case .yaml:
            guard
                let key = text.range(
                    of: "(?m)^[ \\t]*\(NSRegularExpression.escapedPattern(for: name))[ \\t]*:",
                    options: .regularExpression)
            else { return nil }
            let rest = text[key.upperBound...]
            // The value runs to the next line that starts a key at column 0 (top-level), or the end.
            if let next = rest.range(of: "(?m)\\n(?=[A-Za-z_%][A-Za-z0-9_]*[ \\t]*:)", options: .regularExpression) {
                return rest[..<next.lowerBound]
            }
            return rest
        }
    }

    /// The numbers of a list (`[1, 2, 3]` in YAML, whitespace-separated in XML).
    func numbers(_ s: Substring, field: String) throws(CalibrationError) -> [Double] {
        let cleaned = s.replacingOccurrences(of: "[", with: " ").replacingOccurrences(of: "]", with: " ")
            .replacingOccurrences(of: ",", with: " ")
        var out: [Double] = []
        for token in cleaned.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }) {
            guard let v = Double(token) else {
                throw CalibrationError(file: file, field: field, "has \"\(token)\" where a number belongs")
            }
            out.append(v)
        }
        return out
    }

    /// A `rows:`/`cols:`/`data:` sub-field of a matrix body.
    func part(_ body: Substring, _ key: String) -> Substring? {
        switch format {
        case .xml:
            guard let open = body.range(of: "<\(key)>"),
                let close = body.range(of: "</\(key)>", range: open.upperBound..<body.endIndex)
            else { return nil }
            return body[open.upperBound..<close.lowerBound]
        case .yaml:
            if key == "data" {
                guard let k = body.range(of: "data[ \\t]*:[ \\t]*\\[", options: .regularExpression),
                    let end = body.range(of: "]", range: k.upperBound..<body.endIndex)
                else { return nil }
                return body[k.upperBound..<end.lowerBound]
            }
            guard let k = body.range(of: "\(key)[ \\t]*:[ \\t]*[0-9]+", options: .regularExpression) else { return nil }
            return body[k].split(separator: ":").last.map { Substring($0.trimmingCharacters(in: .whitespaces)) }
        }
    }

    /// A `rows × cols` matrix; `nil` if absent and not required.
    func matrix(_ name: String, rows: Int, cols: Int, required: Bool) throws(CalibrationError) -> [Double]? {
        guard let b = body(name) else {
            if required { throw CalibrationError(file: file, field: name, "is missing (a \(rows)x\(cols) matrix)") }
            return nil
        }
        guard let data = part(b, "data") else {
            throw CalibrationError(file: file, field: name, "has no data list")
        }
        let values = try numbers(data, field: name)
        if let r = part(b, "rows").flatMap({ Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }),
            let c = part(b, "cols").flatMap({ Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }),
            r * c != values.count
        {
            throw CalibrationError(file: file, field: name, "says \(r)x\(c) but has \(values.count) values")
        }
        guard values.count == rows * cols else {
            throw CalibrationError(
                file: file, field: name, "must be \(rows)x\(cols) (\(rows * cols) values), has \(values.count)")
        }
        guard values.allSatisfy(\.isFinite) else {
            throw CalibrationError(file: file, field: name, "has a value that is not a finite number")
        }
        return values
    }

    /// A vector of any length (a 1×n or n×1 matrix, or a plain list); `nil` if absent.
    func vector(_ name: String) throws(CalibrationError) -> [Double]? {
        guard let b = body(name) else { return nil }
        if let data = part(b, "data") { return try numbers(data, field: name) }
        return try numbers(b, field: name)
    }

    /// A plain number field; `nil` if absent.
    func scalar(_ name: String) throws(CalibrationError) -> Double? {
        guard let b = body(name) else { return nil }
        let v = try numbers(b.split(separator: "\n").first ?? b, field: name)
        guard v.count == 1 else { throw CalibrationError(file: file, field: name, "must be one number") }
        return v[0]
    }
}
