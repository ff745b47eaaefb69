// Placeholder: the TDF module is being written.
