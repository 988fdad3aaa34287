"""The ``heuristic`` open-face strategies: the rollout policy's placement, and the Fantasyland with the most
royalties.  ``heuristic`` places by the learned policy, ``heuristic-static`` by 0.8.0's hand-weighted one."""

from __future__ import annotations

import numpy as np

from cpoker.game.cards import cards_mask
from cpoker.game.ofc.boards import Board
from cpoker.strategies.ofc.fantasyland import fantasyland
from cpoker.game.ofc.hand import OfcView
from cpoker.strategies.ofc.rollout_policy import fantasyland_value_of, policy_model, policy_weights


class PolicyPlacer:
    """A rollout policy as a strategy: its placement (:mod:`cpoker._kernels.ofc_policy`), and in Fantasyland the
    board with the most royalties (the Fantasyland solver's ``royalties`` objective)."""

    def __init__(self, policy: str, name: str) -> None:
        self.policy = policy
        self.__name__ = name

    def __call__(self, view: OfcView) -> Board:
        from cpoker._kernels.ofc_policy import place_round

        rules = view.rules
        if view.fantasyland:
            return fantasyland(view.cards, rules, "royalties").board
        board = view.board
        chosen = place_round(cards_mask(board.front), cards_mask(board.middle), cards_mask(board.back),
                             np.array([int(c) for c in view.cards], dtype=np.int64), len(view.cards), view.keep,
                             rules.kernel_rules(), policy_weights(fantasyland_value_of(rules, None)),
                             policy_model(rules, self.policy))
        rows = []
        for row, mask in zip(board.rows, chosen):
            rows.append(row + tuple(c for c in view.cards if int(mask) >> int(c) & 1))
        return Board(*rows)


heuristic = PolicyPlacer("learned", "heuristic")
heuristic_static = PolicyPlacer("static", "heuristic-static")
