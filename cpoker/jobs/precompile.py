"""Every kernel cpoker runs, compiled into numba's cache ahead of the first command (``cpoker compile``).

A command's first run on a machine compiles the numba kernels it needs and
caches them (see :mod:`cpoker.system.jit`; docs/performance.md has the cold and
warm starts): seconds the first time, a fraction of a second after.  Each command pays
for its own kernels, the first time it runs.  That is a surprise on the
user's path in the places where it costs most: a container image that is
started afresh each time, the nodes of a cluster where every worker process
compiles the same kernels at once, an installation that several users share
(kernels are cached per user: ``NUMBA_CACHE_DIR`` names a folder they can share).
:func:`compile_kernels` runs each of cpoker's jobs once on a few hands, under
every rules preset (their kernels differ), so that every kernel is compiled
with the very argument types the commands pass and saved to the cache: no
command compiles anything after it.  A kernel already cached is loaded, not
compiled again, so a second call takes seconds.

The jobs run for real on small sizes, through the public API: a kernel the
commands use cannot be left out by a list of signatures gone stale.
``tests/jobs/test_precompile.py`` runs commands of every kind after it, in a new process,
and checks that none compiles.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Callable, Optional, Sequence

from cpoker.system.errors import OptionError

HAND = "As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s"
ARRANGEMENT = "As Kd Qh / 6s 5d 4h 3c 2s / Jc Ts 9d 8h 7c"


@dataclasses.dataclass(frozen=True)
class CompiledKernels:
    """What :func:`compile_kernels` did.

    Attributes
    ----------
    steps
        ``(job, seconds, kernels compiled)`` for each job, run under each of the rules, in order.
    cache_dir
        The directory the CPU kernels are cached in (None when they cannot be cached: see :mod:`cpoker.system.jit`).
    """

    steps: tuple
    cache_dir: Optional[str]

    @property
    def compiled(self) -> int:
        """cpoker kernels compiled (the others were loaded from the cache)."""
        return sum(step[2] for step in self.steps)

    @property
    def seconds(self) -> float:
        return sum(step[1] for step in self.steps)


def cache_directory() -> "str | None":
    """The directory cpoker's CPU kernels are cached in, as numba chose it for them; None when they are not."""
    from cpoker._kernels.evaluate import key5

    return getattr(getattr(key5, "_cache", None), "_cache_path", None)


def _evaluation(rules, device: str) -> None:
    import numpy as np

    from cpoker.game.arrangements import arrangements
    from cpoker.game.evaluation import evaluate, evaluate_batch, evaluate_best, evaluate_best_batch, evaluate_masks

    rows = np.array([[51, 47, 43, 39, 35], [0, 4, 8, 12, 16]], dtype=np.uint8)
    for check in (True, False):
        evaluate_batch(rows, check=check)
        evaluate_batch(rows[:, :3], check=check)
        evaluate_best_batch(np.array([[51, 47, 43, 39, 35, 0, 4]], dtype=np.uint8), check=check)
    evaluate_masks(np.array([sum(1 << int(card) for card in rows[0])], dtype=np.int64))
    evaluate("As Ks Qs Js Ts")
    evaluate_best("As Ks Qs Js Ts 2c 3d")
    arrangements(HAND)


def _settlement(rules, device: str) -> None:
    from cpoker.game.naturals import natural
    from cpoker.game.scoring import settle

    settle(["2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac", "3s 3h 4d / 6c 6d 8s 5c 2d / 9c 9d Th Ts As"],
                  rules=rules)
    natural(HAND, rules=rules)


def _solve(rules, device: str) -> None:
    from cpoker.jobs.solve import SOLVE_BLOCK, solve

    solve(HAND, method="table", rules=rules)
    # one block of a few samples and one of many opponents' hands
    solve(HAND, samples=20, seed=1, rules=rules, device=device, compare=ARRANGEMENT)
    solve(HAND, opponents=3, samples=SOLVE_BLOCK, seed=1, rules=rules, device=device)
    solve(HAND, samples=20, seed=1, rules=rules, opponent="greedy")


def _simulate(rules, device: str) -> None:
    from cpoker.jobs.simulate import simulate

    for opponents in (1, 3):
        simulate(ARRANGEMENT, opponents=opponents, samples=1_000, seed=1, rules=rules, device=device)
    simulate(ARRANGEMENT, samples=1_000, seed=1, rules=rules, opponent="greedy")


def _match(rules, device: str) -> None:
    from cpoker.jobs.simulate import match

    match(["table", "greedy"], deals=600, seed=1, rules=rules, device=device, sessions=2)
    match(["table", "greedy", "greedy", "table"], deals=600, seed=1, rules=rules, device=device)
    match(["mc", "greedy"], deals=1, seed=1, rules=rules)


def _exploit(rules, device: str) -> None:
    from cpoker.jobs.exploit import exploit

    exploit("greedy", rules=rules, hands=8, samples=200, seed=1, trend=True)


def _build(rules, device: str) -> None:
    from cpoker.jobs.selfplay import build_tables

    build_tables(hands=2_000, seed=1, max_iterations=2, rules=rules, device=device, removal_deals=2_000,
                        removal_rounds=1)


def _odds(rules, device: str) -> None:
    from cpoker.jobs.odds import hand_odds, odds_table

    odds_table(rules=rules)
    hand_odds("6s 6h 2d", rules=rules)


def _royalty_options(rules, device: str) -> None:
    """The kernels only house rules run: one royalty per hand (the solver settles candidates whole), dealt
    combinations (read off each hand's cards)."""
    from cpoker.game.rules import SEED001_ROYALTIES, Royalties, Rules
    from cpoker.jobs.simulate import match
    from cpoker.jobs.solve import solve

    for one_per_hand in (True, False):
        house = Rules("1-6", Royalties.from_mapping(SEED001_ROYALTIES, one_per_hand=one_per_hand,
                                                    dealt=not one_per_hand))
        solve(HAND, samples=20, seed=1, rules=house, compare=ARRANGEMENT)
        match(["table", "greedy"], deals=20, seed=1, rules=house)


def _open_face(rules, device: str) -> None:
    from cpoker.strategies.ofc.fantasyland import fantasyland
    from cpoker.game.ofc.scoring import settle
    from cpoker.jobs.ofc.placement import place

    settle(["Qh Qd 2c / 5s 6s 7s 8s Ts / Ah Ad Ac Kd Ks", "Jh Jd 3c / 2s 2h 4d 4c 6d / Th Td Tc 9h 9d"])
    fantasyland("As Ad Ac Kh Kd Qs Jh Th 9c 8c 7c 6c 5c 2d")
    place("Qh / 9s 9d / Ah Kh", "Qd 7c 2s", "pineapple", samples=1, seed=1)
    place("Qh / 9s 9d / Ah Kh", "Qd 7c 2s", "pineapple", samples=1, seed=1, policy="static")  # (mc-flat's)


# (name, job, whether it depends on the rules); in the order a user meets them
JOBS: "tuple[tuple[str, Callable, bool], ...]" = (
    ("evaluation", _evaluation, False),
    ("settlement", _settlement, True),
    ("solve", _solve, True),
    ("simulate", _simulate, True),
    ("match", _match, True),
    ("exploit", _exploit, True),
    ("odds", _odds, True),
    ("tables build", _build, True),
    ("house royalty options", _royalty_options, False),
    ("open face", _open_face, False),
)


def compile_kernels(rules: "Sequence | str | None" = None, device: str = "cpu",
                    report: Optional[Callable[[str, float, int], None]] = None) -> CompiledKernels:
    """Compile every kernel cpoker's commands run into numba's cache (or load it from there).

    Parameters
    ----------
    rules
        The rules whose kernels to compile: a preset name, a :class:`~cpoker.Rules`, a ``.toml`` file, or a
        sequence of them.  By default every preset (their kernels differ: bonuses, royalties).
    device
        ``"cuda"`` compiles the GPU's kernels too (numba-cuda caches them as well); ``"cpu"`` by default.
    report
        ``report(job, seconds, kernels compiled)`` after each job (the command line prints a line).

    Returns
    -------
    CompiledKernels
        The jobs run, with their seconds and the kernels each compiled, and where the kernels are cached.

    Raises
    ------
    OptionError, RulesError
        For unknown rules or device, and for ``device="cuda"`` where no GPU or numba-cuda is usable, before
        anything is compiled.
    Interrupted
        For a SIGINT or SIGTERM, after the job it came in (the kernels compiled so far stay cached).

    Examples
    --------
    >>> import cpoker
    >>> done = cpoker.compile_kernels(rules="pagat")  # doctest: +SKIP
    >>> done.compiled, done.cache_dir  # doctest: +SKIP
    (0, '/home/me/.cache/cpoker/VERSION/kernels/_kernels_...')
    """
    from cpoker.game.devices import check_device
    from cpoker.game.rules import PRESETS, resolve_rules

    device = check_device(device)
    if device == "cuda":
        from cpoker.game.devices import cuda_runtime

        cuda_runtime()  # no GPU, no numba-cuda: said now, not after the CPU's kernels
    if rules is None:
        chosen = [PRESETS[name] for name in PRESETS]
    elif isinstance(rules, (str, bytes)) or not isinstance(rules, Sequence):
        chosen = [resolve_rules(rules)]  # type: ignore[arg-type]  # (bytes: refused there, by name)
    else:
        if not rules:
            raise OptionError("rules to compile for: give at least one, or None for every preset")
        chosen = []
        for one in map(resolve_rules, rules):
            if one not in chosen:  # (the same rules twice compile nothing more)
                chosen.append(one)
    from numba.core.event import install_listener

    from cpoker.system import interrupts
    from cpoker.system.errors import Interrupted

    steps = []
    with interrupts.shielded(), install_listener("numba:compile", _compilations_listener()) as compiled:
        seen = interrupts.signals_seen()
        for name, job, by_rules in JOBS:
            before, start = len(compiled.names), time.perf_counter()
            for one in chosen if by_rules else chosen[:1]:
                job(one, device)
                # a signal stops after the run it came in (which acts on it as on any, returning a partial result):
                # the kernels compiled so far stay cached
                if interrupts.signals_seen() > seen:
                    raise Interrupted(interrupts.received() or 2)
            steps.append((name, time.perf_counter() - start, len(compiled.names) - before))
            if report is not None:
                report(*steps[-1])
    return CompiledKernels(tuple(steps), cache_directory())


def _compilations_listener():
    """A numba event listener whose ``names`` are the cpoker kernels numba compiles while it is installed
    (``numba:compile`` fires for a kernel compiled, not for one loaded from the cache)."""
    from numba.core import event

    class CompilationsListener(event.Listener):
        def __init__(self) -> None:
            self.names: list = []

        def on_start(self, ev) -> None:
            function = ev.data["dispatcher"].py_func
            if function.__module__.startswith("cpoker."):
                self.names.append(f"{function.__module__}.{function.__qualname__}")

        def on_end(self, ev) -> None:
            pass

    return CompilationsListener()
