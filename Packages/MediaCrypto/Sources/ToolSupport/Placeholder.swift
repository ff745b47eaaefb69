// Placeholder: the ToolSupport module is being written.
