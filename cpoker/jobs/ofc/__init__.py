"""The open-face game's jobs, on the job skeleton: the placement solver (``place``), matches, what a Fantasyland is
worth, and a hand against a strategy for the web page's table."""
