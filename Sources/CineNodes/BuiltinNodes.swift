// BuiltinNodes: registers every built-in node kind.
import CineGraph

extension NodeRegistry {
    /// A registry holding every built-in kind: what `cinegraph` uses, and what embedders start from.
    public static func standard() -> NodeRegistry {
        let r = NodeRegistry()
        r.registerBuiltins()
        return r
    }

    /// Registers the built-in kinds (sources, filters, sinks).
    public func registerBuiltins() {
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
        register(FramesSinkNode.self)
        register(AssetSinkNode.self)
        register(MetadataSinkNode.self)
        register(AssetSourceNode.self)
        register(DisparityNode.self)
        register(DetectorNode.self)
        register(BokehNode.self)
        register(StillSinkNode.self)
        register(FocusNode.self)
        register(DelayNode.self)
        register(ViewfinderNode.self)  // serves only where CineViewfinder is installed
        register(RefocusNode.self)
        register(ResizeNode.self)
        register(StabilizerNode.self)
    }
}
