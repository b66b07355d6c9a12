"""The base every layer may import, and that imports nothing above it: errors,
tree entries, git reads and how commits relate."""
