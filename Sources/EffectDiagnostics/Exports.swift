// The engine's API (contracts, thread expectations, findings, suppressions, checkpoints) is part of
// this adapter's API: `import EffectDiagnostics` is enough to declare and read diagnostics.
@_exported import ReactiveDiagnostics
