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
from dataclasses import dataclass
from typing import Optional

import numpy as np

from cpoker.game.cards import CardsLike, cards_mask, format_cards, parse_cards
from cpoker.game.dealing import new_seed, rest_of_deck, shuffled
from cpoker.game.ofc.boards import Board, BoardLike, as_board
from cpoker.game.ofc.hand import options_of
from cpoker.strategies.ofc.rollout_policy import fantasyland_value_of, policy_weights
from cpoker.game.ofc.rules import OfcRules, resolve_ofc_rules
from cpoker.run.blocks import blocks_of
from cpoker.run.stats import normal_interval, sample_variance
from cpoker.system.errors import ArrangementError, CardError, OptionError
from cpoker.system.limits import check_int, check_seed

BLOCK = 64  # samples a block: the unit of progress, of Ctrl-C and of the seeded streams
MAX_SAMPLES = 1_000_000


@dataclass(frozen=True)
class PlacementOption:
    """One option of a decision: the board it leaves, the cards it discards, and its value.

    ``ev`` is the mean of its rollouts' points with its 95% ``interval``; ``loss`` is the best option's mean
    minus this one's, on the same deals, with its own 95% ``loss_interval`` (``(0, 0)`` for the best).  What
    players decide by, from the same rollouts: ``foul_chance`` (its board fouls), ``fantasyland_chance`` (it
    earns Fantasyland) and ``royalties`` (its expected royalties, 0 for a foul).
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

    def to_dict(self) -> dict:
        return {"board": str(self.board), "discard": format_cards(self.discard) if self.discard else None,
                "ev": self.ev, "interval": list(self.interval), "loss": self.loss,
                "loss_interval": list(self.loss_interval), "foul_chance": self.foul_chance,
                "fantasyland_chance": self.fantasyland_chance, "royalties": self.royalties}


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

    @property
    def best(self) -> PlacementOption:
        return self.options[0]

    def to_dict(self) -> dict:
        return {"placements": [option.to_dict() for option in self.options], "board": str(self.board),
                "cards": format_cards(self.cards), "opponents": [str(b) for b in self.opponents],
                "dead": format_cards(self.dead), "rules": self.rules.to_dict(), "samples": self.samples,
                "asked_samples": self.asked, "seed": self.seed, "fantasyland_value": self.fantasyland_value,
                "exact": self.exact, "partial": self.partial, "seconds": self.seconds}


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


def _settings(board: BoardLike, cards: CardsLike, rules: OfcRules, opponents: "Sequence[BoardLike] | None",
              dead: CardsLike) -> tuple:
    """The decision's boards and cards, checked: ``(board, cards, opponents, dead, kept, pool, own, needed)``:
    ``pool`` the unseen card ids, ``own`` the cards the player's board is still dealt after this decision,
    ``needed`` those and the opponents'."""
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
    needed = own + sum(rules.cards_to_come(len(b.cards)) for b in others)
    if needed > len(pool):
        raise CardError(f"the boards still need {needed} cards but only {len(pool)} are unseen: too many opponents "
                        f"or dead cards for one deck")
    return board, hand, tuple(others), dead_cards, kept, pool, own, needed


def place(board: BoardLike, cards: CardsLike, rules: "OfcRules | str | None" = None,
          opponents: "Sequence[BoardLike] | None" = None, dead: CardsLike = (), samples: int = 1000,
          seed: Optional[int] = None, fantasyland_value: "float | None" = None, progress: bool = False,
          jobs: Optional[int] = None, time_budget: "float | None" = None) -> Placement:
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
        Rollouts of each option (all options share them), 1 to 1,000,000; 1 when no card is unknown.
    seed
        Seeds the deals (default: drawn, and reported).
    fantasyland_value
        Points credited to a rollout whose board earns Fantasyland (default: the rules' measured value,
        :data:`~cpoker.strategies.ofc.rollout_policy.DEFAULT_FANTASYLAND_VALUE`); 0 counts the hand's points alone.
    progress, jobs
        A progress bar on standard error; the threads to use (default: all cores, or inside another job the
        threads it runs on).
    time_budget
        Seconds after which no new block of rollouts starts: the ranking so far is returned, ``partial=True``
        (the web page's budget; default: none).

    Raises
    ------
    CardError, ArrangementError
        For an unknown or repeated card, a wrong number of cards to place, a board no round leaves, a full
        board, or more cards needed than one deck holds.
    OptionError
        For a bad sample count, seed, opponent count, Fantasyland value or time budget.
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
    mine, hand, others, dead_cards, kept, pool, own, needed = _settings(board, cards, rules, opponents, dead)
    samples = check_int("samples", samples, 1, MAX_SAMPLES)
    seed = check_seed(seed)
    fantasyland_value = fantasyland_value_of(rules, fantasyland_value)
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
    table = rules.kernel_rules()
    weights = policy_weights(fantasyland_value)
    sums = np.zeros(len(choices))
    gram = np.zeros((len(choices), len(choices)))
    ends = np.zeros((len(choices), 3), dtype=np.int64)  # fouls, Fantasyland entries, royalties: exact counts
    done = 0

    def work(block: tuple) -> tuple:
        return _rollouts(block, seed, pool, needed, options, opponent_rows, own, rules, table, weights,
                         float(fantasyland_value))

    def combine(block: tuple, summary: tuple) -> None:
        nonlocal sums, gram, done
        values, outcomes = summary
        sums += values.sum(axis=1)
        gram += values @ values.T
        ends[:, 0] += (outcomes & 1).sum(axis=1)
        ends[:, 1] += (outcomes >> 1 & 1).sum(axis=1)
        ends[:, 2] += (outcomes >> 2).sum(axis=1)
        done += values.shape[1]

    started = time.perf_counter()

    def result(partial: bool) -> Placement:
        return Placement(board=mine, cards=tuple(sorted(hand)), opponents=others, dead=tuple(sorted(dead_cards)),
                         rules=rules, options=_ranked(choices, sums, gram, done, ends), samples=done, asked=samples,
                         seed=seed, fantasyland_value=float(fantasyland_value), exact=exact, partial=partial,
                         seconds=time.perf_counter() - started)

    return run_job(settings, blocks_of(samples, BLOCK), work, combine, result, has_result=lambda: done > 0,
                   complete=lambda: done == samples, total=samples, unit="rollout", description="placing")


def _rollouts(block: tuple, seed: int, pool: np.ndarray, needed: int, options: np.ndarray,
              opponent_rows: np.ndarray, own: int, rules: OfcRules, table: np.ndarray, weights: np.ndarray,
              fantasyland_value: float) -> tuple:
    """``(values, outcomes)``, each ``[option, sample]``, of one block's samples, on numba's threads (the
    kernel's, :func:`cpoker._kernels.ofc_rollout.rollout_values`)."""
    from cpoker._kernels.ofc_rollout import rollout_values
    from cpoker.system.threads import in_parts

    index, count = block
    rng = np.random.default_rng([seed, index])
    decks = shuffled(pool, rng, count, max(needed, 1)) if len(pool) else np.zeros((count, 1), dtype=np.int64)
    values = np.empty((len(options), count))
    outcomes = np.empty((len(options), count), dtype=np.int64)

    def part(start: int, stop: int) -> None:
        rollout_values(options, opponent_rows, decks, own, rules.first_cards, rules.round_cards,
                       rules.round_places, table, weights, fantasyland_value, values[:, start:stop],
                       outcomes[:, start:stop], start, stop)

    in_parts(part, count, 4)
    return values, outcomes


def _ranked(choices: list, sums: np.ndarray, gram: np.ndarray, n: int, ends: np.ndarray) -> tuple:
    """The options best first (ties: the order of :func:`options_of`), with their intervals from the sums and
    their boards' ends (fouls, Fantasyland entries, royalties) from the counts."""
    means = sums / n
    order = sorted(range(len(choices)), key=lambda i: (-round(float(means[i]), 9), i))
    best = order[0]
    ranked = []
    for i in order:
        low, high = normal_interval(means[i], sample_variance(sums[i], gram[i, i], n, mean=means[i]), n) \
            if n > 1 else (means[i], means[i])
        difference = means[best] - means[i]
        spread = sample_variance(sums[best] - sums[i], gram[best, best] - 2 * gram[best, i] + gram[i, i], n,
                                 mean=difference)
        loss_interval = normal_interval(difference, spread, n) if n > 1 else (difference, difference)
        board, discard = choices[i]
        ranked.append(PlacementOption(board=board, discard=tuple(sorted(discard)), ev=float(means[i]),
                                      interval=(float(low), float(high)), loss=float(difference),
                                      loss_interval=(float(loss_interval[0]), float(loss_interval[1])),
                                      foul_chance=float(ends[i, 0] / n), fantasyland_chance=float(ends[i, 1] / n),
                                      royalties=float(ends[i, 2] / n)))
    return tuple(ranked)


__all__ = ["Placement", "PlacementOption", "place", "options_of"]
