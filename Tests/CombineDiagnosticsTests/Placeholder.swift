// Placeholder: replaced by the real tests.
