// DefaultGraphs: the graph `cinegraph run` uses when given none (also graphs/demo.conf).

/// Graph configs built into the binary.
public enum DefaultGraphs {
    /// The demo: the synthetic stereo camera recorded to a movie. Identical to graphs/demo.conf.
    public static let demo = """
        # The demo graph: a synthetic stereo camera (no hardware needed) recorded to a movie.
        # Run it with `cinegraph run graphs/demo.conf` (or just `cinegraph run`).
        graph: demo
        nodes:
          camera:
            kind: synthetic
            size: 1280x720        # each view
            fps: 30
            duration: 10s         # stop after 10 s (Ctrl-C stops earlier; the movie is finalised)
          movie:
            kind: movie
            video: camera.left    # the reference view
            path: out/demo-{time}.mp4

        """
}
