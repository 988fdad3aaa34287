"""The open-face placement solver: every legal placement of the cards in hand, ranked by expected value.

:func:`place` lists each option of the decision (the opening cards: every way to put them in the rows; a
Pineapple round: every choice of discard and rows), plays each to the end many times and ranks them by their
mean.  A rollout deals the unknown cards -- neither on a board, nor in hand, nor dead -- and completes the
player's board and every opponent's by the rollout policy (:mod:`cpoker._kernels.ofc_policy`), which sees
only what that player would see at the table: never a card still to come.  Every option meets the same
deals (common random numbers), so the differences between options are measured more tightly than each
option's value; each option's ``loss`` (the best's value minus its own) carries its own interval.

The value of a rollout is the points the player's board wins this hand from each opponent (royalties, the
scoop, fouls: :func:`cpoker.game.ofc.scoring.settle`), plus ``fantasyland_value`` when the board earns
Fantasyland.  When no card is unknown the value is exact and its interval has zero width.

The samples run in blocks of :data:`BLOCK` deals on the job skeleton (:func:`cpoker.jobs.job.run_job`: all
cores, or the threads of the job it runs in; a time budget; Ctrl-C returns the ranking of the blocks done,
``partial=True``); block ``i`` deals from ``default_rng([seed, i])``, so a seed gives the same answer on any
machine and any number of threads.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, Optional

import numpy as np

from cpoker.game.cards import CardsLike, cards_mask, format_cards, parse_cards
from cpoker.game.dealing import new_seed, rest_of_deck, shuffled
from cpoker.game.ofc.boards import Board, BoardLike, as_board
from cpoker.game.ofc.hand import options_of
from cpoker.strategies.ofc.rollout_policy import (DEFAULT_POLICY, entry_values, fantasyland_values, policy_model,
                                                  policy_weights)
from cpoker.game.ofc.rules import OfcRules, resolve_ofc_rules
from cpoker.run.blocks import blocks_of
from cpoker.run.stats import normal_interval, sample_variance
from cpoker.system.errors import ArrangementError, CardError, OptionError
from cpoker.system.limits import check_int, check_seed

BLOCK = 32  # samples a block: the unit of progress, of Ctrl-C and of the seeded streams
MAX_SAMPLES = 1_000_000
DEFAULT_SAMPLES = 1000
DROP_Z = 3.0  # standard errors by which an option's loss must exceed zero for it to leave the contention
CONTENDERS = 8  # the adaptive search halves the options in contention down to this many


@dataclass(frozen=True)
class PlacementOption:
    """One option of a decision: the board it leaves, the cards it discards, and its value.

    ``ev`` is the mean of its rollouts' points with its 95% ``interval``; ``loss`` is the best option's mean
    minus this one's, on the same deals, with its own 95% ``loss_interval`` (``(0, 0)`` for the best).  What
    players decide by, from the same rollouts: ``foul_chance`` (its board fouls), ``fantasyland_chance`` (it
    earns Fantasyland) and ``royalties`` (its expected royalties, 0 for a foul).  ``samples``: the rollouts it
    was measured on, how deep the (adaptive) search took it; its loss is measured on the deals it shares with
    the best.
    """

    board: Board
    discard: tuple
    ev: float
    interval: tuple
    loss: float
    loss_interval: tuple
    foul_chance: float = 0.0
    fantasyland_chance: float = 0.0
    royalties: float = 0.0
    samples: int = 0

    def to_dict(self) -> dict:
        return {"board": str(self.board), "discard": format_cards(self.discard) if self.discard else None,
                "ev": self.ev, "interval": list(self.interval), "loss": self.loss,
                "loss_interval": list(self.loss_interval), "foul_chance": self.foul_chance,
                "fantasyland_chance": self.fantasyland_chance, "royalties": self.royalties, "samples": self.samples}


@dataclass(frozen=True)
class Placement:
    """The answer of :func:`place`: its options best first, and every setting that reruns it."""

    board: Board
    cards: tuple
    opponents: tuple
    dead: tuple
    rules: OfcRules
    options: tuple
    samples: int
    asked: int
    seed: int
    fantasyland_value: float
    exact: bool
    partial: bool
    seconds: float
    fantasylands: tuple = ()
    fantasyland_values: dict = field(default_factory=dict)
    adaptive: bool = False
    policy: str = DEFAULT_POLICY
    compared: "int | None" = None

    @property
    def best(self) -> PlacementOption:
        return self.options[0]

    @property
    def compared_option(self) -> "PlacementOption | None":
        """The option ``compare`` named, measured on every rollout (``None`` without ``compare``); its rank
        among :attr:`options` (1: the best) is :attr:`compared`."""
        return None if self.compared is None else self.options[self.compared - 1]

    def to_dict(self) -> dict:
        return {"placements": [option.to_dict() for option in self.options], "board": str(self.board),
                "cards": format_cards(self.cards), "opponents": [str(b) for b in self.opponents],
                "dead": format_cards(self.dead), "rules": self.rules.to_dict(), "samples": self.samples,
                "asked_samples": self.asked, "seed": self.seed, "fantasyland_value": self.fantasyland_value,
                "fantasyland_values": {str(size): value for size, value in self.fantasyland_values.items()},
                "opponent_fantasylands": list(self.fantasylands), "adaptive": self.adaptive, "policy": self.policy,
                "compared": self.compared, "exact": self.exact, "partial": self.partial, "seconds": self.seconds}


def _check_board(board: Board, rules: OfcRules, who: str) -> None:
    if rules.deal_after(len(board.cards)) is None and not board.is_complete:
        raise ArrangementError(f"{who} holds {len(board.cards)} cards, which no round of {rules.name} leaves "
                               f"(first {rules.first_cards}, then {rules.round_places} a round)")


def _check_reachable(board: Board, other: Board, rules: OfcRules, number: int) -> None:
    """Refuse an opponent's board that no deal shows beside ``board``: at the table an opponent has made as
    many decisions as the player, or one more (it acts first in the round); an empty board may be a
    Fantasyland's, set face down."""
    mine, theirs = rules.decisions_made(len(board.cards)), rules.decisions_made(len(other.cards))
    if other.cards and not mine <= theirs <= mine + 1:
        how = f"{theirs - mine} decisions ahead of" if theirs > mine else f"{mine - theirs} behind"
        raise ArrangementError(f"opponent {number}'s board ({len(other.cards)} cards) is {how} yours "
                               f"({len(board.cards)}): no deal of {rules.name} reaches that position (an opponent has "
                               "made as many decisions as you, or one more; an empty board is one in Fantasyland)")


def _check_fantasylands(fantasylands: "Sequence[int] | None", others: list, rules: OfcRules) -> tuple:
    """Each opponent's Fantasyland in cards (0: a normal hand), checked against the rules and the boards."""
    if fantasylands is None:
        return (0,) * len(others)
    if isinstance(fantasylands, (str, bytes)) or not isinstance(fantasylands, Sequence):
        raise OptionError("fantasylands is a list of card counts, one per opponent (0 for one playing a normal hand)")
    if len(fantasylands) != len(others):
        raise OptionError(f"fantasylands has {len(fantasylands)} entries for {len(others)} opponents")
    sizes = rules.fantasyland_sizes
    for number, (size, other) in enumerate(zip(fantasylands, others), 1):
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or (size and size not in sizes):
            raise OptionError(f"opponent {number}'s Fantasyland is 0 (none) or a size {rules.name} deals "
                              f"({', '.join(map(str, sizes)) or 'none'} cards), got {size!r}")
        if size and other.cards:
            raise ArrangementError(f"opponent {number} plays a Fantasyland, set face down: their board shows empty "
                                   f"until the end of the hand, got {other}")
    return tuple(int(size) for size in fantasylands)


def _settings(board: BoardLike, cards: CardsLike, rules: OfcRules, opponents: "Sequence[BoardLike] | None",
              dead: CardsLike, fantasylands: "Sequence[int] | None" = None) -> tuple:
    """The decision's boards and cards, checked: ``(board, cards, opponents, fantasylands, dead, kept, pool, own,
    needed)``: ``pool`` the unseen card ids, ``own`` the cards the player's board is still dealt after this
    decision, ``needed`` those and the opponents' (a Fantasyland's, all of its hidden cards)."""
    board = as_board(board)
    if board.is_complete:
        raise ArrangementError(f"the board {board} is full: there is nothing to place")
    _check_board(board, rules, "the board")
    step = rules.deal_after(len(board.cards))
    assert step is not None
    dealt, kept = step
    hand = parse_cards(cards, unique=False)
    if len(hand) != dealt:
        raise CardError(f"a board of {len(board.cards)} cards is dealt {dealt} card{'s' * (dealt > 1)} in "
                        f"{rules.name}, got {len(hand)}: {format_cards(hand)}")
    if opponents is None:
        opponents = [Board()]
    if isinstance(opponents, (str, Board)) or not isinstance(opponents, Sequence):
        raise ArrangementError("opponents is a list of boards, one per opponent ('- / - / -' for one whose board "
                               "is empty)")
    if not 1 <= len(opponents) <= rules.max_players - 1:
        raise OptionError(f"a deal of {rules.name} has 1 to {rules.max_players - 1} opponents, got {len(opponents)}")
    others = []
    for number, other in enumerate(opponents, 1):
        try:
            other = as_board(other)
        except (ArrangementError, CardError) as error:
            raise type(error)(f"opponent {number}: {error}") from None
        _check_board(other, rules, f"opponent {number}'s board")
        _check_reachable(board, other, rules, number)
        others.append(other)
    hidden = _check_fantasylands(fantasylands, others, rules)
    dead_cards = parse_cards(dead, unique=False) if dead not in (None, "", ()) else ()
    owner: dict = {}
    for where, group in [("your board", board.cards), ("your hand", hand),
                         *((f"opponent {i}'s board", b.cards) for i, b in enumerate(others, 1)),
                         ("the dead cards", dead_cards)]:
        for card in group:
            if card in owner:
                place = f"twice in {where}" if owner[card] == where else f"both in {owner[card]} and in {where}"
                raise CardError(f"card {card} is {place}")
            owner[card] = where
    pool = rest_of_deck([int(c) for c in owner]).astype(np.int64)
    own = rules.cards_to_come(len(board.cards) + kept)
    needed = own + sum(size or rules.cards_to_come(len(b.cards)) for b, size in zip(others, hidden))
    if needed > len(pool):
        raise CardError(f"the boards still need {needed} cards but only {len(pool)} are unseen: too many opponents "
                        f"or dead cards for one deck")
    return board, hand, tuple(others), hidden, dead_cards, kept, pool, own, needed


def place(board: BoardLike, cards: CardsLike, rules: "OfcRules | str | None" = None,
          opponents: "Sequence[BoardLike] | None" = None, dead: CardsLike = (), samples: int = DEFAULT_SAMPLES,
          seed: Optional[int] = None, fantasyland_value: "float | None" = None, progress: bool = False,
          jobs: Optional[int] = None, time_budget: "float | None" = None,
          fantasylands: "Sequence[int] | None" = None, adaptive: bool = True,
          policy: "str | None" = None, compare: "BoardLike | None" = None) -> Placement:
    """Every legal placement of ``cards`` on ``board``, best first, each with its expected value.

    Parameters
    ----------
    board
        The player's board, e.g. ``"Qh / 9s 9d / Ah Kh"`` (``"- / - / -"`` or ``""``-rows before the first cards).
    cards
        The cards dealt to place: the first cards (5) on an empty board, else a round's (1 in OFC, 3 in
        Pineapple, one of which is discarded).
    rules
        Open-face rules (default ``ofc``), a preset name or a house-rules TOML file.
    opponents
        Each opponent's board as the player sees it (default: one opponent whose board is still empty).
    dead
        Cards out of play that the player knows: their own discards, cards seen elsewhere.
    samples
        Rollouts of the options still in contention at the end (all options share the deals), 1 to 1,000,000;
        1 when no card is unknown.  With ``adaptive`` an option out of contention stops earlier (each option's
        ``samples`` says how deep it was searched); without, every option gets them all.
    seed
        Seeds the deals (default: drawn, and reported).
    fantasyland_value
        Points credited to a rollout whose board earns Fantasyland, whatever its size (default: the rules'
        measured value of each size, :data:`~cpoker.strategies.ofc.rollout_policy.DEFAULT_FANTASYLAND_VALUES`);
        0 counts the hand's points alone.
    progress, jobs
        A progress bar on standard error; the threads to use (default: all cores, or inside another job the
        threads it runs on).
    time_budget
        Seconds after which no new block of rollouts starts: the ranking so far is returned, ``partial=True``
        (the web page's budget; default: none).
    fantasylands
        For each opponent, the cards of the Fantasyland they play this hand (0, the default: a normal hand).
        Such an opponent's board shows empty; its cards are dealt hidden in each rollout and set as the
        Fantasyland solver sets them for royalties.
    adaptive
        Spend the rollouts where they decide something (default): after 32, 64, 128, ... rollouts, the options
        that are out of contention stop -- those worse than the leader beyond doubt (the lower end of their
        loss's interval at :data:`DROP_Z` standard errors above zero) and, while more than
        :data:`CONTENDERS` remain, the worse half.  ``False``: every option is rolled out ``samples`` times.
    policy
        The rollout policy every board is completed by: ``"learned"`` (default), ``"static"`` (0.8.0's), or an
        ``.npz`` file ``cpoker ofc policy build`` wrote (:func:`~cpoker.strategies.ofc.rollout_policy.policy_model`).
    compare
        A placement to measure whatever it is worth (the board it leaves): the adaptive search keeps it in
        contention to the end, so its EV and its loss against the best are measured on all the rollouts, the
        best's own (``Placement.compared``; the review of a played decision).

    Raises
    ------
    CardError, ArrangementError
        For an unknown or repeated card, a wrong number of cards to place, a board no round leaves, a full
        board, an opponent in Fantasyland whose board shows cards, or more cards needed than one deck holds.
    OptionError
        For a bad sample count, seed, opponent count, Fantasyland size or value, or time budget.
    ArrangementError
        Also for a ``compare`` board that is not a placement of ``cards`` on ``board``.
    Interrupted
        When Ctrl-C comes before the first block is done (after it: the ranking so far, ``partial=True``).

    Examples
    --------
    >>> last = place("Qh Qd / 9s 9d 8c 8h 7c / As Ah Ad Kc", "Kd 6s 2h", "pineapple",
    ...              opponents=["Kh 2d 2c / 3c 3d 4c 4d 4h / 5c 5d 5h 6c 6d"])
    >>> best = last.best
    >>> str(best.board), best.discard, round(best.ev, 3), last.exact, len(last.options)
    ('Qh Qd 6s / 9s 9d 8h 8c 7c / As Ah Ad Kd Kc', (Card('2h'),), 12.6, True, 6)
    """
    from cpoker.jobs.job import run_job, runs

    rules = resolve_ofc_rules(rules)
    mine, hand, others, hidden, dead_cards, kept, pool, own, needed = _settings(board, cards, rules, opponents,
                                                                                dead, fantasylands)
    samples = check_int("samples", samples, 1, MAX_SAMPLES)
    seed = check_seed(seed)
    if not isinstance(adaptive, bool):
        raise OptionError(f"adaptive is True or False, got {adaptive!r}")
    values = fantasyland_values(rules, fantasyland_value)
    smallest = values.get(rules.smallest_fantasyland, 0.0)  # what the policy counts, and one number reports
    settings = runs(jobs=jobs, progress=progress, time_budget=time_budget)
    choices = options_of(mine, hand, kept)
    exact = needed == 0
    if exact:
        samples = 1
    seed = new_seed() if seed is None else seed
    options = np.array([[cards_mask(b.front), cards_mask(b.middle), cards_mask(b.back)] for b, _ in choices],
                       dtype=np.int64)
    opponent_rows = np.array([[cards_mask(b.front), cards_mask(b.middle), cards_mask(b.back)] for b in others],
                             dtype=np.int64).reshape(len(others), 3)
    kernel = _kernel(rules, values, smallest, hidden, policy)
    pinned = None if compare is None else _compared(compare, choices, mine, hand)
    search = _Search(len(choices), adaptive and not exact, pinned)

    def work(block: tuple) -> tuple:
        index, count = block
        return _rollouts(index, count, search.active, seed, pool, needed, options, opponent_rows, own, kernel)

    def blocks():
        depth = 0
        for index, count in blocks_of(samples, BLOCK):
            yield index, count
            depth += count
            if depth < samples:
                search.checkpoint(depth)

    started = time.perf_counter()

    def result(partial: bool) -> Placement:
        ranked = search.ranked(choices)
        rank = None if pinned is None else 1 + next(k for k, option in enumerate(ranked)
                                                    if option.board is choices[pinned][0])
        return Placement(board=mine, cards=tuple(sorted(hand)), opponents=others, dead=tuple(sorted(dead_cards)),
                         rules=rules, options=ranked, samples=search.depth, asked=samples, seed=seed,
                         fantasyland_value=float(smallest if fantasyland_value is None else fantasyland_value),
                         exact=exact, partial=partial, seconds=time.perf_counter() - started,
                         fantasylands=hidden, fantasyland_values={size: float(v) for size, v in values.items()},
                         adaptive=search.adaptive, policy=str(policy or DEFAULT_POLICY), compared=rank)

    return run_job(settings, blocks(), work, search.combine, result, has_result=lambda: search.depth > 0,
                   complete=lambda: search.depth == samples, total=samples, unit="rollout", description="placing")


def _compared(compare: BoardLike, choices: list, board: Board, hand: tuple) -> int:
    """The option (its place in ``choices``) that leaves the board ``compare``, whatever order its rows' cards
    are written in.

    Raises
    ------
    ArrangementError
        When no option leaves it.
    """
    try:
        wanted = as_board(compare)
    except (ArrangementError, CardError) as error:
        raise type(error)(f"compare: {error}") from None
    for index, (option, _) in enumerate(choices):
        if option.same_rows(wanted):
            return index
    raise ArrangementError(f"compare: {wanted} is not a placement of {format_cards(hand)} on {board}")


class _Kernel(NamedTuple):
    """What every block's rollouts read: the rules' arrays, the policy's weights and model, the Fantasylands'
    worth and the opponents' Fantasylands."""

    rules: OfcRules
    table: np.ndarray
    weights: np.ndarray
    model: np.ndarray
    entry_values: np.ndarray
    stay_flags: np.ndarray
    hidden: np.ndarray


def _kernel(rules: OfcRules, values: dict, smallest: float, hidden: tuple, policy: "str | None") -> _Kernel:
    return _Kernel(rules, rules.kernel_rules(), policy_weights(smallest), policy_model(rules, policy),
                   entry_values(rules, values),
                   np.array(rules.stay_flags, dtype=np.bool_), np.array(hidden, dtype=np.int64))


def _rollouts(index: int, count: int, active: np.ndarray, seed: int, pool: np.ndarray, needed: int,
              options: np.ndarray, opponent_rows: np.ndarray, own: int, kernel: _Kernel) -> tuple:
    """``(values, outcomes)``, each ``[active option, sample]``, of block ``index``'s ``count`` samples for the
    options ``active``, on numba's threads (the kernel's, :func:`cpoker._kernels.ofc_rollout.rollout_values`).
    The block's deals depend on ``(seed, index)`` alone: every option meets the same ones."""
    from cpoker._kernels.ofc_rollout import rollout_values
    from cpoker.system.threads import in_parts

    rules = kernel.rules
    rng = np.random.default_rng([seed, index])
    decks = shuffled(pool, rng, count, max(needed, 1)) if len(pool) else np.zeros((count, 1), dtype=np.int64)
    rows = options[active]
    values = np.empty((len(rows), count))
    outcomes = np.empty((len(rows), count), dtype=np.int64)

    def part(start: int, stop: int) -> None:
        rollout_values(rows, opponent_rows, kernel.hidden, decks, own, rules.first_cards, rules.round_cards,
                       rules.round_places, kernel.table, kernel.weights, kernel.model, kernel.entry_values,
                       kernel.stay_flags,
                       values[:, start:stop], outcomes[:, start:stop], start, stop)

    in_parts(part, count, 4)
    return values, outcomes


class _Search:
    """The sums of a placement's rollouts, and which options are still in contention.

    Every option in contention has been rolled out on the same deals, the first ``depth``; an option that left
    keeps, from the moment it left, the sums of every option then in contention over its deals (``_left``), so
    that its loss against the final best is measured on the deals they share.
    """

    def __init__(self, count: int, adaptive: bool, pinned: "int | None" = None) -> None:
        self.adaptive = adaptive
        # place's compare: an option rolled out to the end whatever its fate; the contention (``contention``)
        # goes as it would without it, so that the best and the ranking are the search's without compare
        self.pinned = pinned
        self.pinned_left: "tuple | None" = None  # as _left, when the pinned option left the contention
        self.contention = np.arange(count)
        self.active = np.arange(count)  # the options rolled out: the contention and the pinned one
        self.depth = 0
        self.samples = np.zeros(count, dtype=np.int64)
        self.sums = np.zeros(count)
        self.gram = np.zeros((count, count))
        self.ends = np.zeros((count, 3), dtype=np.int64)  # fouls, Fantasyland entries, royalties: exact counts
        self._left: dict = {}  # option -> (depth, sums, its gram row, the gram's diagonal) when it left

    def combine(self, block: tuple, summary: tuple) -> None:
        values, outcomes = summary
        active = self.active
        self.sums[active] += values.sum(axis=1)
        self.gram[np.ix_(active, active)] += values @ values.T
        self.ends[active, 0] += (outcomes & 1).sum(axis=1)
        self.ends[active, 1] += (outcomes >> 1 & 1).sum(axis=1)
        self.ends[active, 2] += (outcomes >> 2).sum(axis=1)
        self.samples[active] += values.shape[1]
        self.depth += values.shape[1]

    def checkpoint(self, depth: int) -> None:
        """After ``depth`` rollouts: at 32, 64, 128, ... (``BLOCK`` doubled), the options out of contention
        stop (see :func:`place`'s ``adaptive``)."""
        if not self.adaptive or len(self.contention) <= 1 or depth % BLOCK or (depth // BLOCK) & (depth // BLOCK - 1):
            return
        active, n = self.contention, depth
        means = self.sums[active] / n
        leader = active[int(np.argmax(means))]
        losses = (self.sums[leader] - self.sums[active]) / n
        spreads = np.array([float(sample_variance(self.sums[leader] - self.sums[i],
                                                  self.gram[leader, leader] - 2 * self.gram[leader, i]
                                                  + self.gram[i, i], n)) for i in active])
        keep = losses - DROP_Z * np.sqrt(np.maximum(spreads, 0.0) / n) <= 0
        if keep.sum() > CONTENDERS:  # the better half, by mean (ties: the earlier option), at least CONTENDERS
            order = sorted(np.flatnonzero(keep), key=lambda k: (-round(float(means[k]), 9), int(active[k])))
            keep[:] = False
            keep[order[:max(CONTENDERS, (len(order) + 1) // 2)]] = True
        diagonal = np.diag(self.gram).copy()
        for i in active[~keep]:
            left = (n, self.sums.copy(), self.gram[i].copy(), diagonal)
            if i == self.pinned:
                self.pinned_left = left
            else:
                self._left[int(i)] = left
        self.contention = active[keep]
        pinned = [] if self.pinned is None or self.pinned in self.contention else [self.pinned]
        self.active = np.sort(np.concatenate([self.contention, np.array(pinned, dtype=self.contention.dtype)]))

    def ranked(self, choices: list) -> tuple:
        """The options best first: those in contention to the end by mean, then the others by how long they
        stayed in contention and their loss (ties: the order of :func:`options_of`); each with its intervals
        from the sums and its board's ends (fouls, Fantasyland entries, royalties) from the counts."""
        means = np.divide(self.sums, self.samples, out=np.zeros_like(self.sums), where=self.samples > 0)
        best = min(self.contention, key=lambda i: (-round(float(means[i]), 9), int(i)))
        rows = []
        for i in range(len(choices)):
            n = int(self.samples[i])
            if i in self._left:
                depth, sums, row, diagonal = self._left[i]
                gram_bb, gram_bi, gram_ii = diagonal[best], row[best], diagonal[i]
            else:
                depth, sums, gram_bb, gram_bi, gram_ii = n, self.sums, self.gram[best, best], self.gram[best, i], \
                    self.gram[i, i]
            difference = (sums[best] - sums[i]) / depth if depth else 0.0
            if depth > 1:
                interval = normal_interval(means[i], sample_variance(self.sums[i], self.gram[i, i], n, mean=means[i]),
                                           n)
                spread = sample_variance(sums[best] - sums[i], gram_bb - 2 * gram_bi + gram_ii, depth,
                                         mean=difference)
                loss_interval = normal_interval(difference, spread, depth)
            else:
                interval, loss_interval = (means[i], means[i]), (difference, difference)
            stayed, placed = n, difference  # the ranking's: the pinned one ranks where it left the contention
            if i == self.pinned and self.pinned_left is not None:
                stayed, sums = self.pinned_left[:2]
                placed = (sums[best] - sums[i]) / stayed
            rows.append((i, stayed, float(placed), float(difference), interval, loss_interval, n))
        rows.sort(key=lambda row: (-row[1], round(row[2], 9), row[0]))
        ranked = []
        for i, _, _, difference, interval, loss_interval, n in rows:
            board, discard = choices[i]
            ranked.append(PlacementOption(
                board=board, discard=tuple(sorted(discard)), ev=float(means[i]),
                interval=(float(interval[0]), float(interval[1])), loss=difference,
                loss_interval=(float(loss_interval[0]), float(loss_interval[1])),
                foul_chance=float(self.ends[i, 0] / max(n, 1)), fantasyland_chance=float(self.ends[i, 1] / max(n, 1)),
                royalties=float(self.ends[i, 2] / max(n, 1)), samples=n))
        return tuple(ranked)


__all__ = ["Placement", "PlacementOption", "place", "options_of"]
