import ArgumentParser

/// The root command: `reactive-diag <subcommand>`.
struct ReactiveDiagCommand: ParsableCommand {
    /// The built-in subcommands, then those the executable registered (``ToolExtensions``:
    /// `fix`, from ReactiveDiagFix).
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "reactive-diag",
            abstract: "Read ReactiveDiagnostics reports: view them, and gate CI on findings beyond a baseline.",
            discussion: """
                Exit codes: 0 success (gate: nothing new beyond the baseline); 1 gate found new findings or \
                too many live resources; 2 an input is unusable or the command line is wrong.
                """,
            version: ReactiveDiag.version,
            subcommands: [
                ShowCommand.self, HTMLCommand.self, GateCommand.self, BaselineCommand.self, MergeCommand.self,
                SymbolizeCommand.self,
            ] + ToolExtensions.current.subcommands)
    }
}
