// Placeholder: replaced by the ReactiveDiagnosticsXCTest implementation.
