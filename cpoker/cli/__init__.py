"""The ``cpoker`` command: argument parsing, calling the public API, formatting.

No game logic lives here.  ``main(argv)`` returns the exit status, so tests
call it directly.  Bad input prints one line on standard error and exits 2;
a damaged installation, a GPU that fails during a job, or a job this
machine (or its ``ulimit -v``) has not the memory for, one line and 1.
SIGINT (Ctrl-C) and SIGTERM never interrupt a kernel: long jobs stop at the
next block and print their partial result; a command that has its result
when the signal comes prints it (and writes its file) as usual; one that has
none yet prints ``cpoker: interrupted`` and writes nothing.  Either way the
status is 128 + the signal number (130 for Ctrl-C, 143 for SIGTERM).  A second
Ctrl-C ends the process at once.

The package: :mod:`.parser` (the commands and their options), :mod:`.play`
(one hand or deal), :mod:`.jobs` (long jobs, their files and resumes),
:mod:`.tables`, :mod:`.serve` (the web page and ``compile``), :mod:`.command`
(statuses, signals, encodings) and :mod:`.common`.
"""

from cpoker.cli.common import EXIT_USAGE, PARTIAL
from cpoker.cli.command import main, run
from cpoker.cli.parser import make_parser

__all__ = ["EXIT_USAGE", "PARTIAL", "main", "make_parser", "run"]
