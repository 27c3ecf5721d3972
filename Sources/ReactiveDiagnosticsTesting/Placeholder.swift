// Placeholder: replaced by the ReactiveDiagnosticsTesting implementation.
