"""The version of cpoker: one place, read by the package, its metadata and its saved results."""

__version__ = "0.10.0"
