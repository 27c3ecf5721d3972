// Placeholder: replaced by the tool implementation.
