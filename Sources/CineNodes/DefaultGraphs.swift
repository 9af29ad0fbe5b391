// DefaultGraphs: the graph `cinegraph demo` records (also graphs/demo.conf).

/// Graph configs built into the binary.
public enum DefaultGraphs {
    /// The cinematic demo's take: synthetic stereo camera → disparity → faces → focus → asset.
    /// Identical to graphs/demo.conf.
    public static let demo = """
        # The cinematic demo's take: a synthetic stereo camera (no hardware needed) whose people enter,
        # pass each other, turn away and come back; disparity from the stereo matcher; faces detected
        # and tracked; the focus director deciding who is in focus; all of it recorded as a cinematic
        # asset. The render re-reads the focus decisions with the whole take in view, so each rack starts
        # early and lands as the subject matters.
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
          faces:
            kind: detector
            image: camera.left
            disparity: disparity.disparity
          focus:
            kind: focus
            detections: faces.detections
            disparity: disparity.disparity
            aperture: 2
          asset:
            kind: asset
            video: camera.left
            disparity: disparity.disparity
            detections: focus.detections
            focus: focus.focus
            path: out/demo-{time}.cine.mkv

        """
}
