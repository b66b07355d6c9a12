"""The query side: the worktree proof, freshness, overlays, reading a published
version, answers and context packages."""
