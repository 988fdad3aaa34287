"""Backends of :func:`cpoker.run.runner.run_blocks` other than the local one; each is imported only when used."""
