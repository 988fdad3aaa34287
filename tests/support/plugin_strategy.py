"""A strategy users could write: importable as ``plugin_strategy:weakest_back``."""

import cpoker


def weakest_back(hand):
    """Sorts the cards by rank and puts the lowest five in the back: usually a foul."""
    cards = sorted(cpoker.parse_cards(hand), key=lambda c: c.rank)
    return cpoker.Arrangement(cards[10:], cards[5:10], cards[:5])


def my_greedy(hand):
    """A user's own bot (here cpoker's greedy, called the slow way, one hand at a time)."""
    return cpoker.greedy(hand)
