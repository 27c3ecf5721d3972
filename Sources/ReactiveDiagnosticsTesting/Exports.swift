// The engine's API (contracts, thread expectations, findings, suppressions, checkpoints) is part of
// this test integration's API: `import ReactiveDiagnosticsTesting` is enough to declare and read diagnostics.
@_exported import ReactiveDiagnostics
