// Placeholder: the Encoding module is being written.
