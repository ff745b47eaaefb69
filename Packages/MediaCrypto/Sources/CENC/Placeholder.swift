// Placeholder: the CENC module is being written.
