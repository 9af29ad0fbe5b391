// BuiltinNodes: registers every built-in node kind.
import CineGraph

extension NodeRegistry {
    /// A registry holding every built-in kind of this module: what embedders start from (the web
    /// viewfinder's kind is CineViewfinder's: `registerViewfinder()`).
    /// - Parameter frameCallbacks: the functions `frames` nodes may hand frames to, by the name a
    ///   config gives in `callback:`.
    public static func standard(frameCallbacks: [String: FramesSinkNode.Callback] = [:]) -> NodeRegistry {
        let r = NodeRegistry()
        r.registerBuiltins(frameCallbacks: frameCallbacks)
        return r
    }

    /// Registers the built-in kinds (sources, filters, sinks); `frameCallbacks` as for ``standard(frameCallbacks:)``.
    public func registerBuiltins(frameCallbacks: [String: FramesSinkNode.Callback] = [:]) {
        register(SyntheticCameraNode.self)
        register(CameraNode.self)
        register(FileSourceNode.self)
        register(GstSourceNode.self)
        register(GstSinkNode.self)
        register(VirtualCameraNode.self)
        register(MatteNode.self)
        register(MonoDepthNode.self)
        register(MovieSinkNode.self)
        register(SideBySideNode.self)
        register(PreviewSinkNode.self)
        register(FramesSinkNode.self) { $0.callbacks = frameCallbacks }
        register(AssetSinkNode.self)
        register(MetadataSinkNode.self)
        register(AssetSourceNode.self)
        register(DisparityNode.self)
        register(DepthRefineNode.self)
        register(DepthRepairNode.self)
        register(KeepPairNode.self)
        register(DetectorNode.self)
        register(BokehNode.self)
        register(StillSinkNode.self)
        register(FocusNode.self)
        register(DelayNode.self)
        register(RefocusNode.self)
        register(ResizeNode.self)
        register(StabilizerNode.self)
    }
}
