"""Find the best non-fouling arrangement of a 13-card hand (docs/rules.md "What the solver maximises").

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

import dataclasses
import time
from typing import TYPE_CHECKING, Optional

import numpy as np

from cpoker.game.arrangements import ROW_NAMES, Arrangement, ArrangementLike, arrangement_of_split, parse_hand
from cpoker.game.cards import CardsLike
from cpoker.game.dealing import deal_from, new_seed, rest_of_deck
from cpoker.system.limits import MAX_SAMPLES, check_int, check_seconds
from cpoker.system.errors import OptionError
from cpoker.strategies.policy.removal import row_shapes
from cpoker.game.rules import Rules, resolve_rules
from cpoker.game.scoring import dealt_royalties, dealt_units_of
from cpoker.strategies.bots import Bot, closing_bots, faulted_hands
from cpoker.game.devices import check_device
from cpoker.strategies.policy import require_tables_front, resolve_tables
from cpoker.strategies.strategy import (Player, StrategyLike, TablePolicy, arrange_keys, greedy,
                                        resolve_strategy, table)
from cpoker.system.limits import check_seed
from cpoker.jobs.solution import Candidate, Solution, surrender_advice

if TYPE_CHECKING:  # pragma: no cover
    from cpoker.strategies.policy import PolicyTables

METHODS = ("mc", "table")
MAX_OPPONENTS = 3
N_ALTERNATIVES = 5


def _check_options(opponents: int, samples: int, method: str) -> tuple[int, int]:
    """``(opponents, samples)`` as Python ints (a NumPy ``int8`` would overflow in the sample arithmetic)."""
    if not isinstance(method, str) or method not in METHODS:
        raise OptionError(f"unknown method {method!r}; use one of {', '.join(METHODS)}")
    return check_int("opponents", opponents, 1, MAX_OPPONENTS), check_int("samples", samples, 1, MAX_SAMPLES)


def deal_opponents(hand_ids: np.ndarray, opponents: int, samples: int, seed: int) -> np.ndarray:
    """``(samples, opponents, 13)`` sorted card ids dealt from the cards not in ``hand_ids``.

    Uses NumPy's PCG64 and a full argsort, so the deal is the same on every
    machine for the same seed.
    """
    rest = rest_of_deck(hand_ids)
    return deal_from(rest, np.random.default_rng(seed), samples, opponents)


def solve(hand: CardsLike, opponents: int = 1, samples: int = 2000, seed: Optional[int] = None,
          rules: "Rules | str | None" = None, method: str = "mc", opponent: StrategyLike = "table",
          tables: "PolicyTables | str | None" = None, progress: bool = False, device: str = "cpu",
          compare: "ArrangementLike | None" = None, time_budget: Optional[float] = None) -> Solution:
    """Best non-fouling arrangement of a 13-card hand.

    Parameters
    ----------
    hand
        13 cards, e.g. ``"As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s"``.
    opponents
        1 to 3 opponents dealt from the other 39 cards.
    samples
        Number of Monte Carlo deals of the opponents (``method="mc"``), up to
        10**9; they are processed in blocks, so memory does not grow with them.
    seed
        Seed of the deals (0 to 2**63 - 1); ``None`` draws one and records it
        in the result, so every answer can be reproduced.
    rules
        Scoring rules (default: Pagat base, 1 point per row).
    method
        ``"mc"`` (Monte Carlo against ``opponent``) or ``"table"``.
    opponent
        The opponent model: ``"table"`` (default: the table policy of ``tables``, by default the rules'),
        ``"greedy"`` or any strategy.
    tables
        Tables of the table policy (default: the shipped ones of the rules), as
        :class:`~cpoker.PolicyTables` or a file from ``cpoker tables build``; they value the
        candidates too, so they must rank the front as the rules do (a :class:`~cpoker.RulesError`
        otherwise).
    progress
        Show a progress bar on standard error.
    device
        ``"cpu"`` or ``"cuda"``: where the table-policy opponents are arranged (the same answer).
    compare
        An arrangement of the same hand (say, the one a player chose) to score on
        the very samples the best one was chosen on, as :attr:`Solution.compared`;
        its EV is then never above the best's.
    time_budget
        Seconds after which no new block of samples starts; the answer then rests
        on the samples done and is marked ``partial``.

    A SIGINT or SIGTERM stops the sampling at the next block: the answer then
    rests on the samples done and is marked ``partial``.  ``seconds`` never
    includes the one-off compilation of the kernels.

    Raises
    ------
    CardError
        Unless ``hand`` is 13 distinct known cards.
    OptionError
        For opponents outside 1..3, samples outside 1..10**9, a bad seed or an
        unknown method, strategy or tables file.

    Examples
    --------
    >>> s = solve("As Ad Kc Kd Qs Jh Th 9c 7s 6d 4h 3c 2s", samples=500, seed=1)
    >>> s.best.is_foul
    False
    """
    from cpoker.system import interrupts
    from cpoker.system.interrupts import shielded

    hand_ids = parse_hand(hand)
    opponents, samples = _check_options(opponents, samples, method)
    seed = check_seed(seed)
    rules = resolve_rules(rules)
    tables = resolve_tables(tables, rules)
    require_tables_front(tables, rules, "solve")
    opponent = resolve_player(opponent, tables, rules)
    opponent_name = opponent.name
    device = check_device(device)
    compared = _compare_split(hand_ids, compare) if compare is not None else None
    if compared is not None:
        compared = (compared[0].under(rules.front), compared[1])
    deadline = None if time_budget is None else time.monotonic() + check_seconds("time_budget", time_budget, True)
    with shielded(), closing_bots():
        if method == "table":
            _warm_up_table()
            solution = _solve_table(hand_ids, opponents, rules, tables, time.perf_counter(), compared)
            return dataclasses.replace(solution, surrender=surrender_advice(solution))
        seed = new_seed() if seed is None else seed
        _warm_up_mc(hand_ids, rules, opponent, opponent_name, tables, device)
        (faults_before,) = faulted_hands([opponent.strategy])
        solution = _solve_mc(hand_ids, opponents, samples, seed, rules, opponent, opponent_name, tables,
                             time.perf_counter(), progress, device, compared, deadline)
        solution = dataclasses.replace(solution, bot_faults=faulted_hands([opponent.strategy])[0] - faults_before)
        solution = dataclasses.replace(solution, surrender=surrender_advice(solution))
        # the blocks are done: a signal since then (during the candidates' statistics) leaves the result as it
        # is, complete or partial, as one after the last block does (see cpoker.run.runner.run_blocks)
        interrupts.consume()
        return solution


_warm: set = set()


class MonteCarloStrategy:
    """The ``mc`` strategy of a job: :func:`mc` under the job's rules, its opponents arranged by the policy with
    the job's tables."""

    __name__ = "mc"

    def __init__(self, rules: Rules, tables: "PolicyTables") -> None:
        self.rules = rules
        self.tables = tables

    def __call__(self, hand: CardsLike) -> Arrangement:
        return mc(hand, rules=self.rules, tables=self.tables)

    def __repr__(self) -> str:
        return f"MonteCarloStrategy({self.rules.name})"


def resolve_player(strategy: StrategyLike, tables: "PolicyTables", rules: Rules) -> Player:
    """The :class:`~cpoker.strategies.strategy.Player` of a strategy as a job plays it, once for the whole job:
    ``mc`` is the solver under ``rules`` against ``tables``' policy, ``table`` the policy with ``tables``, the
    others as :func:`cpoker.strategies.strategy.resolve_strategy` reads them."""
    if isinstance(strategy, str) and strategy == "mc":
        require_tables_front(tables, rules, "the mc strategy")
        return Player("mc", MonteCarloStrategy(rules, tables))
    return resolve_strategy(strategy, tables)


def mc(hand: CardsLike, opponents: int = 1, samples: int = 2000, seed: int = 0, rules: "Rules | str | None" = None,
       tables: "PolicyTables | str | None" = None) -> Arrangement:
    """The Monte Carlo solver's best arrangement under ``rules`` (seeded, so a fixed strategy): the ``mc``
    strategy, against the table policy."""
    return solve(hand, opponents=opponents, samples=samples, seed=seed, rules=rules, opponent="table",
                 tables=tables).best


def _warm_up_table() -> None:
    """Compile (or load from the cache) the kernels of the table method before timing it."""
    if "table" not in _warm:
        from cpoker.system.notice import compile_notice
        from cpoker.strategies.policy import default_tables

        with compile_notice():
            _solve_table(parse_hand(_WARM_HAND), 1, resolve_rules(None), default_tables(), 0.0)
        _warm.add("table")


_WARM_HAND = "As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s"


def _warm_up_mc(hand_ids, rules: Rules, opponent, opponent_name: str, tables, device: str = "cpu") -> None:
    """Run the Monte Carlo path once on a few samples, so its kernels are compiled (or loaded) before timing.

    The table policy has one kernel for any number of hands (:func:`~cpoker.strategies.policy.arrange_by_tables` runs it
    on parts of a batch side by side), so two samples load all the run will use.
    """
    strategy = opponent.strategy  # (a Player) the built-ins and bots by name, other callables as themselves
    by_name = isinstance(strategy, (TablePolicy, Bot)) or strategy is greedy or strategy is table
    key = (rules.is_row_additive, opponent_name if by_name else id(strategy), device)
    if key not in _warm:
        from cpoker.system.notice import compile_notice

        with compile_notice():
            _solve_mc(hand_ids, 1, 2, 0, rules, opponent, opponent_name, tables, 0.0, False, device)
        _warm.add(key)


def _table_values(hand_ids: np.ndarray, tables: "PolicyTables", rules: Rules):
    """Non-fouling splits, subset keys (a low front's keys under rules whose front plays for low), and the
    table value of every split."""
    from cpoker._kernels.subsets import valid_splits
    from cpoker.system.interrupts import shielded
    from cpoker.game.lookup_tables import split_tables, strength_keys

    t = split_tables()
    with shielded():
        split_ids, keys5, keys3 = valid_splits(hand_ids, t.subsets5, t.subsets3, t.middles, t.fronts,
                                               rules.front_code)
    rows = t.splits[split_ids]
    keys = strength_keys(rules.front_code)  # (the tables' scale: require_tables_front)
    index5 = np.searchsorted(keys, keys5)
    index3 = np.searchsorted(keys, keys3)
    table_value = tables.model.split_values(index3[rows[:, 2]], index5[rows[:, 1]], index5[rows[:, 0]], hand_ids)
    return split_ids, rows, keys5, keys3, table_value
def _distinct_best(order: np.ndarray, row_keys: np.ndarray, count: int) -> list[int]:
    """The first ``count`` positions of ``order`` whose rows differ in more than kickers.

    Two candidates count as the same when every row has the same shape
    (:func:`cpoker.strategies.policy.removal.row_shapes`), so the alternatives shown are real choices rather
    than kicker swaps between front and middle.  Shapes are computed for the
    positions walked, a few hundred at a time.
    """
    seen: set = set()
    picked: list[int] = []
    for start in range(0, len(order), 256):
        positions = order[start:start + 256]
        for position, shape in zip(positions.tolist(), row_shapes(row_keys[positions]).tolist()):
            shape = tuple(shape)
            if shape not in seen:
                seen.add(shape)
                picked.append(position)
                if len(picked) == count:
                    return picked
    return picked


def _high_order_keys(row_keys: np.ndarray, rules: Rules) -> np.ndarray:
    """Candidates' row keys (``(C, 3)``) with a low front's key replaced by the front's own (its shape, which
    :func:`_distinct_best` compares: a pair of fives, an eight-six high)."""
    if not rules.front_code:
        return row_keys
    from cpoker.game.lookup_tables import strength_scale

    scale = strength_scale(rules.front_code)
    keys = row_keys.copy()
    keys[:, 0] = scale.shape_keys[np.searchsorted(scale.keys, row_keys[:, 0])]
    return keys


def _best_distinct(totals: np.ndarray, table_value: np.ndarray, split_ids: np.ndarray, row_keys: np.ndarray,
                   count: int) -> list[int]:
    """:func:`_distinct_best` over candidates ordered by total, then table value, then split id (highest first).

    Only the head of that order is usually walked, so the candidates whose
    total reaches the 512th largest are sorted first; the full sort runs
    only when they hold fewer than ``count`` distinct shapes.
    """
    head_size = 512
    if len(totals) > 4 * head_size:
        cut = np.partition(totals, len(totals) - head_size)[len(totals) - head_size]
        head = np.flatnonzero(totals >= cut)  # ties with the cut included: the head is a prefix of the order
        order = head[np.lexsort((split_ids[head], -table_value[head], -totals[head]))]
        picked = _distinct_best(order, row_keys, count)
        if len(picked) == count:
            return picked
    return _distinct_best(np.lexsort((split_ids, -table_value, -totals)), row_keys, count)


def _solve_table(hand_ids, opponents, rules, tables, started, compared=None) -> Solution:
    from cpoker._kernels.policy import best_distinct_splits
    from cpoker.game.scoring import fouled_hand_points
    from cpoker.game.lookup_tables import split_tables, strength_scale, strengths_on_scale

    t = split_tables()
    scale = strength_scale(tables.model.front_code)  # (the rules' front: require_tables_front)
    split_ids, table_value, strengths, n_valid = best_distinct_splits(
        hand_ids, *tables.model.kernel_arguments(), *scale.rows, *scale.rest, t.middles, t.fronts, scale.shape_keys,
        N_ALTERNATIVES + 1)
    row_keys = scale.shape_keys[strengths]  # the rows' keys in the high order, as an Arrangement holds them
    picked = range(len(split_ids))
    # under royalties.dealt, every arrangement that does not foul is paid the hand's dealt royalty too
    dealt = int(dealt_units_of(hand_ids[None, :], rules)[0]) if rules.pays_dealt else 0
    found = [Candidate(arrangement_of_split(hand_ids, int(split_ids[p]), row_keys[p].tolist()).under(rules.front),
                       opponents * (float(table_value[p]) + dealt), None) for p in picked]
    other = ev_lost = None
    if compared is not None:  # its table value; a foul's points (the policy never plays one)
        arrangement = compared[0]
        if arrangement.is_foul:
            value = float(opponents * fouled_hand_points(rules))
        else:
            dense = strengths_on_scale(np.array([row.strength_index for row in arrangement.values]),
                                       tables.model.front_code)  # front, middle, back
            value = opponents * (float(tables.model.split_values(*dense[:, None], hand_ids)[0]) + dealt)
        other, ev_lost = Candidate(arrangement, value, None), found[0].ev - value
    return Solution(hand=tuple(int(c) for c in hand_ids), best=found[0].arrangement, ev=found[0].ev, stderr=None,
                    row_probabilities={}, alternatives=tuple(found[1:]), method="table", opponent_model="table",
                    opponents=opponents, samples=0, seed=None, rules=rules, candidates=int(n_valid),
                    seconds=time.perf_counter() - started,
                    natural=_natural_worth_declaring(hand_ids, rules, opponents, found[0].ev), compared=other,
                    ev_lost=ev_lost)


SOLVE_BLOCK = 4_096  # samples per block
# sample-opponents whose rows are kept for the statistics of the best candidates (24 MB); see _solve_mc
STATISTICS_SAMPLE = 2_000_000


def _opponent_block(rest: np.ndarray, opponents: int, seed: int, start: int, count: int, opponent,
                    tables, device: str = "cpu", rules: "Rules | None" = None) -> np.ndarray:
    """Row keys ``(count, opponents, 3)`` of samples ``start .. start + count`` of the solver's deal.

    The generator is advanced past the earlier samples' draws, so each block is
    a pure function of the seed and its position and equals the same rows of
    :func:`deal_opponents` for the whole run.
    """
    return _opponents_dealt(rest, opponents, seed, start, count, opponent, tables, device, rules)[0]


def _opponents_dealt(rest: np.ndarray, opponents: int, seed: int, start: int, count: int, opponent, tables,
                     device: str = "cpu", rules: "Rules | None" = None) -> tuple:
    """:func:`_opponent_block`'s keys, and what the opponents of each sample are paid for a four of a kind or
    straight flush dealt (``(count,)``, summed over them: under ``royalties.dealt``, else ``None``)."""
    bit_generator = np.random.PCG64(seed)
    bit_generator.advance(len(rest) * start)
    dealt = deal_from(rest, np.random.Generator(bit_generator), count, opponents)
    keys = arrange_keys(opponent, dealt.reshape(-1, 13), tables, device, rules, opponents)
    keys = np.ascontiguousarray(keys.reshape(count, opponents, 3), dtype=np.int32)
    paid = dealt_royalties(dealt, keys, rules).sum(axis=1) if rules is not None and rules.pays_dealt else None
    return keys, paid


BONUS_PART = 64  # candidates a thread scores against a block's opponents at least (bonus_totals)


def bonus_totals(candidate_keys: np.ndarray, opponent_keys: np.ndarray, scoring: int) -> np.ndarray:
    """Summed scoring bonus (1-6: a scoop; 2-4: two rows or more) of every candidate (``(C, 3)`` front, middle
    and back keys) over every opponent's rows (``(samples, opponents, 3)``), as ``int64``.

    The candidates in parts side by side (:func:`cpoker.system.threads.in_parts`,
    :func:`cpoker._kernels.montecarlo.bonus_totals_part`): each candidate's sum is its own, so the threads
    change nothing.
    """
    from cpoker._kernels.montecarlo import bonus_totals_part
    from cpoker.system.threads import in_parts

    flat = opponent_keys.reshape(-1, 3)
    front, middle, back = (np.ascontiguousarray(flat[:, row]) for row in range(3))
    totals = np.zeros(len(candidate_keys), dtype=np.int64)

    def add_part(start: int, stop: int) -> None:
        bonus_totals_part(candidate_keys, front, middle, back, scoring, start, stop, totals)

    in_parts(add_part, len(candidate_keys), BONUS_PART)
    return totals


def candidate_totals(candidate_keys: np.ndarray, opponent_keys: np.ndarray, kernel_rules: tuple) -> np.ndarray:
    """Points of every candidate (``(C, 3)`` keys) summed over every opponent's rows (``(samples, opponents,
    3)``), whole: the solver's path for rules whose royalties are not a sum of rows' (``one_per_hand``).

    The candidates in parts side by side (:func:`cpoker._kernels.scoring.candidate_totals_part`), as
    :func:`bonus_totals` runs them.
    """
    from cpoker._kernels.scoring import candidate_totals_part
    from cpoker.system.threads import in_parts

    totals = np.zeros(len(candidate_keys), dtype=np.int64)

    def add_part(start: int, stop: int) -> None:
        candidate_totals_part(candidate_keys, opponent_keys, *kernel_rules, start, stop, totals)

    in_parts(add_part, len(candidate_keys), BONUS_PART)
    return totals


def _compare_split(hand_ids: np.ndarray, arrangement) -> "tuple[Arrangement, int]":
    """The arrangement to compare (of this very hand) and its split number."""
    from cpoker.game.arrangements import as_arrangement
    from cpoker.game.lookup_tables import split_tables

    arrangement = as_arrangement(arrangement)
    front, middle, back = arrangement.rows
    arrangement = Arrangement(front, middle, back, hand=[int(c) for c in hand_ids])  # its cards must be the hand's
    position = {int(card): i for i, card in enumerate(hand_ids)}
    t = split_tables()
    bits5 = {sum(1 << int(p) for p in row): i for i, row in enumerate(t.subsets5)}
    back = bits5[sum(1 << position[int(c)] for c in arrangement.back)]
    middle = bits5[sum(1 << position[int(c)] for c in arrangement.middle)]
    split = int(np.flatnonzero((t.splits[:, 0] == back) & (t.splits[:, 1] == middle))[0])
    return arrangement, split


def _solve_mc(hand_ids, opponents, samples, seed, rules, opponent, opponent_name, tables, started,
              progress, device="cpu", compared=None, deadline=None) -> Solution:
    """Totals of every candidate over blocks of samples, then statistics of the best few.

    The pass over the samples keeps per-candidate sums, so every EV uses every
    sample.  The opponents' rows of the first ``STATISTICS_SAMPLE``
    sample-opponents are kept too, and the standard errors and row
    probabilities of the best candidates come from them (2,000,000 of them pin
    a probability to +-0.0007).  Memory and the time after a Ctrl-C are
    therefore bounded whatever ``samples`` is.
    """
    from cpoker._kernels.montecarlo import candidate_results, subset_row_points, subset_row_totals
    from cpoker._kernels.scoring import PAGAT, sample_totals
    from cpoker.system.interrupts import shielded
    from cpoker.jobs.job import Runs, run_job
    from cpoker.run.blocks import blocks_of
    from cpoker.game.scoring import fouled_hand_points, fouled_rows
    from cpoker.run.stats import Moments

    split_ids, rows, keys5, keys3, table_value = _table_values(hand_ids, tables, rules)
    rest = rest_of_deck(hand_ids)
    row_keys = np.ascontiguousarray(
        np.stack([keys3[rows[:, 2]], keys5[rows[:, 1]], keys5[rows[:, 0]]], axis=1), dtype=np.int32)
    additive = rules.is_row_additive
    whole = not rules.royalties_by_row  # one royalty per hand: each candidate is settled whole
    kernel_rules = rules.kernel_arguments()
    kept: dict = {}
    keep_until = max(STATISTICS_SAMPLE // opponents, SOLVE_BLOCK)  # samples
    # per subset: the rows' results and royalties (additive under any rules but one_per_hand); per candidate: the
    # scoring bonus.  Under one_per_hand, per candidate: everything
    sums = [np.zeros(len(keys5), np.int64), np.zeros(len(keys5), np.int64), np.zeros(len(keys3), np.int64)]
    scoring, royalties, require_win, _ = kernel_rules
    has_bonus = scoring != PAGAT
    if whole:
        sums = [np.zeros(len(split_ids), np.int64)]
    elif has_bonus:
        sums.append(np.zeros(len(split_ids), np.int64))
    # under royalties.dealt: what the opponents were paid for their dealt combinations, per kept sample (a block's
    # sum otherwise); the hand's own is the same for every candidate that does not foul
    done: list = []
    dealt_paid: dict = {}
    dealt_total = [0]
    own_dealt = (int(dealt_units_of(hand_ids[None, :], rules)[0])
                 if rules.pays_dealt else 0)

    def totals_of_block(block):
        keys, paid = _opponents_dealt(rest, opponents, seed, block[0] * SOLVE_BLOCK, block[1], opponent, tables,
                                      device, rules)
        if additive:
            return keys, paid, subset_row_totals(keys5, keys3, keys)
        if whole:
            return keys, paid, (candidate_totals(row_keys, keys, kernel_rules),)
        row_points = subset_row_points(keys5, keys3, keys, royalties, require_win)
        return keys, paid, (*row_points, bonus_totals(row_keys, keys, scoring)) if has_bonus else row_points

    def add_totals(block, summary):
        keys, paid, block_sums = summary
        if block[0] * SOLVE_BLOCK + block[1] <= keep_until:
            kept[block[0]] = keys
            dealt_paid[block[0]] = paid
        if paid is not None:
            dealt_total[0] += int(paid.sum())
        for total, part in zip(sums, block_sums):
            total += part
        done.append(block)

    partial = run_job(Runs(progress=progress), blocks_of(samples, SOLVE_BLOCK), totals_of_block, add_totals,
                      lambda stopped: stopped, has_result=lambda: bool(done),
                      complete=lambda: sum(count for _, count in done) == samples, total=samples, unit="sample",
                      description="solve", deadline=deadline, threads=False, inner=True)  # (the caller's threads)
    n_done = sum(count for _, count in done)
    if whole:
        totals = sums[0]
    else:
        totals = sums[0][rows[:, 0]] + sums[1][rows[:, 1]] + sums[2][rows[:, 2]] + (sums[3] if has_bonus else 0)
    if rules.pays_dealt:  # every candidate is shown, none fouls: its own dealt royalty from every opponent
        totals = totals + (own_dealt * opponents * n_done - dealt_total[0])
    # highest total first; equal totals: higher table value, then lower split id
    picked = _best_distinct(totals, table_value, split_ids, _high_order_keys(row_keys, rules), N_ALTERNATIVES + 1)
    # the compared arrangement, a candidate unless it fouls, is scored beside them, sample by sample, so its
    # cost (the best's points minus its own) has the paired difference's much smaller interval
    compared_at = _compared_position(compared, split_ids)
    scored = list(picked) + ([compared_at] if compared_at is not None else [])
    picked_keys = np.ascontiguousarray(row_keys[scored])
    # a compared foul under royalties pays what the opponents' rows earn: scored on the kept samples too
    foul_scored = compared is not None and compared_at is None and rules.royalties is not None
    if foul_scored:
        picked_keys = np.concatenate([picked_keys, np.full((1, 3), -1, dtype=picked_keys.dtype)])
    moments = [Moments() for _ in picked_keys]
    lost = Moments()
    outcomes = np.zeros((len(picked_keys), 3, 3), dtype=np.int64)

    def statistics_of_block(block):
        keys = kept[block[0]]
        per_sample, block_outcomes, _ = candidate_results(picked_keys, keys)
        if not additive:
            per_sample = sample_totals(picked_keys, keys, *kernel_rules)
        if rules.pays_dealt:
            shown = (picked_keys[:, :1] >= 0) * (own_dealt * opponents)  # (a compared foul is paid nothing)
            per_sample = per_sample + shown - dealt_paid[block[0]][None, :]
        return per_sample, block_outcomes

    def add_statistics(block, summary):
        nonlocal outcomes
        per_sample, block_outcomes = summary
        for i, moment in enumerate(moments):
            moment.add(per_sample[i])
        if compared is not None:  # a foul's points are the same in every sample unless royalties are paid
            lost.add(per_sample[0] - per_sample[-1] if compared_at is not None or foul_scored else per_sample[0])
        outcomes += block_outcomes

    with shielded():  # a few kernel calls over kept rows: a signal waits for them
        for block in done:
            if block[0] in kept:
                add_statistics(block, statistics_of_block(block))
    counted = max(moments[0].count, 1)

    def probabilities(i: int) -> dict:
        return {name: dict(zip(("win", "tie", "loss"), (outcomes[i, r] / (counted * opponents)).tolist()))
                for r, name in enumerate(ROW_NAMES)} if moments[i].count else {}

    found = [Candidate(arrangement_of_split(hand_ids, int(split_ids[position])).under(rules.front),
                       float(totals[position]) / n_done,
                       moments[i].stderr(count=n_done), probabilities(i)) for i, position in enumerate(picked)]
    best = found[0]
    declared = _natural_worth_declaring(hand_ids, rules, opponents, best.ev)
    other, cost = None, None
    if compared is not None:
        arrangement = compared[0]
        if foul_scored:  # every row lost, and every royalty of the opponents' rows paid (the kept samples')
            other = Candidate(arrangement, moments[-1].mean(), moments[-1].stderr(), fouled_rows())
        elif compared_at is None:  # fouls lose every row (a lost scoop), whatever the opponents hold
            other = Candidate(arrangement, float(opponents * fouled_hand_points(rules)), 0.0, fouled_rows())
        else:
            other = Candidate(arrangement, float(totals[compared_at]) / n_done, moments[-1].stderr(count=n_done),
                              probabilities(len(scored) - 1))
        cost = (best.ev - other.ev, lost.stderr(count=n_done))
    ev_lost, ev_lost_stderr = cost if cost is not None else (None, None)
    return Solution(hand=tuple(int(c) for c in hand_ids), best=best.arrangement, ev=best.ev, stderr=best.stderr,
                    row_probabilities=best.rows, alternatives=tuple(found[1:]), method="mc",
                    opponent_model=opponent_name, opponents=opponents, samples=n_done, seed=seed, rules=rules,
                    candidates=len(split_ids), seconds=time.perf_counter() - started, natural=declared,
                    partial=partial, requested_samples=samples, compared=other, ev_lost=ev_lost,
                    ev_lost_stderr=ev_lost_stderr)


def _compared_position(compared: "tuple[Arrangement, int] | None", split_ids: np.ndarray) -> Optional[int]:
    """Where the compared arrangement is among the candidates ``split_ids`` (sorted); ``None`` if it fouls."""
    if compared is None:
        return None
    arrangement, split = compared
    where = int(np.searchsorted(split_ids, split))
    if arrangement.is_foul or where >= len(split_ids) or split_ids[where] != split:
        return None
    return where


def _natural_worth_declaring(hand_ids, rules: Rules, opponents: int, best_ev: float):
    """The natural to declare instead of arranging, when the rules pay more for it than ``best_ev``.

    Its value is taken as its payout from every opponent: the opponent models
    never hold a stronger natural.
    """
    if rules.naturals is None:
        return None
    from cpoker.game.naturals import natural

    found = natural(hand_ids.tolist(), rules)
    if found is not None and found.payout is not None and found.payout * opponents > best_ev:
        return found
    return None
