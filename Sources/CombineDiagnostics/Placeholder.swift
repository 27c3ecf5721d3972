// Placeholder: replaced by the CombineDiagnostics implementation.
