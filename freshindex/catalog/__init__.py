"""The version catalog both wings stand on: the spec models (manifest,
pointer, publication record), the store layout and the pointer's
compare-and-swap, integrity and signing, reading a version and its rows in
memory, and the published versions of a store.

The build wing (``tasks``, ``flows``) writes versions through it; the query
wing (``query``, ``service``) and operators (``ops``) read them through it.
Neither wing imports the other."""
