"""How a freshindex process lives and ends: SIGTERM and crash handling, the
garbage-collector policy of indexing processes, and the local cache folder."""
