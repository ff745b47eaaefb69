// Placeholder: the HLS module is being written.
