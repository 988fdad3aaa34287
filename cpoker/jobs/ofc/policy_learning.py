"""Learning the open-face rollout policy from self-play: fitted values, a few rounds of policy iteration.

The policy places a round's cards on the choice whose board has the highest value (:mod:`cpoker._kernels.ofc_policy`).
The learned value is linear in the board's features (``FEATURES``), with one row of weights for each count of
cards on the board.  A round of :func:`learn_policy`:

1. deals ``pool`` boards and lets the current policy set them: the opponents a board is measured against;
2. deals ``hands`` boards and lets the current policy set them; from one decision on, drawn at random, it
   records each decision's board and what the full board came to: its mean points against the pool, plus
   what its Fantasyland is worth (:func:`~cpoker.strategies.ofc.rollout_policy.fantasyland_values`).  That
   decision is a random choice with probability ``epsilon`` (so the fit sees boards the policy would not
   make); every later one is the policy's, so a board's outcome is what the policy makes of it;
3. fits each count of cards' weights by least squares (a ridge of :data:`RIDGE` times the mean of the
   normal matrix's diagonal), each weight rounded to :data:`DIGITS` significant digits, so that the model does
   not depend on the last bits of the machine's linear algebra;
4. keeps, count by count from the first decision's, the fitted weights or the round's policy's, whichever
   plays better: the two policies' boards of ``checks`` pairs of deals, duplicate
   (:func:`cpoker._kernels.ofc_learning.duplicate_margin`).  An early decision's value is the hardest to fit
   (classic OFC's first three decisions fit worse than the static estimate): the policy keeps the static
   estimate there.  The result is the next round's policy.

The first round's policy is 0.8.0's static estimate (which is also a feature, so the model starts from it).
One round is the default: it is a step of policy improvement on the static policy's values, and later rounds,
each fitted to the last one's play, measured worse (docs/strategy-quality.md).
Round ``r`` deals from ``default_rng([seed, r, ...])`` in blocks, each block's equations the sum of fixed
chunks of hands added in order: a seed gives the same model, byte for byte, on any machine and any number of
threads.  ``cpoker ofc policy build --rules GAME`` with the defaults (:data:`DEFAULT_LEARNING`) rebuilds the
shipped file of each game.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from cpoker.game.dealing import shuffled
from cpoker.game.ofc.rules import OfcRules, resolve_ofc_rules
from cpoker.run.blocks import blocks_of
from cpoker.strategies.ofc.rollout_policy import (STATIC_MODEL, entry_values, fantasyland_values, policy_weights,
                                                  shipped_model_path)
from cpoker.system.errors import OptionError
from cpoker.system.limits import check_int, check_seed

DEFAULT_LEARNING: "dict[str, Any]" = {"hands": 400_000, "rounds": 1, "seed": 1, "epsilon": 0.7, "pool": 256,
                                      "checks": 10_000}
MAX_HANDS = 10_000_000
MAX_ROUNDS = 20
MAX_POOL = 10_000
MAX_CHECKS = 1_000_000
CHUNK = 512  # hands whose equations are summed apart: the unit that makes the sums independent of threads
BLOCK = 8 * CHUNK  # hands a block: the unit of progress and of Ctrl-C
RIDGE = 1e-6
DIGITS = 7


@dataclass(frozen=True)
class LearnedPolicy:
    """The answer of :func:`learn_policy`: the model (``STAGES`` x ``FEATURE_COUNT`` weights), the settings that
    rebuild it, and each round's figures (``history``: the pool's foul rate, Fantasyland rate and mean
    royalties, the policy's own boards; the mean outcome of the round's hands)."""

    rules: OfcRules
    model: np.ndarray
    hands: int
    rounds: int
    seed: int
    epsilon: float
    pool: int
    checks: int
    history: tuple
    partial: bool
    seconds: float

    def meta(self) -> dict:
        from cpoker._kernels.ofc_policy import FEATURES

        return {"kind": "ofc-policy", "game": self.rules.game, "rules": self.rules.to_dict(), "hands": self.hands,
                "rounds": self.rounds, "seed": self.seed, "epsilon": self.epsilon, "pool": self.pool,
                "checks": self.checks,
                "features": list(FEATURES), "history": [dict(step) for step in self.history]}

    def to_bytes(self) -> bytes:
        """The ``.npz`` file's bytes: the model and the settings, nothing that depends on the time or machine."""
        from cpoker.system.files import npz_bytes

        return npz_bytes({"model": np.ascontiguousarray(self.model, dtype=np.float64),
                          "meta": np.array(json.dumps(self.meta(), sort_keys=True))})

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.to_bytes()).hexdigest()

    def save(self, path: str) -> None:
        """Write the policy atomically (a reader never sees half a file)."""
        from cpoker.system.files import atomic_write

        atomic_write(path, self.to_bytes())

    def identical_to_shipped(self) -> bool:
        """Whether the model's file is the game's shipped file, byte for byte."""
        path = shipped_model_path(self.rules.game)
        return path.exists() and path.read_bytes() == self.to_bytes()

    def to_dict(self) -> dict:
        return {**self.meta(), "partial": self.partial, "seconds": self.seconds, "sha256": self.sha256,
                "identical_to_shipped": self.identical_to_shipped()}


def learn_policy(rules: "OfcRules | str | None" = None, hands: int = DEFAULT_LEARNING["hands"],
                 rounds: int = DEFAULT_LEARNING["rounds"], seed: Optional[int] = DEFAULT_LEARNING["seed"],
                 epsilon: float = DEFAULT_LEARNING["epsilon"], pool: int = DEFAULT_LEARNING["pool"],
                 checks: int = DEFAULT_LEARNING["checks"], progress: bool = False,
                 jobs: Optional[int] = None) -> LearnedPolicy:
    """Learn the rollout policy's value for ``rules`` by ``rounds`` rounds of self-play (module docstring).

    Parameters
    ----------
    rules
        Open-face rules (default ``ofc``): the deal, the royalties and the Fantasylands played for.
    hands, rounds, seed, epsilon, pool, checks
        Boards a round plays, rounds, the seed, the chance that a board's first recorded decision is a random
        choice, the opponents' boards each board is measured against, and the pairs of deals that choose
        between the fitted and the earlier weights of each count of cards.  The defaults
        (:data:`DEFAULT_LEARNING`) rebuild the shipped policy.
    progress, jobs
        A progress bar on standard error; the threads (default: all cores).

    Raises
    ------
    OptionError
        For a count out of range or a chance outside ``[0, 1]``.
    Interrupted
        When Ctrl-C stops a round before its first block; after it, the model of the rounds done,
        ``partial=True`` (never saved by the command).
    """
    from cpoker._kernels.ofc_policy import FEATURE_COUNT, STAGES
    from cpoker.jobs.job import run_job, runs

    rules = resolve_ofc_rules(rules)
    hands = check_int("hands", hands, 1, MAX_HANDS)
    rounds = check_int("rounds", rounds, 1, MAX_ROUNDS)
    pool = check_int("pool", pool, 1, MAX_POOL)
    checks = check_int("checks", checks, 1, MAX_CHECKS)
    seed = check_seed(seed)
    if seed is None:
        raise OptionError("a policy is learned from a seed: give one (default 1 rebuilds the shipped policy)")
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)) or not 0 <= epsilon <= 1:
        raise OptionError(f"epsilon is a chance from 0 to 1, got {epsilon!r}")
    settings = runs(jobs=jobs, progress=progress)
    values = fantasyland_values(rules, None)
    setting = _Setting(rules, rules.kernel_rules(), policy_weights(values.get(rules.smallest_fantasyland, 0.0)),
                       entry_values(rules, values), float(epsilon))
    model = STATIC_MODEL
    history: list = []
    started = time.perf_counter()
    partial = False
    for step in range(rounds):
        opponents = _pool(setting, model, np.random.default_rng([seed, step, 0]), pool)
        sums = _Sums(np.zeros((STAGES, FEATURE_COUNT, FEATURE_COUNT)), np.zeros((STAGES, FEATURE_COUNT)),
                     np.zeros(STAGES, dtype=np.int64), hands)

        def work(block: tuple, step: int = step, model: np.ndarray = model, opponents: tuple = opponents) -> tuple:
            return _equations(block, seed, step, setting, model, opponents)

        done: bool = run_job(settings, blocks_of(hands, BLOCK), work, sums.add, lambda cut: cut,
                             has_result=sums.any, complete=sums.complete, total=hands, unit="board",
                             description=f"learning, round {step + 1} of {rounds}")
        keys, royalty, fouled = opponents
        fitted = _fitted(sums.gram, sums.moments, sums.counts)
        model, kept, margin = _selected(setting, model, fitted, sums.counts, np.random.default_rng([seed, step, 2]),
                                        checks)
        history.append({"round": step + 1, "pool_fouls": float(np.mean(fouled)),
                        "pool_royalties": float(np.mean(royalty)),
                        "mean_outcome": sums.outcomes / max(1, sums.boards()),
                        "learned_stages": kept, "margin": margin})
        if done:  # (a signal stopped the round: its model rests on the blocks done, and no round follows)
            partial = True
            break
    return LearnedPolicy(rules=rules, model=_full(model), hands=hands, rounds=rounds, seed=seed,
                         epsilon=float(epsilon), pool=pool, checks=checks, history=tuple(history), partial=partial,
                         seconds=time.perf_counter() - started)


@dataclass
class _Sums:
    """A round's normal equations, by count of cards, and the sum of its full boards' outcomes."""

    gram: np.ndarray
    moments: np.ndarray
    counts: np.ndarray
    hands: int
    outcomes: float = 0.0

    def any(self) -> bool:
        return bool(self.counts.any())

    def boards(self) -> int:
        """The boards played: each records its full board once."""
        return int(self.counts[-1])

    def complete(self) -> bool:
        return self.boards() == self.hands

    def add(self, block: tuple, summary: tuple) -> None:
        gram, moments, counts, outcomes = summary
        self.gram = self.gram + gram
        self.moments = self.moments + moments
        self.counts = self.counts + counts
        self.outcomes += outcomes


@dataclass(frozen=True)
class _Setting:
    rules: OfcRules
    table: np.ndarray
    weights: np.ndarray
    entry_values: np.ndarray
    epsilon: float


def _pool(setting: _Setting, model: np.ndarray, rng: np.random.Generator, count: int) -> tuple:
    """The boards the policy makes of ``count`` deals: ``(keys, royalty, fouled)``."""
    from cpoker._kernels.ofc_rollout import policy_boards

    rules = setting.rules
    decks = shuffled(np.arange(52, dtype=np.int64), rng, count, rules.cards_per_player)
    return policy_boards(decks, rules.first_cards, rules.round_cards, rules.round_places, setting.table,
                         setting.weights, model)


def _equations(block: tuple, seed: int, step: int, setting: _Setting, model: np.ndarray, opponents: tuple) -> tuple:
    """A block's normal equations ``(gram, moments, counts, outcomes)``: its chunks' (on numba's threads) added in
    order, and the sum of its boards' outcomes."""
    from cpoker._kernels.ofc_learning import learning_hands
    from cpoker._kernels.ofc_policy import FEATURE_COUNT, STAGES
    from cpoker.system.threads import in_parts

    index, count = block
    rules = setting.rules
    rng = np.random.default_rng([seed, step, 1, index])
    decks = shuffled(np.arange(52, dtype=np.int64), rng, count, rules.cards_per_player)
    explore = rng.random((count, 3))
    chunks = -(-count // CHUNK)
    gram = np.zeros((chunks, STAGES, FEATURE_COUNT, FEATURE_COUNT))
    moments = np.zeros((chunks, STAGES, FEATURE_COUNT))
    counts = np.zeros((chunks, STAGES), dtype=np.int64)
    keys, royalty, fouled = opponents

    def part(first: int, last: int) -> None:
        for chunk in range(first, last):
            learning_hands(decks, explore, rules.first_cards, rules.round_cards, rules.round_places, setting.table,
                           setting.weights, model, setting.epsilon, keys, royalty, fouled, setting.entry_values, gram,
                           moments, counts, chunk, chunk * CHUNK, min(count, (chunk + 1) * CHUNK))

    in_parts(part, chunks, 1)
    # the bias feature's moment at 13 cards is the sum of the full boards' outcomes
    return gram.sum(axis=0), moments.sum(axis=0), counts.sum(axis=0), float(moments[:, 13, 1].sum())


def _full(model: np.ndarray) -> np.ndarray:
    """``model`` as a full table of weights (the static policy: its estimate's weight 1 at every count)."""
    from cpoker._kernels.ofc_policy import FEATURE_COUNT, STAGES

    if model.shape == (STAGES, FEATURE_COUNT):
        return model
    full = np.zeros((STAGES, FEATURE_COUNT))
    full[:, 0] = 1.0
    full.setflags(write=False)
    return full


def _selected(setting: _Setting, model: np.ndarray, fitted: np.ndarray, counts: np.ndarray,
              rng: np.random.Generator, checks: int) -> tuple:
    """The policy of ``fitted`` weights where they play better than ``model``'s, count of cards by count from
    the first decision's (step 4 of the module docstring): ``(model, the counts that kept the fitted weights,
    the final margin over model in points a board)``."""
    from cpoker._kernels.ofc_learning import duplicate_margin

    rules = setting.rules
    decks = shuffled(np.arange(52, dtype=np.int64), rng, 2 * checks, rules.cards_per_player)

    def boards(candidate: np.ndarray) -> tuple:
        from cpoker._kernels.ofc_rollout import policy_boards

        model = candidate.view()
        model.setflags(write=False)  # (read-only, as every model: the kernels compiled for them serve it)
        return policy_boards(decks, rules.first_cards, rules.round_cards, rules.round_places, setting.table,
                             setting.weights, model)

    def margin(a: tuple, b: tuple) -> float:
        return float(duplicate_margin(*a, *b, setting.table, setting.entry_values)[0])

    base = _full(model)
    start = boards(base)
    candidate = np.array(fitted)
    kept = [stage for stage in range(len(counts)) if counts[stage]]
    current = boards(candidate)
    for stage in list(kept[:-1]):  # (the last decision's: a full board's value, fitted from what it is)
        trial = candidate.copy()
        trial[stage] = base[stage]
        other = boards(trial)
        if margin(other, current) > 0:
            candidate, current = trial, other
            kept.remove(stage)
    candidate.setflags(write=False)
    return candidate, kept, margin(current, start)


def _fitted(gram: np.ndarray, moments: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Each count of cards' least-squares weights (a ridge), rounded to :data:`DIGITS` significant digits; zero
    where no board of that count was seen."""
    model = np.zeros(moments.shape)
    for stage in range(len(counts)):
        if counts[stage] == 0:
            continue
        matrix = gram[stage]
        ridge = RIDGE * float(np.trace(matrix)) / len(matrix) + 1e-12
        weights = np.linalg.solve(matrix + ridge * np.eye(len(matrix)), moments[stage])
        model[stage] = [float(f"{w:.{DIGITS}g}") for w in weights]
    model.setflags(write=False)
    return model


__all__ = ["DEFAULT_LEARNING", "LearnedPolicy", "learn_policy"]
