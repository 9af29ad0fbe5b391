// GraphLoader: file → spec → overrides → plugins → validated graph, in one call.

extension Graph {
    /// Loads, overrides, loads plugins and validates a config file.
    ///
    /// - Parameters:
    ///   - path: the config file.
    ///   - registry: the kinds available (plugins named in the file are added to it).
    ///   - overrides: `node.key=value` settings, as from `--set`.
    ///   - preflight: also check what nodes need from this machine (cameras, input files).
    /// - Throws: ``ConfigErrors`` with every problem, each at its file:line:column.
    public static func load(contentsOf path: String, registry: NodeRegistry, overrides: [String] = [],
                            preflight: Bool = false) throws -> Graph {
        var spec = try GraphSpec.load(contentsOf: path)
        try spec.apply(overrides: overrides)
        try PluginLoader.load(spec, into: registry)
        return try GraphBuilder(registry: registry, preflight: preflight).build(spec)
    }

    /// Validates a graph built in code (``GraphSpec/add(_:kind:inputs:_:)``) with `overrides`.
    public static func build(_ spec: GraphSpec, registry: NodeRegistry, overrides: [String] = [],
                             preflight: Bool = false) throws -> Graph {
        var spec = spec
        try spec.apply(overrides: overrides)
        return try GraphBuilder(registry: registry, preflight: preflight).build(spec)
    }

    /// Parses and validates config text (for embedders and tests); `file` names it in errors.
    public static func parse(_ text: String, file: String = "<config>", registry: NodeRegistry,
                             overrides: [String] = [], preflight: Bool = false) throws -> Graph {
        var spec = try GraphSpec.parse(text, file: file)
        try spec.apply(overrides: overrides)
        try PluginLoader.load(spec, into: registry)
        return try GraphBuilder(registry: registry, preflight: preflight).build(spec)
    }
}
