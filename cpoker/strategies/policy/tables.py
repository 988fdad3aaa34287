"""Policy tables: the learned row distributions and their file format, and the tables shipped for each preset."""

from __future__ import annotations

import functools
import io
import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Optional

import numpy as np

from cpoker.system.errors import OptionError
from cpoker.system.files import npz_bytes
from cpoker.game.rules import DEFAULT_RULES, PRESETS, Rules, resolve_rules
from cpoker.game.lookup_tables import strength_keys
from cpoker.strategies.policy.model import RowModel


DEFAULT_TABLES_FILE = "policy_tables.npz"


@dataclass(frozen=True)
class PolicyTables:
    """Opponent row-strength distributions and the row values derived from them.

    Attributes
    ----------
    distribution
        ``(3, 7917)`` float64: probability of each dense row strength for the
        front, middle and back of the (average) opponent.
    hands, seed
        The self-play sample that produced the tables.
    history
        One dict per iteration: the share of sample hands whose arrangement
        changed, and how far the row values moved (max absolute change).
    partial
        True when a signal stopped the build: the tables are those of the
        last completed iteration.
    rules
        The rules the policy plays under (its :class:`RowModel`): the rules of
        the self-play that learned the distribution, unless re-valued by
        :func:`default_tables` for house rules.
    previous_distribution
        Only in the tables of an unfinished build (``partial``: stopped by a
        signal, or a checkpoint): the average before the last iteration, from
        which :func:`build_tables` (``resume=``) replays that iteration's
        choices and continues exactly where the build stopped.
    removal
        The card-removal correction learned after self-play (:mod:`cpoker.strategies.policy.removal`):
        ``(70, Q * 3 * 259)`` float32, or ``None`` (tables of an unfinished build,
        or a build with ``removal_deals=0``).
    removal_rounds
        One dict per round of self-play with the correction (see the module
        docstring): the share of sample hands whose arrangement changed.
        ``distribution`` is then the average of those rounds' play.
    joint
        Under a scoring bonus, the opponent's rows' joint distribution
        (:mod:`cpoker.strategies.policy.joint`), learned with the correction: a ``(2, 17, 17,
        17)`` float64 grid, or ``None`` (the rows are then taken as
        independent: pagat scoring, where it is never read).
    build
        Only in the tables of an unfinished build: the options it was asked
        for (``max_iterations``, ``tolerance``, ``removal_deals``,
        ``removal_rounds``), which its resume plays to unless told otherwise.
    """

    distribution: np.ndarray
    hands: int = 0
    seed: int = 0
    history: tuple = field(default=())
    partial: bool = False
    rules: "Rules" = field(default=None)  # type: ignore[assignment]  # None: the default rules
    previous_distribution: Optional[np.ndarray] = field(default=None, repr=False)
    removal: Optional[np.ndarray] = field(default=None, repr=False)
    removal_rounds: tuple = field(default=())
    joint: Optional[np.ndarray] = field(default=None, repr=False)
    build: Optional[dict] = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.rules is None:
            object.__setattr__(self, "rules", DEFAULT_RULES)
        elif not isinstance(self.rules, Rules):
            raise OptionError(f"tables' rules must be a Rules object, got {type(self.rules).__name__}")
        object.__setattr__(self, "distribution", _checked_distribution(self.distribution, "distribution"))
        object.__setattr__(self, "history", _checked_history(self.history))
        if self.previous_distribution is not None:
            object.__setattr__(self, "previous_distribution",
                               _checked_distribution(self.previous_distribution, "previous distribution"))
        if self.removal is not None:
            from cpoker.strategies.policy.removal import check_terms, quantities

            object.__setattr__(self, "removal", check_terms(self.removal, quantities(self.rules), np.float32))
        object.__setattr__(self, "removal_rounds", _checked_rounds(self.removal_rounds))
        if self.joint is not None:
            from cpoker.strategies.policy.joint import check_joint

            object.__setattr__(self, "joint", check_joint(self.joint))
        if self.build is not None:
            object.__setattr__(self, "build", _checked_build(self.build))

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state.pop("model", None)  # derived (760 KB): recomputed where it is used, not shipped to Dask workers
        state.pop("fingerprint", None)
        return state

    @functools.cached_property
    def model(self) -> RowModel:
        """What the policy maximises: the :class:`RowModel` of its rules against its distribution."""
        return RowModel.from_distribution(self.distribution, self.rules, self.removal, self.joint)

    @functools.cached_property
    def fingerprint(self) -> str:
        """sha256 of what the policy plays by (the distribution, the rules, the card-removal terms and the joint
        row model), in hex.

        A saved run records it (:func:`cpoker.strategies.strategy.tables_fingerprint`), so that it is continued only
        with tables that play the same.
        """
        import hashlib

        digest = hashlib.sha256(np.ascontiguousarray(self.distribution, dtype=np.float64).tobytes())
        digest.update(self.rules.to_toml().encode("utf-8"))
        if self.removal is not None:
            digest.update(np.ascontiguousarray(self.removal, dtype=np.float32).tobytes())
        if self.joint is not None:
            digest.update(np.ascontiguousarray(self.joint, dtype=np.float64).tobytes())
        return digest.hexdigest()

    @property
    def row_values(self) -> np.ndarray:
        """``(3, 7917)`` expected result of a row of each strength (front, middle, back), royalties included."""
        return self.model.row_values

    @property
    def iterations(self) -> int:
        return len(self.history)

    def to_bytes(self) -> bytes:
        """The ``.npz`` file's bytes, identical for identical tables.

        ``numpy.savez`` stamps each member with the current time; this writes
        the same format with a fixed timestamp so rebuilt tables can be
        compared byte for byte.
        """
        fields = {"hands": self.hands, "seed": self.seed, "history": list(self.history)}
        if self.partial:
            fields["partial"] = True
        if self.removal_rounds:
            fields["removal_rounds"] = list(self.removal_rounds)
        if self.rules.name != "pagat":  # pagat tables are written as before rules existed, byte for byte
            fields["rules"] = self.rules.to_toml()
        if self.build is not None:  # (an unfinished build's: finished tables are written as before, byte for byte)
            fields["build"] = dict(self.build)
        meta = json.dumps(fields, sort_keys=True)
        arrays = {"distribution": np.ascontiguousarray(self.distribution, dtype=np.float64), "meta": np.array(meta)}
        if self.previous_distribution is not None:  # an unfinished build's, to resume it
            arrays["previous_distribution"] = np.ascontiguousarray(self.previous_distribution, dtype=np.float64)
        if self.removal is not None:
            arrays["removal"] = np.ascontiguousarray(self.removal, dtype=np.float32)
        if self.joint is not None:
            arrays["joint"] = np.ascontiguousarray(self.joint, dtype=np.float64)
        return npz_bytes(arrays)

    def save(self, path: "str | Path") -> None:
        """Write the tables to an ``.npz`` file atomically (a reader never sees half a file)."""
        from cpoker.system.files import atomic_write

        atomic_write(path, self.to_bytes())

    @classmethod
    def load(cls, path: "str | Path") -> "PolicyTables":
        """Read tables written by :meth:`save` (``cpoker tables build``).

        Raises
        ------
        OptionError
            When the file is missing, unreadable, or not a cpoker tables file.
        """
        from cpoker.system.errors import InstallationError, RulesError
        from cpoker.system.files import read_bytes

        content = read_bytes(path, "tables file", OptionError, limit=TABLES_FILE_LIMIT)
        if not content.startswith(b"PK\x03\x04"):  # numpy would take any other file for a pickle it refuses to load
            raise OptionError(f"{path} is not a cpoker tables file: not an .npz archive ('cpoker tables build "
                              "--out FILE.npz' writes one)")
        try:
            with np.load(io.BytesIO(content), allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                distribution = np.asarray(data["distribution"], dtype=np.float64)
                rules = Rules.from_toml_text(meta["rules"], f"{path} (rules)") if "rules" in meta else None
                previous = (np.asarray(data["previous_distribution"], dtype=np.float64)
                            if "previous_distribution" in data.files else None)
                removal = data["removal"] if "removal" in data.files else None
                if removal is not None and removal.dtype != np.float32:
                    raise OptionError(f"its card-removal terms are {removal.dtype}, not float32")
                joint = data["joint"] if "joint" in data.files else None
                tables = cls(distribution, int(meta["hands"]), int(meta["seed"]), tuple(meta["history"]),
                             bool(meta.get("partial", False)), rules,  # type: ignore[arg-type]  # (None: default)
                             previous, removal, tuple(meta.get("removal_rounds", ())), joint, meta.get("build"))
        except (InstallationError, MemoryError):  # cpoker's own lookup tables, read to check the distribution, and
            raise  # this machine's memory: not this file
        except (OptionError, RulesError) as error:  # our own checks of the distribution and the rules
            raise OptionError(f"{path} is not a cpoker tables file: {error}") from None
        except Exception as error:  # a zip, a .npy or a JSON that is not ours, in any of many ways
            raise OptionError(f"{path} is not a cpoker tables file ({type(error).__name__}: "
                              f"{str(error)[:80]})") from None
        return tables


# the parameters of the shipped tables: `cpoker tables build` with no options rebuilds them
BUILD_HANDS, BUILD_SEED, BUILD_MAX_ITERATIONS, BUILD_TOLERANCE = 100_000, 2026, 60, 0.001
# deals of four hands for the card-removal correction (cpoker.jobs.removal_learning): 2.4 million samples
REMOVAL_DEALS = 200_000
# rounds of self-play with the correction, each learning it again (the last from REMOVAL_DEALS deals, the
# others from a quarter of them)
REMOVAL_ROUNDS = 8
DEFAULT_BUILD = {"hands": BUILD_HANDS, "seed": BUILD_SEED, "max_iterations": BUILD_MAX_ITERATIONS,
                 "tolerance": BUILD_TOLERANCE, "removal_deals": REMOVAL_DEALS, "removal_rounds": REMOVAL_ROUNDS}
# what an unfinished build's tables record of the options it was asked for (PolicyTables.build)
BUILD_OPTIONS = ("max_iterations", "tolerance", "removal_deals", "removal_rounds")
TABLES_FILE_LIMIT = 64 * 2**20  # a tables file is ~0.1-0.3 MB; anything far larger is the wrong file


def _checked_distribution(distribution, what: str) -> np.ndarray:
    """``distribution`` as float64, once checked to be ``(3, S)`` probabilities, each row summing to 1."""
    size = len(strength_keys())
    try:
        array = np.asarray(distribution, dtype=np.float64)
    except (TypeError, ValueError):
        array = np.empty(0)
    if (array.shape != (3, size) or not np.isfinite(array).all() or (array < 0).any()
            or not np.allclose(array.sum(axis=1), 1.0)):
        raise OptionError(f"tables need a (3, {size}) {what} of probabilities (each row summing to 1), "
                          f"got shape {array.shape}")
    return array


def _checked_history(history) -> tuple:
    """``history`` as a tuple, once checked to be iterations 1, 2, ... with their two figures (a file's may not be)."""
    if not isinstance(history, (tuple, list)):
        raise OptionError(f"tables' history must be a list of iterations, got {type(history).__name__}")
    for position, step in enumerate(history, 1):
        if (not isinstance(step, dict) or set(step) != {"iteration", "changed", "values_moved"}
                or step["iteration"] != position or isinstance(step["iteration"], bool)
                or not all(isinstance(step[name], (int, float)) and not isinstance(step[name], bool)
                           and 0 <= step[name] < float("inf") for name in ("changed", "values_moved"))
                or step["changed"] > 1):
            raise OptionError(f"iteration {position} of the tables' history is not "
                              "{'iteration': n, 'changed': share, 'values_moved': amount}: " + repr(step)[:60])
    return tuple(history)


def _checked_build(build) -> dict:
    """An unfinished build's options, once checked: ``max_iterations``, ``tolerance``, ``removal_deals`` and
    ``removal_rounds``, each in its range."""
    if not isinstance(build, dict) or set(build) != set(BUILD_OPTIONS):
        raise OptionError("tables' build options must be {" + ", ".join(BUILD_OPTIONS) + "}, got "
                          + repr(build)[:80])
    return checked_build_options(**build)


def checked_build_options(max_iterations, tolerance, removal_deals, removal_rounds) -> dict:
    """A build's options (:data:`BUILD_OPTIONS`), each checked in its range: :func:`build_tables`'s, and those
    an unfinished build's tables record."""
    from cpoker.system.limits import MAX_ITERATIONS, MAX_REMOVAL_DEALS, MAX_REMOVAL_ROUNDS, check_fraction, check_int

    return {"max_iterations": check_int("max_iterations", max_iterations, 1, MAX_ITERATIONS),
            "tolerance": check_fraction("tolerance", tolerance),
            "removal_deals": check_int("removal_deals", removal_deals, 0, MAX_REMOVAL_DEALS),
            "removal_rounds": check_int("removal_rounds", removal_rounds, 0, MAX_REMOVAL_ROUNDS)}


def _checked_rounds(rounds) -> tuple:
    """``rounds`` as a tuple, once checked to be rounds 1, 2, ... with the share of hands that changed."""
    if not isinstance(rounds, (tuple, list)):
        raise OptionError(f"tables' removal rounds must be a list of rounds, got {type(rounds).__name__}")
    for position, step in enumerate(rounds, 1):
        if (not isinstance(step, dict) or set(step) != {"round", "changed"} or step["round"] != position
                or isinstance(step["round"], bool) or isinstance(step["changed"], bool)
                or not isinstance(step["changed"], (int, float)) or not 0 <= step["changed"] <= 1):
            raise OptionError(f"round {position} of the tables' removal rounds is not "
                              "{'round': n, 'changed': share}: " + repr(step)[:60])
    return tuple(rounds)


def tables_file(preset: str) -> str:
    """The package data file of a preset's shipped tables."""
    return DEFAULT_TABLES_FILE if preset == "pagat" else f"policy_tables_{preset}.npz"


def shipped_tables_path(preset: str) -> Path:
    """Where a preset's shipped tables file is installed."""
    return Path(str(resources.files("cpoker") / "data" / tables_file(preset)))


@functools.cache
def shipped_tables(preset: str) -> PolicyTables:
    from cpoker.system.errors import InstallationError

    with resources.as_file(resources.files("cpoker") / "data" / tables_file(preset)) as path:
        mend = f"reinstall cpoker, or rebuild the file with 'cpoker tables build --rules {preset} --out {path}'"
        if not path.exists():
            raise InstallationError(f"cpoker's {preset} policy tables are missing at {path}: {mend}")
        try:
            return PolicyTables.load(path)
        except OptionError as error:
            raise InstallationError(f"cpoker's {preset} policy tables cannot be read ({error}): {mend}") from None


def default_tables(rules: "Rules | str | None" = None) -> PolicyTables:
    """The shipped tables for ``rules`` (default: the Pagat base game).

    Every preset has its own tables, learned by self-play under its rules
    (``cpoker tables build --rules NAME`` regenerates them byte for byte).
    Other rules get the shipped distribution of the preset with the same
    scoring method, valued under those rules (:class:`RowModel`): a best
    response to that preset's players, corrected for card removal when the
    royalties are the preset's too.  ``cpoker tables build --rules FILE``
    learns tables of their own.
    """
    if rules is None or rules is DEFAULT_RULES:
        return shipped_tables("pagat")  # the common case, without comparing rules with every preset
    rules = resolve_rules(rules)
    name = rules.name
    if name in PRESETS:
        return shipped_tables(name)
    return _valued_tables(rules)


@functools.lru_cache(maxsize=16)
def _valued_tables(rules: Rules) -> PolicyTables:
    """The shipped distribution of the preset with ``rules``' scoring (under a low front: the preset with that
    front, whose strengths the distribution counts), valued under ``rules`` (built once)."""
    nearest = shipped_tables(rules.scoring if rules.front == "high" else rules.front)
    # the card-removal terms are in units of the preset's row values: kept where those are the same
    same_values = rules.royalties == nearest.rules.royalties and rules.scoring == nearest.rules.scoring
    removal = nearest.removal if same_values else None
    # the joint row model is the preset's play's, in the coordinates of its distribution: whatever the royalties
    return PolicyTables(distribution=nearest.distribution, hands=nearest.hands, seed=nearest.seed,
                        history=nearest.history, partial=nearest.partial, rules=rules, previous_distribution=None,
                        removal=removal, joint=nearest.joint)


def require_tables_front(tables: PolicyTables, rules: Rules, what: str) -> None:
    """Refuse tables learned under another front order than ``rules``' where they value arrangements (``what``):
    their strengths rank the front another way.  (The table policy of such tables still plays as a strategy:
    ``table@pagat`` at a table whose front plays for low.)

    Raises
    ------
    RulesError
        When ``tables.rules.front`` is not ``rules.front``.
    """
    if tables.rules.front != rules.front:
        from cpoker.system.errors import RulesError

        raise RulesError(f"{what} values arrangements under front = {rules.front!r} with tables learned under "
                         f"front = {tables.rules.front!r}, whose strengths rank the front the other way: use tables "
                         f"of these rules (the default, or 'cpoker tables build --rules ...')")


def resolve_tables(tables: "PolicyTables | str | Path | None", rules: "Rules | str | None" = None) -> PolicyTables:
    """``None`` → the shipped tables for ``rules``; a path → the tables in that file; tables → themselves."""
    if tables is None:
        return default_tables(rules)
    if isinstance(tables, PolicyTables):
        return tables
    if isinstance(tables, (str, Path)):
        return PolicyTables.load(tables)  # read each time: a job resolves its tables once (cpoker.jobs.job)
    raise OptionError(f"tables must be PolicyTables or a tables file, got {type(tables).__name__}")


