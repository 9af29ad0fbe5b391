// The `cinegraph` command-line tool: run, validate and inspect graphs.
import ArgumentParser
import Logging

@main
struct Cinegraph: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cinegraph",
        abstract: "Cinematic-mode video for Linux cameras: run declarative processing graphs.",
        discussion: "Start with `cinegraph demo` (a synthetic take with automatic focus, rendered with bokeh) or `cinegraph nodes`.",
        version: "0.1.0",
        subcommands: [DemoCommand.self, RunCommand.self, ValidateCommand.self, NodesCommand.self, DevicesCommand.self, InspectCommand.self, DisparityCommand.self, DetectCommand.self, MatteCommand.self, BokehCommand.self, RenderCommand.self, ScriptCommand.self, EditCommand.self, ExportCommand.self, StabilizeCommand.self,
                      ControlCommand.self, DoctorCommand.self, CalibrateCommand.self])
}

/// Options shared by the subcommands.
struct LoggingOptions: ParsableArguments {
    @Option(name: .long, help: "How much to log.")
    var logLevel: Logger.Level = .notice

    func bootstrap() throws -> Logger {
        let level = logLevel
        LoggingSystem.bootstrap { label in
            var h = StreamLogHandler.standardError(label: label)
            h.logLevel = level
            return h
        }
        var logger = Logger(label: "cinegraph")
        logger.logLevel = level
        return logger
    }
}
