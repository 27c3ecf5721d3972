// The engine's API (contracts, thread expectations, findings, checkpoints) is part of this
// adapter's API: `import ConcurrencyDiagnostics` is enough to declare and read diagnostics.
@_exported import ReactiveDiagnostics
