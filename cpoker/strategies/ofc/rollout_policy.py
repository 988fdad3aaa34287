"""What the open-face solvers share: the rollout policy's weights, what Fantasyland is worth, and the boards the
policy makes for sampled opponents.

The rollout policy (:mod:`cpoker._kernels.ofc_policy`) places a player's cards from that player's board and
cards alone.  Its weights were chosen by duplicate heads-up matches of the policy against itself with other
weights (docs/ofc.md, "The rollout policy").  What Fantasyland is worth, in points against the same
opponents, was measured by :func:`cpoker.jobs.ofc.fantasyland_worth.fantasyland_worth` (docs/ofc.md, "What
Fantasyland is worth"); every solver takes it as a parameter.
"""

from __future__ import annotations

import math

import numpy as np

from cpoker.game.dealing import shuffled
from cpoker.game.ofc.rules import OfcRules
from cpoker.system.errors import OptionError

# row, foul, slot_gain, flush_draw, straight_draw: cpoker._kernels.ofc_policy.WEIGHTS after its first, the
# Fantasyland's, which is the solver's fantasyland value
POLICY_WEIGHTS = (16.0, 40.0, 0.1, 0.15, 0.1)
# points a Fantasyland is worth to the player who earns it, by preset: fantasyland_worth(preset, hands=20_000,
# seed=1) for the smallest Fantasyland of each (docs/ofc.md, "What Fantasyland is worth"); progressive's
# bigger ones are worth more (17 cards: 55.6), which a caller may say with fantasyland_value
DEFAULT_FANTASYLAND_VALUE = {"ofc": 13.9, "pineapple": 16.6, "progressive": 16.6}
MAX_FANTASYLAND_VALUE = 1000.0


def fantasyland_value_of(rules: OfcRules, value: "float | None") -> float:
    """``value`` checked (points, 0 to :data:`MAX_FANTASYLAND_VALUE`), or the rules' measured default."""
    if value is None:
        return DEFAULT_FANTASYLAND_VALUE.get(rules.game, 0.0)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value) \
            or not 0 <= value <= MAX_FANTASYLAND_VALUE:
        raise OptionError(f"fantasyland_value must be a number of points from 0 to {MAX_FANTASYLAND_VALUE:g}, got "
                          f"{value!r}")
    return float(value)


def policy_weights(fantasyland_value: float) -> np.ndarray:
    """The rollout policy's weights array, with what Fantasyland is worth."""
    return np.array((float(fantasyland_value), *POLICY_WEIGHTS), dtype=np.float64)


def sampled_opponents(rules: OfcRules, unseen: np.ndarray, count: int, rng: np.random.Generator,
                      fantasyland_value: float) -> tuple:
    """``count`` opponent boards dealt from the card ids ``unseen`` as the rules deal a hand and set by the
    rollout policy: ``(keys, royalty, fouled)`` arrays (front, middle, back keys a row)."""
    from cpoker._kernels.ofc_rollout import policy_boards

    return policy_boards(shuffled(unseen, rng, count, rules.cards_per_player), rules.first_cards, rules.round_cards,
                         rules.round_places, rules.kernel_rules(), policy_weights(fantasyland_value))

