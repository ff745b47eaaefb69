// Placeholder: the ZIP module is being written.
