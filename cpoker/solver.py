"""Find the best non-fouling arrangement of a 13-card hand (RULES.md §3).

``method="mc"`` (the default) deals the opponents' hands from the 39 cards not
in ours, arranges them with the opponent model, and settles every
non-fouling split against the same samples (common random numbers).  Under
1-point-per-row scoring a split's total is the sum of its rows' totals, so
every row subset is settled once (1,287 backs, 1,287 middles, 286 fronts)
and all ~20,000 candidates are scored exactly, without pruning.

With scoop bonuses or royalties (``rules``) a deal's points are no longer a
sum over rows, so every candidate is settled jointly against every sample
instead (in parallel over candidates).  When the rules count naturals and the
hand holds one worth more than the best arrangement, the solution says to
declare it.

``method="table"`` returns the table policy's choice at once, with the table
estimate of its value (learned under 1-point-per-row scoring).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from .arrange import ROW_NAMES, Arrangement, arrangement_of_split, parse_hand
from .cards import CardsLike, deal_from, format_cards
from .errors import OptionError, check_int
from .naturals import Natural
from .rules import Rules, resolve_rules
from .strategies import StrategyLike, arrange_keys, resolve_strategy

METHODS = ("mc", "table")
MAX_OPPONENTS = 3
N_ALTERNATIVES = 5


@dataclass(frozen=True)
class Candidate:
    """One arrangement with its estimated value (points per deal, summed over opponents)."""

    arrangement: Arrangement
    ev: float
    stderr: Optional[float]
    rows: dict = field(default_factory=dict)  # row -> {"win", "tie", "loss"} probabilities

    def to_dict(self) -> dict:
        return {"arrangement": self.arrangement.to_dict(), "ev": self.ev, "stderr": self.stderr,
                "row_probabilities": self.rows}


@dataclass(frozen=True)
class Solution:
    """The answer of :func:`solve`.

    Attributes
    ----------
    best
        The best non-fouling arrangement found.
    ev, stderr
        Its expected points per deal (summed over opponents) and the standard
        error of that estimate (``None`` for the table method).
    row_probabilities
        ``{"front": {"win": p, "tie": p, "loss": p}, ...}`` per opponent row.
    alternatives
        The next best arrangements of different row strengths, best first.
    """

    hand: tuple
    best: Arrangement
    ev: float
    stderr: Optional[float]
    row_probabilities: dict
    alternatives: tuple
    method: str
    opponent_model: str
    opponents: int
    samples: int
    seed: Optional[int]
    rules: Rules
    candidates: int
    seconds: float
    natural: Optional["Natural"] = None  # worth more than the best arrangement: declare it instead

    @property
    def declare_natural(self) -> bool:
        """Whether to declare :attr:`natural` instead of playing :attr:`best`."""
        return self.natural is not None

    def to_dict(self) -> dict:
        """Plain data for JSON output, with every parameter needed to rerun."""
        return {
            "hand": format_cards(self.hand),
            "best": self.best.to_dict(),
            "ev": self.ev,
            "stderr": self.stderr,
            "row_probabilities": self.row_probabilities,
            "alternatives": [c.to_dict() for c in self.alternatives],
            "method": self.method,
            "opponent_model": self.opponent_model,
            "opponents": self.opponents,
            "samples": self.samples,
            "seed": self.seed,
            "rules": self.rules.to_dict(),
            "non_fouling_candidates": self.candidates,
            "seconds": self.seconds,
            "declare_natural": None if self.natural is None else self.natural.to_dict(),  # type: ignore[attr-defined]
        }


def _check_options(opponents: int, samples: int, method: str) -> None:
    if method not in METHODS:
        raise OptionError(f"unknown method {method!r}; use one of {', '.join(METHODS)}")
    check_int("opponents", opponents, 1, MAX_OPPONENTS)
    check_int("samples", samples, 1)


def deal_opponents(hand_ids: np.ndarray, opponents: int, samples: int, seed: int) -> np.ndarray:
    """``(samples, opponents, 13)`` sorted card ids dealt from the cards not in ``hand_ids``.

    Uses NumPy's PCG64 and a full argsort, so the deal is the same on every
    machine for the same seed.
    """
    rest = np.setdiff1d(np.arange(52, dtype=np.uint8), hand_ids)
    return deal_from(rest, np.random.default_rng(seed), samples, opponents)


def _new_seed() -> int:
    """A fresh seed from the operating system's entropy, small enough to print and pass back."""
    return int(np.random.SeedSequence().entropy) % (2**63)  # type: ignore[arg-type]


def solve(hand: CardsLike, opponents: int = 1, samples: int = 2000, seed: Optional[int] = None,
          rules: "Rules | str | None" = None, method: str = "mc", opponent: StrategyLike = "table") -> Solution:
    """Best non-fouling arrangement of a 13-card hand.

    Parameters
    ----------
    hand
        13 cards, e.g. ``"As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s"``.
    opponents
        1 to 3 opponents dealt from the other 39 cards.
    samples
        Number of Monte Carlo deals of the opponents (``method="mc"``).
    seed
        Seed of the deals; ``None`` draws one and records it in the result,
        so every answer can be reproduced.
    rules
        Scoring rules (default: Pagat base, 1 point per row).
    method
        ``"mc"`` (Monte Carlo against ``opponent``) or ``"table"``.
    opponent
        The opponent model: ``"table"`` (default), ``"greedy"`` or any strategy.

    Raises
    ------
    CardError
        Unless ``hand`` is 13 distinct known cards.
    OptionError
        For opponents outside 1..3, samples < 1 or an unknown method/strategy.

    Examples
    --------
    >>> s = solve("As Ad Kc Kd Qs Jh Th 9c 7s 6d 4h 3c 2s", samples=500, seed=1)
    >>> s.best.is_foul
    False
    """
    started = time.perf_counter()
    hand_ids = parse_hand(hand)
    _check_options(opponents, samples, method)
    rules = resolve_rules(rules)
    opponent_name, _ = resolve_strategy(opponent)
    if method == "table":
        return _solve_table(hand_ids, opponents, rules, started)
    seed = _new_seed() if seed is None else int(seed)
    return _solve_mc(hand_ids, opponents, samples, seed, rules, opponent, opponent_name, started)


def _table_values(hand_ids: np.ndarray):
    """Non-fouling splits, subset keys, and the table value of every split."""
    from ._kernels.splits import _valid_splits
    from .policy import default_tables
    from .tables import split_tables, strength_keys

    t = split_tables()
    split_ids, keys5, keys3 = _valid_splits(hand_ids, t.subsets5, t.subsets3, t.splits)
    values = default_tables().row_values
    keys = strength_keys()
    index5 = np.searchsorted(keys, keys5)
    value5_back, value5_middle = values[2, index5], values[1, index5]
    value3 = values[0, np.searchsorted(keys, keys3)]
    rows = t.splits[split_ids]
    table_value = value5_back[rows[:, 0]] + value5_middle[rows[:, 1]] + value3[rows[:, 2]]
    return split_ids, rows, keys5, keys3, table_value


def _row_shapes(keys: np.ndarray) -> np.ndarray:
    """Category and main ranks of row keys, with kickers dropped.

    For high card and flush only the top card counts, so that two
    candidates differing only in which low cards sit where compare equal.
    """
    category = keys >> 26
    major = (keys >> 13) & 0x1FFF
    top = np.floor(np.log2(np.maximum(major, 1))).astype(keys.dtype)
    return (category << 13) | np.where((category == 0) | (category == 5), 1 << top, major)


def _distinct_best(order: np.ndarray, row_keys: np.ndarray, count: int) -> list[int]:
    """The first ``count`` positions of ``order`` whose rows differ in more than kickers.

    Two candidates count as the same when every row has the same shape
    (:func:`_row_shapes`), so the alternatives shown are real choices rather
    than kicker swaps between front and middle.
    """
    shapes = _row_shapes(row_keys)
    seen: set = set()
    picked: list[int] = []
    for position in order:
        shape = tuple(shapes[position])
        if shape not in seen:
            seen.add(shape)
            picked.append(int(position))
            if len(picked) == count:
                break
    return picked


def _solve_table(hand_ids, opponents, rules, started) -> Solution:
    split_ids, rows, keys5, keys3, table_value = _table_values(hand_ids)
    order = np.lexsort((split_ids, -table_value))
    row_keys = np.stack([keys3[rows[:, 2]], keys5[rows[:, 1]], keys5[rows[:, 0]]], axis=1)
    picked = _distinct_best(order, row_keys, N_ALTERNATIVES + 1)
    found = [Candidate(arrangement_of_split(hand_ids, int(split_ids[p])), opponents * float(table_value[p]), None)
             for p in picked]
    return Solution(tuple(int(c) for c in hand_ids), found[0].arrangement, found[0].ev, None, {},
                    tuple(found[1:]), "table", "table", opponents, 0, None, rules, len(split_ids),
                    time.perf_counter() - started, _natural_worth_declaring(hand_ids, rules, opponents, found[0].ev))


def _solve_mc(hand_ids, opponents, samples, seed, rules, opponent, opponent_name, started) -> Solution:
    from ._kernels.montecarlo import _candidate_results, _subset_row_totals
    from ._kernels.scoring import _joint_totals, _sample_totals

    split_ids, rows, keys5, keys3, table_value = _table_values(hand_ids)
    dealt = deal_opponents(hand_ids, opponents, samples, seed)
    opponent_keys = np.ascontiguousarray(
        arrange_keys(opponent, dealt.reshape(-1, 13)).reshape(samples, opponents, 3), dtype=np.int32)
    row_keys = np.ascontiguousarray(
        np.stack([keys3[rows[:, 2]], keys5[rows[:, 1]], keys5[rows[:, 0]]], axis=1), dtype=np.int32)
    if rules.is_row_additive:
        back, middle, front = _subset_row_totals(keys5, keys3, opponent_keys)
        totals = back[rows[:, 0]] + middle[rows[:, 1]] + front[rows[:, 2]]
    else:  # scoops and royalties couple the rows: settle every candidate jointly against every sample
        totals = _joint_totals(row_keys, opponent_keys, *rules.kernel_arguments())
    # highest total first; equal totals: higher table value, then lower split id
    order = np.lexsort((split_ids, -table_value, -totals))
    picked = _distinct_best(order, row_keys, N_ALTERNATIVES + 1)
    picked_keys = np.ascontiguousarray(row_keys[picked])
    per_sample, outcomes, _ = _candidate_results(picked_keys, opponent_keys)
    if not rules.is_row_additive:
        per_sample = _sample_totals(picked_keys, opponent_keys, *rules.kernel_arguments())
    found = []
    for i, position in enumerate(picked):
        x = per_sample[i].astype(np.float64)
        stderr = float(x.std(ddof=1) / np.sqrt(samples)) if samples > 1 else float("nan")
        probabilities = {
            name: dict(zip(("win", "tie", "loss"), (outcomes[i, r] / (samples * opponents)).tolist()))
            for r, name in enumerate(ROW_NAMES)
        }
        found.append(Candidate(arrangement_of_split(hand_ids, int(split_ids[position])),
                               float(x.mean()), stderr, probabilities))
    best = found[0]
    declared = _natural_worth_declaring(hand_ids, rules, opponents, best.ev)
    return Solution(tuple(int(c) for c in hand_ids), best.arrangement, best.ev, best.stderr, best.rows,
                    tuple(found[1:]), "mc", opponent_name, opponents, samples, seed, rules, len(split_ids),
                    time.perf_counter() - started, declared)


def _natural_worth_declaring(hand_ids, rules: Rules, opponents: int, best_ev: float):
    """The natural to declare instead of arranging, when the rules pay more for it than ``best_ev``.

    Its value is taken as its payout from every opponent: the opponent models
    never hold a stronger natural.
    """
    if rules.naturals is None:
        return None
    from .naturals import natural

    found = natural(hand_ids.tolist(), rules)
    if found is not None and found.payout is not None and found.payout * opponents > best_ev:
        return found
    return None
