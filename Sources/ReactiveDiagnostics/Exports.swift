// The report model (findings, stacks, summaries as written to disk) is part of the engine's
// API: `import ReactiveDiagnostics` is enough to read and write reports.
@_exported import ReactiveDiagnosticsReport
