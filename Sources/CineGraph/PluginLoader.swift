// PluginLoader: loads node kinds from dynamic libraries named in a config's `plugins:`.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Loads plugin libraries. A plugin exports a C function
/// `cinegraph_plugin_register(void *registry)` that receives an unretained ``NodeRegistry``
/// and registers its kinds (see Examples/Plugin). The plugin must be built against the same
/// cinegraph build as the host (its symbols resolve against the host at load time).
public enum PluginLoader {
    /// The symbol every plugin exports.
    public static let entryPoint = "cinegraph_plugin_register"

    /// Loads every plugin of `spec` into `registry`; paths are relative to the config's folder.
    public static func load(_ spec: GraphSpec, into registry: NodeRegistry) throws {
        var errors: [ConfigError] = []
        let base = URL(fileURLWithPath: spec.file).deletingLastPathComponent()
        for (path, location) in spec.plugins {
            let resolved = path.hasPrefix("/") ? path : base.appendingPathComponent(path).path
            do { try load(library: resolved, into: registry) } catch let e as ControlError {
                errors.append(ConfigError(location, key: "plugins", e.description))
            }
        }
        if !errors.isEmpty { throw ConfigErrors(errors) }
    }

    /// Loads one library and calls its registration entry point.
    public static func load(library path: String, into registry: NodeRegistry) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw ControlError("plugin library '\(path)' does not exist")
        }
        guard hostSharesSwiftRuntime else {
            throw ControlError(
                "cannot load plugin '\(path)': this cinegraph has the Swift runtime linked into it (make release builds "
                    + "it so, to start fast), and a plugin needs the shared one; build cinegraph with `swift build` "
                    + "(or `swift build -c release`) and the plugin against that build (docs/embedding.md)")
        }
        guard let handle = dlopen(path, RTLD_NOW | RTLD_GLOBAL) else {
            throw ControlError("cannot load plugin '\(path)': \(String(cString: dlerror()))")
        }
        guard let symbol = dlsym(handle, entryPoint) else {
            throw ControlError("plugin '\(path)' does not export \(entryPoint)")
        }
        typealias Register = @convention(c) (UnsafeMutableRawPointer) -> Void
        let register = unsafeBitCast(symbol, to: Register.self)
        register(Unmanaged.passUnretained(registry).toOpaque())
    }

    /// Whether this process runs the Swift runtime from its shared library — the one a plugin
    /// links to. A cinegraph linked with `--static-swift-stdlib` (what `make release` builds, so
    /// every tool starts in milliseconds) keeps its runtime private, and a plugin would bring a
    /// second one.
    public static var hostSharesSwiftRuntime: Bool {
        guard let handle = dlopen("libswiftCore.so", RTLD_NOW | RTLD_NOLOAD) else { return false }
        dlclose(handle)
        return true
    }
}
