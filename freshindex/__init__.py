"""freshindex: a code index that proves which version of the code each answer belongs to."""

__version__ = "0.1.0"
