"""Open-face Chinese poker (OFC, Pineapple, progressive Pineapple): the library's API, opt-in beside the closed game.

>>> from cpoker import ofc
>>> ofc.royalties("Qh Qd 2c / 5s 6s 7s 8s Ts / Ah Ad Ac Kd Ks")
21
>>> ofc.settle(["Qh Qd 2c / 5s 6s 7s 8s Ts / Ah Ad Ac Kd Ks",
...             "Jh Jd 3c / 2s 2h 4d 4c 6d / Th Td Tc 9h 9d"], "pineapple").results
[15, -15]

>>> ofc.fantasyland("As Ad Ac Kh Kd Qs Jh Th 9c 8c 7c 6c 5c 2d", "pineapple").total
28
>>> len(ofc.place("- / - / -", "As Kd 9c 9h 4s", "pineapple", samples=64, seed=1).options)
232

The rules are :class:`OfcRules` (``OfcRules.preset("pineapple")``, a house-rules TOML file); boards are
``"front / middle / back"`` text (``-`` for an empty row) or :class:`Board`.  See docs/ofc.md.
"""

from __future__ import annotations

from cpoker.game.ofc.boards import Board
from cpoker.strategies.ofc.fantasyland import FantasylandBoard, fantasyland
from cpoker.game.ofc.rules import GAMES, OfcRoyalties, OfcRules
from cpoker.game.ofc.scoring import BoardScore, OfcSettlement, royalties, score_board, settle
from cpoker.game.ofc.hand import HandRecord, OfcHand, OfcView, options_of, table_deck
from cpoker.game.ofc.history import HandHistory, HistoryError, hand_history, read_histories
from cpoker.game.ofc.position import Position, read_position
from cpoker.strategies.ofc.heuristic import heuristic
from cpoker.jobs.ofc.fantasyland_worth import FantasylandWorth, fantasyland_worth
from cpoker.jobs.ofc.match import OfcMatchResult, OfcStrategyScore, match
from cpoker.jobs.ofc.placement import Placement, PlacementOption, place
from cpoker.jobs.ofc.policy_learning import LearnedPolicy, learn_policy
from cpoker.jobs.ofc.review import OfcReviewResult, PlayerReview, ReviewedDecision, review

__all__ = ["GAMES", "Board", "BoardScore", "FantasylandBoard", "FantasylandWorth", "HandHistory", "HandRecord",
           "HistoryError", "OfcHand", "LearnedPolicy", "OfcMatchResult", "OfcReviewResult", "OfcRoyalties", "OfcRules",
           "OfcSettlement", "OfcStrategyScore", "OfcView", "Placement", "PlacementOption", "PlayerReview", "Position",
           "ReviewedDecision", "fantasyland", "fantasyland_worth", "hand_history", "heuristic", "learn_policy",
           "match", "options_of", "place", "read_histories", "read_position", "review", "royalties", "score_board",
           "settle", "table_deck"]
