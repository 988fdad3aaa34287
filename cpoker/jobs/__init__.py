"""The jobs over the game and the strategies: solve, simulate and match, tournament, exploit, review, row odds,
the table build (self-play, near-best lists, the card-removal learning) and ``cpoker compile``."""
