"""Self-play: the table policy's tables learned by fictitious play.

The distributions come from self-play by fictitious play: deal a fixed sample
of hands, arrange them by the best response to the current average opponent,
record the row strengths, and fold them into the average with weight
``1 / t``.  Plain best-response iteration can oscillate; the average converges.

Then the card-removal correction (:mod:`cpoker.strategies.policy.removal`) is learned from
the policy's play, and fictitious play starts again with every hand
arranged *with* its correction (a fresh average of those passes, the terms
learned again after each): the finished policy values its rows against
its own corrected play, not against the play of a policy that ignores card
removal.  Measured, these rounds are most of what the correction wins
against a best response (docs/strategy-quality.md).  Under a scoring
bonus the same learning also gives the joint distribution of the policy's
three rows (:mod:`cpoker.strategies.policy.joint`), which prices a scoop or a majority of rows
better than a product of the rows' chances.
"""

from __future__ import annotations

import functools
import itertools
import uuid
from pathlib import Path
from typing import Callable, Optional

import numpy as np

from cpoker.system import interrupts
from cpoker.run.blocks import blocks_of
from cpoker.game.dealing import sample_block
from cpoker.game.devices import check_device, hand_choices_cuda, replace_choices_cuda, self_play_cuda
from cpoker.system.errors import Interrupted, OptionError
from cpoker.system.interrupts import shielded
from cpoker.system.limits import MAX_TABLE_HANDS, check_int, check_seed
from cpoker.jobs import nearbest
from cpoker.jobs.nearbest import (NearBestMemory, bytes_per_hand, lists_in_pass, model_snapshot, strength_histogram,
                                  valid_strengths, worker_memory)
from cpoker.strategies.policy import (BUILD_OPTIONS, DEFAULT_BUILD, PolicyTables, RowModel, arrange_by_tables,
                                      arrange_greedy, checked_build_options)
from cpoker.jobs.removal_learning import learn_removal, learning_lists
from cpoker.game.rules import Rules, resolve_rules
from cpoker.jobs.job import Runs, run_job
from cpoker.run.runner import backend_kept, backend_threads, check_backend
from cpoker.game.lookup_tables import strength_keys, strengths_on_scale


# hands a call of a self-play pass whose hands remember their near-best rows (cpoker.jobs.nearbest): most are certified
# in a few dozen operations, so a block of 2,000 would cost more in calls than in work; searching all of them is still
# well under a second, so that a signal is acted on soon
REMEMBERED_GROUP = 1 << 16
# on a GPU, 16 blocks of a million: a late pass searches few of the hands, and a launch of one block's searches
# would not fill a large GPU while its longest search runs
REMEMBERED_GROUP_CUDA = 1 << 24
# and more once few are searched (remembered_group): a call's searches at about this many at most (seconds of a
# GPU, so that a signal is acted on within seconds), and its hands up to the most below, so that a late pass of a
# 10**8-hand sample, which searches few of them, is one call, paying once the launches and the longest search
SEARCHES_A_CALL = 1 << 22
MAX_REMEMBERED_GROUP_CUDA = 1 << 27
# the most hands in a block of a build on a Dask cluster (cluster_chunk): a task long enough that the scheduler's
# cost per task is small beside it, short enough that a lost worker costs little
CLUSTER_CHUNK = 20_000
# hands of a large sample that the first self-play iteration plays, twice as many each iteration after
# (played_hands): a 10**8-hand build's first five play 4-67 million
WARMUP_HANDS = 1 << 22


def build_tables(hands: Optional[int] = None, seed: Optional[int] = None,
                 max_iterations: Optional[int] = None, tolerance: Optional[float] = None,
                 progress: bool = False, chunk: Optional[int] = None, device: str = "cpu", backend: str = "local",
                 scheduler: Optional[str] = None, rules: "Rules | str | None" = None,
                 resume: "PolicyTables | str | Path | None" = None,
                 checkpoint: "Callable[[PolicyTables], None] | None" = None,
                 removal_deals: Optional[int] = None, removal_rounds: Optional[int] = None) -> PolicyTables:
    """Learn the table policy by fictitious self-play, then its card-removal correction (see module docstring).

    Parameters
    ----------
    hands
        Size of the fixed sample of random hands (default 100,000; at most
        10**8; the sample is dealt block by block, never held, and only each
        hand's last choice, 4 bytes, is kept between iterations, with its
        near-best rows, 354 bytes (194 when only lists of 16 rows cover them
        all), for as many hands as 2 GiB hold, a quarter of the free memory on
        a GPU: see :func:`cpoker.jobs.nearbest.list_capacity`).  Of a larger
        sample than :data:`WARMUP_HANDS` (4,194,304), the first iteration (and
        the greedy start) plays that many hands, each next one twice as many,
        until all (:func:`played_hands`: 10**8 from the sixth iteration on);
        the rounds with the correction play all of it.
    seed
        Seed of the sample (default 2026); the same ``(hands, seed,
        max_iterations, tolerance, rules)`` give bit-identical tables.
    max_iterations, tolerance
        Stop when the share of hands whose arrangement changed falls below
        ``tolerance`` (0 to 1), or after ``max_iterations`` (counted from the
        start of the build, resumed or not); default 0.001 and 60, and resuming,
        the unfinished build's own.
    progress
        Show a progress bar (tqdm) on standard error.
    chunk
        Hands per block (default 2,000 on the CPU, 1,000,000 on a GPU, on a Dask cluster four blocks a
        worker thread, from 2,000 to 20,000: :func:`cluster_chunk`); never changes the result.
    device
        ``"cpu"`` or ``"cuda"``: where the self-play passes run (identical tables); on a GPU
        each pass deals and arranges its hands there, where they keep their choices,
        and only counts come back (the strengths of their rows, and how many changed).
    backend, scheduler
        ``"local"`` or ``"dask"`` (see :mod:`cpoker.run.runner`): where the blocks run (identical tables).  On a
        Dask cluster, every pass runs on one connection (one embedded cluster), each worker process keeps the
        near-best lists of the blocks it ran, and each pass sends a block back to the worker that ran it
        (:class:`cpoker.jobs.nearbest.BlockMemory`).
    rules
        The rules played (a preset name, a ``.toml`` file or :class:`~cpoker.Rules`;
        default pagat): each hand's choice maximises its expected settlement
        under them against the average opponent, scoring bonus and royalties
        included (:class:`RowModel`, which says what is approximated).
    resume
        The tables of an unfinished build (a checkpoint, or what a signal
        stopped; or their file): the build continues from its last completed
        iteration and ends with the very tables the build would have made
        uninterrupted, byte for byte.  Its sample and rules are the build's;
        ``hands``, ``seed`` and ``rules``, when given, must agree; the other
        options default to those it was asked for (:attr:`PolicyTables.build`).  The
        choices of that last iteration are not stored (4 bytes a hand), so
        the first pass replays it, and the replay must give the stored
        distribution back exactly: a file that does not continue this build
        is refused.
    checkpoint
        Called with the tables so far (``partial=True``, resumable) after
        every iteration that does not end the self-play, and once the
        self-play is done, e.g. to save them: a build killed outright
        (SIGKILL, a lost node, a job's time limit) then loses one pass at
        most, or the rounds with the correction.  Its exceptions propagate.
    removal_deals
        Deals of four hands, arranged by the policy, from which its card-removal
        correction is learned (:func:`cpoker.jobs.removal_learning.learn_removal`; default
        200,000, arranged on ``device``; 0 for none), and
        under a scoring bonus the joint model of an opponent's rows
        (:mod:`cpoker.strategies.policy.joint`; none either with 0: independent rows).  After
        each round but the last, a quarter of them.
    removal_rounds
        Rounds of self-play with the correction after the self-play without it
        (default 8, each a pass over the sample and a learning of the terms; 0:
        the correction is learned once, from the play of the policy that ignores
        it).  docs/performance.md has what a build's stages cost.

    A SIGINT or SIGTERM stops the build at the next block: the tables of the
    last completed iteration are returned with ``partial=True`` (and can be resumed).
    One that arrives while the correction is learned, or in the rounds with it,
    returns the self-play's tables without it, ``partial``: resuming them plays
    the rounds again.

    Raises
    ------
    OptionError
        For sizes, seeds or a tolerance out of range, and for ``resume`` tables
        that are not an unfinished build, disagree with the options given, or do
        not continue this build.
    Interrupted
        When a signal arrives before the first iteration completes (resuming:
        the first iteration after those resumed, so the file to resume is
        still what it was).
    """
    if checkpoint is not None and not callable(checkpoint):
        raise OptionError(f"checkpoint must be a function of the tables so far, got {type(checkpoint).__name__}")
    defaults = DEFAULT_BUILD
    if resume is not None:
        resume = _resumable(resume, hands, seed, rules)
        hands, seed, rules = resume.hands, resume.seed, resume.rules
        defaults = {**DEFAULT_BUILD, **(resume.build or {})}  # (tables written before they were recorded: none)
    hands = check_int("hands", DEFAULT_BUILD["hands"] if hands is None else hands, 1, MAX_TABLE_HANDS)
    seed = check_seed(int(DEFAULT_BUILD["seed"]) if seed is None else seed)
    rules = resolve_rules(rules)
    asked = checked_build_options(  # recorded in unfinished tables, for their resume
        defaults["max_iterations"] if max_iterations is None else max_iterations,
        defaults["tolerance"] if tolerance is None else tolerance,
        defaults["removal_deals"] if removal_deals is None else removal_deals,
        defaults["removal_rounds"] if removal_rounds is None else removal_rounds)
    max_iterations, tolerance, removal_deals, removal_rounds = (asked[name] for name in BUILD_OPTIONS)
    if resume is not None and max_iterations < resume.iterations:
        raise OptionError(f"the build to resume has done {resume.iterations} iterations already: "
                          f"max_iterations must be at least that, got {max_iterations}")
    device = check_device(device)
    check_backend(backend, scheduler)
    chunk_given = chunk is not None
    chunk = check_int("chunk", chunk if chunk_given else (2_000 if device == "cpu" else 1_000_000), 1, 10**7)
    plays = SelfPlay(hands, seed, chunk, device, backend, scheduler, progress, rules.front_code)
    # every pass on one connection: on the embedded Dask cluster, one cluster for the build, not one a pass; the
    # workers' lists are freed at the end
    with shielded(), backend_kept(backend, scheduler, functools.partial(nearbest.forget_worker_memory, plays.build)):
        if backend == "dask" and device == "cpu" and not chunk_given:
            plays.chunk = cluster_chunk(hands, backend_threads())
        seen = interrupts.signals_seen()  # a signal in the last block of a pass completes it, then stops the build
        history: list = []
        done, average = _first_average(plays, resume, rules, history, seen)
        before = resume.previous_distribution if resume is not None else None
        partial, average, before, model = _fictitious_play(plays, average, rules, done, max_iterations, tolerance,
                                                           history, seen, checkpoint, asked, before)
        removal, joint, rounds = None, None, []
        if not partial and removal_deals:
            if checkpoint is not None:  # the self-play is done: a build killed from here on resumes from here
                checkpoint(PolicyTables(distribution=average, hands=hands, seed=seed, history=tuple(history),
                                        partial=True, rules=rules, previous_distribution=before, build=asked))
            try:
                average, removal, joint, rounds = _rounds_with_the_correction(plays, model, average, rules,
                                                                              removal_deals, removal_rounds, seen)
            except interrupts.Abandoned:
                partial = True  # the self-play's tables, to resume
        if partial and len(history) == done:
            raise Interrupted(interrupts.received() or 2)
        # a signal between two passes (while the next model is made) stopped the build: it is acted on, so
        # leaving the shield returns these tables instead of raising Interrupted and losing them
        interrupts.consume()
    return PolicyTables(distribution=average, hands=hands, seed=seed, history=tuple(history), partial=partial,
                        rules=rules, previous_distribution=before if partial else None, removal=removal,
                        removal_rounds=tuple(rounds), joint=joint, build=asked if partial else None)


def _first_average(plays: "SelfPlay", resume: "PolicyTables | None", rules: Rules, history: list,
                   seen: int) -> "tuple[int, np.ndarray]":
    """``(iterations done, average)`` to start fictitious play from: the greedy start's row strengths, or, for
    a build to resume, its tables once the last completed iteration is replayed (its choices are the next
    pass's "previous"); ``history`` gets the resumed build's."""
    hands = plays.hands
    if resume is None:
        played = played_hands(hands, 1)
        first = plays.play(None, "greedy start", played)
        if first is None or interrupts.signals_seen() > seen:
            raise Interrupted(interrupts.received() or 2)
        return 0, first[0] / played
    done, before = resume.iterations, resume.previous_distribution
    assert before is not None  # (_resumable refuses tables without it)
    history.extend(resume.history)
    played = played_hands(hands, done)
    replay = plays.play(RowModel.from_distribution(before, rules), f"replaying iteration {done}", played)
    if replay is None or interrupts.signals_seen() > seen:
        raise Interrupted(interrupts.received() or 2)
    if not np.array_equal(_averaged(before, replay[0] / played, done), resume.distribution):
        raise OptionError(f"these tables do not continue a build of {hands} hands, seed {plays.seed}, under the "
                          f"rules {rules.name!r}: replaying iteration {done} gives another distribution "
                          "(a changed file, or one written by another version of cpoker)")
    return done, resume.distribution


def _fictitious_play(plays: "SelfPlay", average: np.ndarray, rules: Rules, done: int, max_iterations: int,
                     tolerance: float, history: list, seen: int, checkpoint, asked: dict,
                     before: "np.ndarray | None") -> tuple:
    """Fictitious play from iteration ``done + 1``: each iteration a pass of the best response to the average so
    far, folded into it, until it ends (:func:`self_play_ended`) or a signal stops it.  Returns ``(partial,
    average, the average before the last iteration, the model of the average)``; ``history`` gets an entry an
    iteration, and ``checkpoint`` the tables after each."""
    hands = plays.hands
    partial = False
    model = RowModel.from_distribution(average, rules)
    # resumed tables whose self-play had ended (a signal stopped the rounds with the correction) start those
    last = done if self_play_ended(history, max_iterations, tolerance) else max_iterations
    for iteration in range(done + 1, last + 1):
        values = model.row_values
        played = played_hands(hands, iteration)
        result = plays.play(model, f"self-play {iteration}/{max_iterations}", played)
        if result is None:
            partial = True
            break
        new_average = _averaged(average, result[0] / played, iteration)
        changed = 1.0 if iteration == 1 else result[1] / played_hands(hands, iteration - 1)
        new_model = RowModel.from_distribution(new_average, rules)  # the next iteration's model
        moved = float(np.abs(new_model.row_values - values).max())
        history.append({"iteration": iteration, "changed": changed, "values_moved": moved})
        before, average, model = average, new_average, new_model
        if self_play_ended(history, max_iterations, tolerance):
            break
        if interrupts.signals_seen() > seen:
            partial = True
            break
        if checkpoint is not None:
            checkpoint(PolicyTables(distribution=average, hands=hands, seed=plays.seed, history=tuple(history),
                                    partial=True, rules=rules, previous_distribution=before, build=asked))
    return partial, average, before, model


def _rounds_with_the_correction(plays: "SelfPlay", model: RowModel, average: np.ndarray, rules: Rules,
                                removal_deals: int, removal_rounds: int, seen: int) -> tuple:
    """The card-removal correction learned from the play of ``model``, then ``removal_rounds`` rounds of
    self-play with it, each a pass over the sample (a fresh average of those passes) and the correction learned
    again from that play.  Returns ``(average, removal terms, joint grid, the rounds' records)``; raises
    :class:`~cpoker.system.interrupts.Abandoned` when a signal stops them."""
    device, hands = plays.device, plays.hands
    # the learnings' hands (the same deals each time): their near-best rows too, in what the self-play's
    # left of the memory budget (not on a GPU, where a learning is a fraction of a second)
    memory = plays.memory
    left = nearbest.MEMORY_BYTES - (memory.size * bytes_per_hand(memory.capacity) if memory else 0)
    learning = None if device != "cpu" or not removal_rounds else learning_lists(max(1, removal_deals // 4),
                                                                                 max(0, left))

    def learned(played: RowModel, last: bool) -> tuple:
        # a signal drops the terms in flight (10 s by default, hours at --removal-deals 10**8) and stops
        # the build: learn_removal never acts on it itself, which would make terms of part of the deals
        with interrupts.deferred():
            return learn_removal(played, rules, plays.seed, removal_deals if last else max(1, removal_deals // 4),
                                 progress=plays.progress, device=device, lists=learning, last=last)

    rounds = []
    removal, joint = learned(model, not removal_rounds)
    corrected = average
    for round_ in range(1, removal_rounds + 1):
        result = plays.play(RowModel.from_distribution(corrected, rules, removal, joint),
                            f"self-play with card removal {round_}/{removal_rounds}", final=round_ == removal_rounds)
        if result is None or interrupts.signals_seen() > seen:
            raise interrupts.Abandoned()
        corrected = _averaged(corrected, result[0] / hands, round_)  # a fresh average: round 1 is whole
        rounds.append({"round": round_, "changed": result[1] / hands})
        removal, joint = learned(RowModel.from_distribution(corrected, rules, removal, joint),
                                 round_ == removal_rounds)
    return corrected, removal, joint, rounds


class SelfPlay:
    """What a build's passes over its sample share: where and in what blocks they run, each hand's last choice,
    and each hand's near-best rows (:mod:`cpoker.jobs.nearbest`), so that a pass searches only the hands whose choice
    may change (the same answers)."""

    def __init__(self, hands: int, seed: int, chunk: int, device: str, backend: str, scheduler: "str | None",
                 progress: bool, front_code: int = 0) -> None:
        self.hands, self.seed, self.chunk, self.device = hands, seed, chunk, device
        self.front_code = front_code
        self.backend, self.scheduler, self.progress = backend, scheduler, progress
        self.size = len(strength_keys())
        self.memory = NearBestMemory(hands, chunk, device) if backend == "local" else None
        # on a Dask cluster, each worker process keeps the lists of the blocks it ran (nearbest.BlockMemory), and
        # each pass sends a block back to the worker that ran it: the passes are numbered, and decide to list, here
        self.remote_lists = backend == "dask" and device == "cpu"
        self.build = uuid.uuid4().hex
        self.listed_passes, self.last_snapshot = 0, None  # type: tuple[int, Optional[tuple]]
        # each hand's last choice: on a GPU that holds the lists, left there by the passes (only counts come back)
        self.on_gpu = device == "cuda" and self.memory is not None and self.memory.size > 0
        self.previous = hand_choices_cuda(hands) if self.on_gpu else np.full(hands, -1, dtype=np.int32)
        self.known = 0  # the hands that have one: the sample's first (see played_hands)

    def play(self, model: "RowModel | None", description: str, played: "int | None" = None,
             final: bool = False) -> "tuple[np.ndarray, int] | None":
        """One pass over the sample's first ``played`` hands (all by default): each arranged by the policy of
        ``model`` (greedily when None); ``(their strengths counted, how many of those played before changed their
        split)``, or None when a signal stopped it.  The ``final`` pass of the build lists no near-best rows."""
        played = self.hands if played is None else played
        memory, chunk, seed, device, size = self.memory, self.chunk, self.seed, self.device, self.size
        counts = np.zeros((3, size), dtype=np.int64)
        changed = 0
        remembering = memory is not None and model is not None and memory.start_pass(model, final)
        remote = self.remote_lists and model is not None and self.listed_passes < nearbest.MAX_PASSES
        if remote:
            snapshot = model_snapshot(model)
            number, listing = self.listed_passes, lists_in_pass(self.last_snapshot, snapshot, final,
                                                                 valid_strengths(self.front_code))
            self.listed_passes, self.last_snapshot = self.listed_passes + 1, snapshot

        def work(block):
            return work_many([block])[0] if remembering else arrange_block(block)

        def arrange_block(block):
            index, count = block
            if device == "cuda":  # dealt on the GPU too: the hands never cross to it
                chosen, strengths = self_play_cuda(seed, index * chunk, count, model)
                if model is None:  # the greedy start, on the high order's scale
                    strengths = strengths_on_scale(strengths, self.front_code)
            elif remote and (kept := worker_memory(self.build, chunk)).start_pass_once(model, number, listing) and \
                    kept.covers(index * chunk, count):  # on a Dask worker: its lists of the block, if it ran it
                chosen, histograms = kept.arrange(seed, index * chunk, count)
                return chosen, histograms[0]
            else:
                hands = sample_block(seed, index * chunk, count)
                chosen, strengths = (arrange_greedy(hands, front_code=self.front_code) if model is None
                                     else arrange_by_tables(hands, model))
            return chosen, strength_histogram(strengths, size)

        def work_many(blocks):
            """Consecutive blocks, those the hands' lists cover in one call (most of their hands need no search:
            one call, not one a block)."""
            listed = [block for block in blocks if memory.covers(block[0] * chunk, block[1])]
            summaries = [arrange_block(block) for block in blocks[len(listed):]]
            if not listed:
                return summaries
            start = listed[0][0] * chunk
            chosen, histograms = memory.arrange(seed, start, sum(count for _, count in listed), on_device=self.on_gpu)
            bounds = [0, *itertools.accumulate(count for _, count in listed)]  # (ints: they slice device arrays)
            return [(chosen[a:b], histogram)
                    for a, b, histogram in zip(bounds, bounds[1:], histograms)] + summaries

        def combine(block, summary):
            nonlocal changed, counts
            index, count = block
            chosen, block_counts = summary
            start = index * chunk
            both = min(count, max(0, self.known - start))  # the block's hands played before
            if self.on_gpu:
                changed += replace_choices_cuda(self.previous, start, chosen, both)
            else:
                changed += int(np.count_nonzero(self.previous[start:start + both] != chosen[:both]))
                self.previous[start:start + count] = chosen
            counts += block_counts

        combined = [0]

        def combine_counted(block, summary):
            combine(block, summary)
            combined[0] += block[1]

        try:
            stopped = run_job(Runs(backend=self.backend, scheduler=self.scheduler, progress=self.progress),
                              blocks_of(played, chunk), work, combine_counted, lambda stopped: stopped,
                              has_result=lambda: combined[0] > 0, complete=lambda: combined[0] == played,
                              total=played, unit="hand", description=description,
                              group=(-(-remembered_group(device, memory.by_pass) // chunk)
                                     if remembering and memory else 1),
                              work_many=work_many, threads=False, inner=True)
        except Interrupted:
            return None
        if stopped:
            return None
        self.known = max(self.known, played)
        return counts, changed


def remembered_group(device: str, by_pass: list) -> int:
    """Hands a call of a self-play pass with near-best lists covers
    (:meth:`cpoker.jobs.nearbest.NearBestMemory.arrange`),
    ``by_pass`` the memory's counts by pass (:attr:`~cpoker.jobs.nearbest.NearBestMemory.by_pass`, the pass's own
    last): on the CPU :data:`REMEMBERED_GROUP`; on a GPU as many as make about :data:`SEARCHES_A_CALL` searches at
    the share of its hands the pass before searched, from :data:`REMEMBERED_GROUP_CUDA` to
    :data:`MAX_REMEMBERED_GROUP_CUDA` (the fewest when there is none before).  Every call pays its launches and
    waits for its longest search; the answers never depend on it."""
    if device != "cuda":
        return REMEMBERED_GROUP
    searched, certified = by_pass[-2] if len(by_pass) > 1 else (1, 0)
    share = searched / max(1, searched + certified)
    return int(min(MAX_REMEMBERED_GROUP_CUDA, max(REMEMBERED_GROUP_CUDA, SEARCHES_A_CALL / max(share, 1e-9))))


def cluster_chunk(hands: int, threads: int) -> int:
    """Hands per block of a build on a Dask cluster of ``threads`` worker threads: four blocks a thread, from
    2,000 (the local blocks) to :data:`CLUSTER_CHUNK`.

    Every block pays the cluster a few milliseconds and carries the pass's model (1.2 MB), and a late pass
    certifies most of a block's hands from their lists in microseconds, so larger blocks pay off; four blocks a
    thread keep every worker busy while the last blocks of a pass finish (docs/performance.md, Constants).
    """
    return min(CLUSTER_CHUNK, max(2_000, -(-hands // (4 * max(1, threads)))))


def played_hands(hands: int, iteration: int) -> int:
    """Hands of a build's sample of ``hands`` that its self-play ``iteration`` plays (1: and the greedy start): the
    first :data:`WARMUP_HANDS`, twice as many each iteration, until all of them.

    The first iterations' models are far from the last (pagat: their rows' values move by 1.4, 0.4, 0.15, 0.07 an
    iteration) and each response is one iteration's share of the average, so part of a large sample answers them
    nearly as the whole does.  Measured under pagat at 1.5 million hands, the first iteration playing 65,536 (about
    the ratio of 10**8 hands to :data:`WARMUP_HANDS`): after 60 iterations the rows' values were within 5e-5 (root
    mean square; 3.4e-4 at most) of the build that played every hand from the start, a tenth of what another seed
    changes (5e-4), and the self-play searched 4.8 passes' worth of hands instead of 8.2.  The later iterations,
    and the rounds with the card-removal correction, play every hand; a sample of :data:`WARMUP_HANDS` or fewer
    (the shipped tables' 100,000) is played whole from the start.
    """
    return min(hands, WARMUP_HANDS << min(iteration - 1, 40))


def self_play_ended(history, max_iterations: int, tolerance: float) -> bool:
    """Whether a build's self-play stops after the iterations of ``history``: the last changed the arrangement of
    fewer hands than ``tolerance`` (the first, always counted as changing all, never stops it), or there were
    ``max_iterations``."""
    return len(history) >= max_iterations or (len(history) > 1 and history[-1]["changed"] < tolerance)


def _averaged(average: np.ndarray, response: np.ndarray, iteration: int) -> np.ndarray:
    """Fictitious play's running average after ``iteration`` best responses (the first is taken whole)."""
    return average + (response - average) / iteration if iteration > 1 else response


def _resumable(resume: "PolicyTables | str | Path", hands: Optional[int], seed: Optional[int],
               rules: "Rules | str | None") -> PolicyTables:
    """The tables of an unfinished build, once checked against the options given with them."""
    if isinstance(resume, (str, Path)):
        resume = PolicyTables.load(resume)
    elif not isinstance(resume, PolicyTables):
        raise OptionError(f"resume takes the tables of an unfinished build or their file, got {type(resume).__name__}")
    if not resume.partial:
        done = f"{resume.iterations} iteration" + "s" * (resume.iterations != 1)
        raise OptionError(f"there is nothing to resume: these tables are a finished build ({done}; only an "
                          "interrupted build or a checkpoint continues: build again with more iterations)")
    if resume.previous_distribution is None:
        raise OptionError("these partial tables cannot be resumed: they were written before builds could be")
    for name, given, own in (("hands", hands, resume.hands), ("seed", seed, resume.seed)):
        if given is not None and given != own:
            raise OptionError(f"the build to resume has {name}={own}; {name}={given} would be another build")
    if rules is not None and resolve_rules(rules) != resume.rules:
        raise OptionError(f"the build to resume plays the rules {resume.rules.name!r}, "
                          f"not {resolve_rules(rules).name!r}")
    return resume
