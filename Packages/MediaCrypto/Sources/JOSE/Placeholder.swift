// Placeholder: the JOSE module is being written.
