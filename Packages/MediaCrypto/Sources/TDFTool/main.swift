// Placeholder: the tdf tool is being written.
print("tdf: not yet implemented")
