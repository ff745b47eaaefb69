// Placeholder: the MP4 module is being written.
