"""What the open-face solvers share: the rollout policy (its models and weights), what Fantasyland is worth, and
the boards the policy makes for sampled opponents.

The rollout policy (:mod:`cpoker._kernels.ofc_policy`) places a player's cards from that player's board and
cards alone, by a value of the board each choice leaves.  Two values are shipped (:data:`POLICIES`):

* ``learned`` (the default): a linear model over the board's features, one row of weights for each count of
  cards on the board, learned from self-play by :func:`cpoker.jobs.ofc.policy_learning.learn_policy` for each
  game (``cpoker ofc policy build --rules GAME`` rebuilds the shipped file byte for byte);
* ``static``: 0.8.0's hand-weighted estimate (:func:`cpoker._kernels.ofc_policy.board_value`), its weights
  chosen by duplicate heads-up matches of the policy against itself with other weights.

What Fantasyland is worth, in points against the same opponents, was measured by
:func:`cpoker.jobs.ofc.fantasyland_worth.fantasyland_worth` (docs/ofc.md, "What Fantasyland is worth"); every
solver takes it as a parameter.
"""

from __future__ import annotations

import functools
import math
from importlib import resources
from pathlib import Path

import numpy as np

from cpoker.game.dealing import shuffled
from cpoker.game.ofc.rules import OfcRules
from cpoker.system.errors import OptionError

POLICIES = ("learned", "static")
DEFAULT_POLICY = "learned"
STATIC_MODEL = np.ones((1, 1))  # the static estimate: policy_value knows it by its one column
STATIC_MODEL.setflags(write=False)  # (read-only, as every model: one compiled kernel serves them all)
MODEL_FILE_LIMIT = 1 << 20

# row, foul, slot_gain, flush_draw, straight_draw: cpoker._kernels.ofc_policy.WEIGHTS after its first, the
# Fantasyland's, which is the solver's fantasyland value
POLICY_WEIGHTS = (16.0, 40.0, 0.1, 0.15, 0.1)
# points a Fantasyland is worth to the player who earns it, by preset and size in cards: fantasyland_worth(preset,
# hands=20_000, seed=1, cards=size) (docs/ofc.md, "What Fantasyland is worth"; progressive's stays are dealt 14)
DEFAULT_FANTASYLAND_VALUES = {"ofc": {13: 13.9}, "pineapple": {14: 16.6},
                              "progressive": {14: 16.6, 15: 22.6, 16: 29.2, 17: 36.5}}
# the smallest Fantasyland's, by preset: what a single number stands for
DEFAULT_FANTASYLAND_VALUE = {game: values[min(values)] for game, values in DEFAULT_FANTASYLAND_VALUES.items()}
MAX_FANTASYLAND_VALUE = 1000.0
TRIPS_ENTRY = 13  # the entry of front trips in entry_values (pairs: their rank, 0 = twos .. 12 = aces)


def fantasyland_value_of(rules: OfcRules, value: "float | None") -> float:
    """``value`` checked (points, 0 to :data:`MAX_FANTASYLAND_VALUE`), or the rules' measured default."""
    if value is None:
        return DEFAULT_FANTASYLAND_VALUE.get(rules.game, 0.0)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value) \
            or not 0 <= value <= MAX_FANTASYLAND_VALUE:
        raise OptionError(f"fantasyland_value must be a number of points from 0 to {MAX_FANTASYLAND_VALUE:g}, got "
                          f"{value!r}")
    return float(value)


def fantasyland_values(rules: OfcRules, value: "float | None") -> dict:
    """What each Fantasyland the rules deal is worth, by its size in cards: ``value`` (checked) for every size,
    or the rules' measured defaults (:data:`DEFAULT_FANTASYLAND_VALUES`; a size house rules add that no preset
    deals counts as the biggest measured size below it, else the smallest)."""
    if value is not None:
        worth = fantasyland_value_of(rules, value)
        return {size: worth for size in rules.fantasyland_sizes}
    measured = DEFAULT_FANTASYLAND_VALUES.get(rules.game, {})
    values = {}
    for size in rules.fantasyland_sizes:
        below = [known for known in measured if known <= size]
        values[size] = measured[max(below)] if below else measured.get(min(measured, default=0), 0.0)
    return values


def entry_values(rules: OfcRules, values: dict) -> np.ndarray:
    """What earning Fantasyland is worth by the front that earns it, for the kernels: entry ``r`` a pair of rank
    ``r``, :data:`TRIPS_ENTRY` any trips; 0 where the front earns none (``values`` by size in cards, as
    :func:`fantasyland_values` gives them)."""
    from cpoker.game.ofc.rules import RANK_LETTERS

    entries = dict(rules.fantasyland)
    worth = np.zeros(TRIPS_ENTRY + 1, dtype=np.float64)
    for rank, letter in enumerate(RANK_LETTERS):
        size = entries.get(letter * 2)
        worth[rank] = values.get(size, 0.0) if size else 0.0
    size = entries.get("trips")
    worth[TRIPS_ENTRY] = values.get(size, 0.0) if size else 0.0
    return worth


def policy_weights(fantasyland_value: float) -> np.ndarray:
    """The rollout policy's weights array, with what Fantasyland is worth."""
    return np.array((float(fantasyland_value), *POLICY_WEIGHTS), dtype=np.float64)


def sampled_opponents(rules: OfcRules, unseen: np.ndarray, count: int, rng: np.random.Generator,
                      fantasyland_value: float, policy: "str | Path | None" = None) -> tuple:
    """``count`` opponent boards dealt from the card ids ``unseen`` as the rules deal a hand and set by the
    rollout policy: ``(keys, royalty, fouled)`` arrays (front, middle, back keys a row)."""
    from cpoker._kernels.ofc_rollout import policy_boards

    return policy_boards(shuffled(unseen, rng, count, rules.cards_per_player), rules.first_cards, rules.round_cards,
                         rules.round_places, rules.kernel_rules(), policy_weights(fantasyland_value),
                         policy_model(rules, policy))



def model_file(game: str) -> str:
    """The package data file of a game's shipped learned policy."""
    return f"ofc_policy_{game}.npz"


def shipped_model_path(game: str) -> Path:
    """Where a game's shipped learned policy is installed."""
    return Path(str(resources.files("cpoker") / "data" / model_file(game)))


def read_model(path: "str | Path") -> tuple:
    """``(model, meta)`` of a learned policy file (``cpoker ofc policy build`` writes one).

    Raises
    ------
    OptionError
        When the file is missing, unreadable, or not a cpoker open-face policy.
    """
    import io
    import json

    from cpoker._kernels.ofc_policy import FEATURE_COUNT, FEATURES, STAGES
    from cpoker.system.files import read_bytes

    content = read_bytes(path, "open-face policy file", OptionError, limit=MODEL_FILE_LIMIT)
    mend = "('cpoker ofc policy build --out FILE.npz' writes one)"
    if not content.startswith(b"PK\x03\x04"):
        raise OptionError(f"{path} is not a cpoker open-face policy: not an .npz archive {mend}")
    try:
        with np.load(io.BytesIO(content), allow_pickle=False) as data:
            model, meta = np.array(data["model"], dtype=np.float64), json.loads(str(data["meta"]))
    except (KeyError, ValueError, OSError) as error:
        raise OptionError(f"{path} is not a cpoker open-face policy ({error}) {mend}") from None
    if model.shape != (STAGES, FEATURE_COUNT) or not np.isfinite(model).all() or not isinstance(meta, dict) \
            or meta.get("features") != list(FEATURES):
        raise OptionError(f"{path} is not a cpoker open-face policy of this version: a {STAGES} x {FEATURE_COUNT} "
                          f"model of finite weights over its features is expected {mend}")
    model.setflags(write=False)
    return model, meta


@functools.cache
def shipped_model(game: str) -> np.ndarray:
    """A game's shipped learned policy (``ofc``, ``pineapple``, ``progressive``)."""
    from cpoker.system.errors import InstallationError

    path = shipped_model_path(game)
    mend = f"reinstall cpoker, or rebuild the file with 'cpoker ofc policy build --rules {game} --out {path}'"
    if not path.exists():
        raise InstallationError(f"cpoker's {game} open-face policy is missing at {path}: {mend}")
    try:
        return read_model(path)[0]
    except OptionError as error:
        raise InstallationError(f"cpoker's {game} open-face policy cannot be read ({error}): {mend}") from None


def policy_model(rules: OfcRules, policy: "str | Path | None" = None) -> np.ndarray:
    """The model the rollout policy places by: ``"learned"`` (default: the shipped one of the rules' game),
    ``"static"`` (0.8.0's hand-weighted estimate), or the path of an ``.npz`` file that ``cpoker ofc policy
    build`` wrote.

    Raises
    ------
    OptionError
        For another name, or a file that is not such a policy.
    """
    if policy is None or policy == "learned":
        return shipped_model(rules.game)
    if policy == "static":
        return STATIC_MODEL
    if isinstance(policy, Path) or (isinstance(policy, str) and policy.endswith(".npz")):
        return read_model(policy)[0]
    raise OptionError(f"the rollout policy is learned, static, or a .npz file 'cpoker ofc policy build' wrote, got "
                      f"{str(policy)[:60]!r}")
