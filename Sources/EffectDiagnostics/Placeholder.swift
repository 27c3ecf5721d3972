// Placeholder: replaced by the EffectDiagnostics implementation.
