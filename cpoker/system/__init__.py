"""What the process and the machine give every layer above: the typed errors, size limits and option validators,
the environment checks made before numba loads, atomic files, signals held as a flag between kernel calls, the
thread pool, the cold-start notice and the JIT options with their kernel cache."""
