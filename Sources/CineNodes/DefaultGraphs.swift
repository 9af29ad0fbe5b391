// DefaultGraphs: the graph `cinegraph demo` records (also graphs/demo.conf).

/// Graph configs built into the binary.
public enum DefaultGraphs {
    /// The cinematic demo's take: synthetic stereo camera → disparity refined by the person matte → faces → focus → asset.
    /// Identical to graphs/demo.conf.
    public static let demo = """
        # The cinematic demo's take: a synthetic stereo camera (no hardware needed) whose people enter,
        # pass each other, turn away and come back; disparity from the stereo matcher, made whole inside
        # people by the person matte; faces detected and tracked; the focus director deciding who is in
        # focus; all of it recorded as a cinematic asset. The render re-reads the focus decisions with the
        # whole take in view, so each rack starts early and lands as the subject matters.
        # `cinegraph demo` (or `make demo`, or a bare `cinegraph run`) records it, then renders it with
        # the bokeh burned in, plots the focus story and draws a contact sheet (docs/demo.md).
        # `cinegraph run graphs/demo.conf` records the asset alone.
        graph: demo
        nodes:
          camera:
            kind: synthetic
            size: 1280x720        # each view
            fps: 30
            duration: 10s
            live: false           # rendered as fast as the graph takes frames: nothing dropped, same take every time
          disparity:
            kind: disparity
            stereo: camera.stereo
          # People whole: the person matte and the views settle what stereo gets wrong inside people
          # (striped, knitted or flat clothes) and at their outlines; the rest reads this map.
          matte:
            kind: matte
            image: camera.left
          depth:
            kind: depth-refine
            disparity: disparity.disparity
            matte: matte.matte
            stereo: camera.stereo
          faces:
            kind: detector
            image: camera.left
            disparity: depth.disparity
          focus:
            kind: focus
            detections: faces.detections
            disparity: depth.disparity
            aperture: 2
          asset:
            kind: asset
            video: camera.left
            disparity: depth.disparity
            right: camera.right          # keeps the pair (a quarter size): --repair matches depth again where it was carried
            detections: focus.detections
            focus: focus.focus
            path: out/demo-{time}.cine.mkv

        """
}
