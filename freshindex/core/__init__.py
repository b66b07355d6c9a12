"""The core every layer may import, and that imports nothing above it: errors,
the spec models (manifest, pointer, records), git reads, signing, the cache
folder, and how a command stops on SIGTERM."""
