// ParameterValue: the types a node parameter can have, parsed from config text with units.

/// A type that a node parameter can have: parsed from a config value, printed back for docs.
public protocol ParameterValue: Sendable {
    /// The name users see in docs and errors, for example `number` or `size`.
    static var typeName: String { get }
    /// The allowed values, for enumerations; `nil` otherwise.
    static var choices: [String]? { get }
    /// Parses a config value; throws ``ValueError`` with a message that says what is expected.
    init(config: ConfigValue) throws
    /// The value as a user would write it in a config.
    var configText: String { get }
    /// The value as a graph built in code gives it (``GraphSpec/add(_:kind:inputs:_:)``): what
    /// ``init(config:)`` reads back as this value.
    func configValue(at location: SourceLocation) -> ConfigValue
}

extension ParameterValue {
    public static var choices: [String]? { nil }
    public func configValue(at location: SourceLocation) -> ConfigValue { .scalar(configText, location) }
}

/// A value that could not be parsed as its parameter's type.
public struct ValueError: Error, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}

private func scalarText(_ value: ConfigValue, _ type: String) throws -> String {
    guard let text = value.text else { throw ValueError("expected \(type), got \(value)") }
    return text.trimmingCharacters(in: .whitespaces)
}

extension String {
    fileprivate func trimmingCharacters(in _: Whitespace) -> String {
        var s = Substring(self)
        while s.first == " " || s.first == "\t" { s.removeFirst() }
        while s.last == " " || s.last == "\t" { s.removeLast() }
        return String(s)
    }
}
private enum Whitespace { case whitespaces }

extension Int: ParameterValue {
    public static var typeName: String { "integer" }
    public init(config: ConfigValue) throws {
        let t = try scalarText(config, "an integer")
        guard let v = Int(t.replacingUnderscores()) else { throw ValueError("expected an integer, got '\(t)'") }
        self = v
    }
    public var configText: String { String(self) }
}

extension Double: ParameterValue {
    public static var typeName: String { "number" }
    public init(config: ConfigValue) throws {
        let t = try scalarText(config, "a number")
        if let slash = t.firstIndex(of: "/"), let n = Double(t[..<slash]), let d = Double(t[t.index(after: slash)...]),
           d != 0 {
            self = n / d
            return
        }
        guard let v = Double(t.replacingUnderscores()), v.isFinite else { throw ValueError("expected a number, got '\(t)'") }
        self = v
    }
    public var configText: String {
        self == rounded() && abs(self) < 1e15 ? String(Int(self)) : String(self)
    }
}

extension Bool: ParameterValue {
    public static var typeName: String { "boolean" }
    public init(config: ConfigValue) throws {
        let t = try scalarText(config, "true or false").lowercased()
        switch t {
        case "true", "yes", "on": self = true
        case "false", "no", "off": self = false
        default: throw ValueError("expected true or false, got '\(t)'")
        }
    }
    public var configText: String { self ? "true" : "false" }
}

extension String: ParameterValue {
    public static var typeName: String { "string" }
    public init(config: ConfigValue) throws { self = try scalarText(config, "a string") }
    public var configText: String { self.isEmpty ? "\"\"" : self }
    public func configValue(at location: SourceLocation) -> ConfigValue { .scalar(self, location) }

    fileprivate func replacingUnderscores() -> String { String(filter { $0 != "_" }) }
}

extension Array: ParameterValue where Element: ParameterValue {
    public static var typeName: String { "list of \(Element.typeName)" }
    public init(config: ConfigValue) throws {
        switch config {
        case .list(let items, _): self = try items.map { try Element(config: $0) }
        case .scalar(let s, _) where s.isEmpty: self = []
        case .scalar: self = [try Element(config: config)]
        case .mapping: throw ValueError("expected a list, got a mapping")
        }
    }
    public var configText: String { "[" + map(\.configText).joined(separator: ", ") + "]" }
    public func configValue(at location: SourceLocation) -> ConfigValue {
        .list(map { $0.configValue(at: location) }, location)
    }
}

extension Duration: ParameterValue {
    public static var typeName: String { "duration" }
    /// Parses `0.5s`, `500ms`, `2min`, `1h`, or a plain number of seconds.
    public init(config: ConfigValue) throws {
        let t = try scalarText(config, "a duration")
        let units: [(String, Double)] = [("ms", 1e-3), ("us", 1e-6), ("min", 60), ("h", 3600), ("m", 60), ("s", 1)]
        var scale = 1.0
        var number = Substring(t)
        for (suffix, factor) in units where t.hasSuffix(suffix) {
            scale = factor
            number = number.dropLast(suffix.count)
            break
        }
        guard let v = Double(number.trimmingSpaces()), v.isFinite else {
            throw ValueError("expected a duration such as 0.5s, 500ms or 2min, got '\(t)'")
        }
        let nanoseconds = (v * scale * 1e9).rounded()
        // ±292 years is what a 64-bit count of nanoseconds holds; a century is plenty.
        guard abs(nanoseconds) <= 100 * 365.25 * 86_400 * 1e9 else {
            throw ValueError("'\(t)' is longer than a century")
        }
        self = .nanoseconds(Int64(nanoseconds))
    }
    /// The duration in seconds.
    public var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
    public var configText: String { Double(seconds).configText + "s" }
}

extension Substring {
    fileprivate func trimmingSpaces() -> String { String(self).trimmingCharacters(in: .whitespaces) }
}

/// A frame size written `WIDTHxHEIGHT`, for example `1920x1080`.
public struct FrameSize: ParameterValue, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    /// Creates a size.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
    public static var typeName: String { "size" }
    public init(config: ConfigValue) throws {
        let t = try scalarText(config, "a size such as 1920x1080")
        let parts = t.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else {
            throw ValueError("expected a size such as 1920x1080, got '\(t)'")
        }
        guard w <= 16_384 && h <= 16_384 else {
            throw ValueError("'\(t)' is larger than 16384x16384")
        }
        self.init(width: w, height: h)
    }
    public var configText: String { "\(width)x\(height)" }
    public var description: String { configText }
}

/// An enumeration used as a parameter: written by its raw value, choices listed in docs and errors.
public protocol ParameterEnum: ParameterValue, RawRepresentable, CaseIterable where RawValue == String {}

extension ParameterEnum {
    public static var typeName: String { "one of " + allCases.map(\.rawValue).joined(separator: ", ") }
    public static var choices: [String]? { allCases.map(\.rawValue) }
    public init(config: ConfigValue) throws {
        let t = try scalarText(config, "one of \(Self.allCases.map(\.rawValue).joined(separator: ", "))")
        guard let v = Self(rawValue: t) else {
            let names = Self.allCases.map(\.rawValue)
            var message = "'\(t)' is not one of \(names.joined(separator: ", "))"
            if let near = closestMatch(to: t, in: names) { message += "; did you mean '\(near)'?" }
            throw ValueError(message)
        }
        self = v
    }
    public var configText: String { rawValue }
}
