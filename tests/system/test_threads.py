"""cpoker.system.threads: a batch's parts, each once, on the threads numba allows; the same answers in a forked
child."""

import multiprocessing
import threading
import time

import numba
import numpy as np
import pytest

from cpoker.game.dealing import deal_from, deal_seeded
from cpoker.strategies.policy import arrange_by_tables, arrange_greedy, default_tables
from cpoker.game.dealing import sample_block, sample_hands
from cpoker.jobs.job import numba_threads
from cpoker.system.threads import in_parts

MOST = numba.config.NUMBA_NUM_THREADS


def _parts(count: int, smallest: int, threads: int, seconds: float = 0.0) -> list:
    """``(start, stop, thread id)`` of each part ``in_parts`` ran, each taking ``seconds`` (sleeping: the GIL free,
    as a kernel's is)."""
    done, lock = [], threading.Lock()

    def run_part(start: int, stop: int) -> None:
        time.sleep(seconds)
        with lock:
            done.append((start, stop, threading.get_ident()))

    with numba_threads(threads):
        in_parts(run_part, count, smallest)
    return done


@pytest.mark.parametrize("count, smallest", [(1, 64), (64, 64), (65, 64), (1000, 64), (100_000, 64), (7, 1)])
@pytest.mark.parametrize("threads", sorted({1, MOST}))
def test_the_parts_cover_the_batch_once_each(count, smallest, threads):
    parts = _parts(count, smallest, threads)
    spans = sorted((start, stop) for start, stop, _ in parts)
    assert spans[0][0] == 0 and spans[-1][1] == count
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))  # no gap, no overlap
    assert all(stop - start >= smallest for start, stop in spans[:-1])
    if threads == 1 or count <= smallest:  # one part, on the calling thread
        assert [(start, stop) for start, stop, _ in parts] == [(0, count)]
        assert parts[0][2] == threading.get_ident()


@pytest.mark.skipif(MOST < 2, reason="numba may use one thread here")
def test_the_parts_run_side_by_side_on_no_more_threads_than_numba_allows():
    for threads in range(2, min(MOST, 4) + 1):
        # 0.8 s of parts: time for every thread to take some, on a loaded machine too
        parts = _parts(64 * 16, 64, threads, seconds=0.05)
        used = {thread for _, _, thread in parts}
        assert threading.get_ident() in used and 2 <= len(used) <= threads


@pytest.mark.skipif(MOST < 2, reason="numba may use one thread here: one part")
def test_a_part_that_fails_fails_the_call_after_the_others_end():
    ended = []

    def run_part(start: int, stop: int) -> None:
        time.sleep(0.005)
        if start == 64 * 5:
            raise ValueError("part 5")
        ended.append(start)

    with numba_threads(MOST), pytest.raises(ValueError, match="part 5"):
        in_parts(run_part, 64 * 12, 64)
    assert len(ended) == 11  # every other part ran to its end


def _child_arranges(hands, connection) -> None:
    connection.send(arrange_by_tables(hands, default_tables()))


@pytest.mark.skipif(MOST < 2 or "fork" not in multiprocessing.get_all_start_methods(),
                    reason="needs a pool (2 threads or more) and fork")
def test_a_child_forked_after_the_pool_started_arranges_as_its_parent():
    """A forked child has none of its parent's pool threads: it makes a pool of its own (``os.register_at_fork``)
    instead of waiting forever on threads that are not there."""
    hands = sample_hands(2_000, 11)
    with numba_threads(MOST):
        expected = arrange_by_tables(hands, default_tables())  # the parent's pool runs parts of it
    context = multiprocessing.get_context("fork")
    receiving, sending = context.Pipe(duplex=False)
    child = context.Process(target=_child_arranges, args=(hands, sending))
    child.start()
    try:
        assert receiving.poll(120), "the forked child did not answer in 120 s"
        chosen, strengths = receiving.recv()
    finally:
        child.join(30)
        if child.is_alive():
            child.kill()
    assert child.exitcode == 0
    assert np.array_equal(chosen, expected[0]) and np.array_equal(strengths, expected[1])


@pytest.mark.parametrize("arrange", [lambda hands: arrange_by_tables(hands, default_tables("2-4").model),
                                     arrange_greedy], ids=["table policy", "greedy"])
def test_the_answers_do_not_depend_on_the_threads(arrange):
    """A batch in parts on one thread and on all gives each hand the split it gets alone (one hand a call)."""
    hands = sample_hands(3_000, 12)
    answers = []
    for threads in sorted({1, MOST}):
        with numba_threads(threads):
            answers.append(arrange(hands))
    for chosen, strengths in answers:
        assert np.array_equal(chosen, answers[0][0]) and np.array_equal(strengths, answers[0][1])
    alone = [arrange(hands[i:i + 1]) for i in range(0, len(hands), 97)]
    assert np.array_equal(np.concatenate([chosen for chosen, _ in alone]), answers[0][0][::97])
    assert np.array_equal(np.concatenate([strengths for _, strengths in alone]), answers[0][1][::97])


def test_the_deals_do_not_depend_on_the_threads():
    """Seeded deals in parts on the pool (dealing.deal_stream): the same hands on one thread and on all, and the
    same as dealt a sub-block at a time (each part jumps to its place in the stream)."""
    answers = []
    for threads in sorted({1, MOST}):
        with numba_threads(threads):
            answers.append((sample_block(5, 777, 50_001), deal_from(np.arange(52, dtype=np.uint8),
                                                                   np.random.default_rng(9), 9_999, 4)))
    pieces = np.concatenate([sample_block(5, 777 + start, min(256, 50_001 - start)) for start in range(0, 50_001, 256)])
    for sample, dealt in answers:
        assert np.array_equal(sample, answers[0][0]) and np.array_equal(dealt, answers[0][1])
        assert np.array_equal(sample, pieces)


def test_several_seeded_streams_are_each_seeds_deals_on_any_threads():
    """dealing.deal_seeded (a GPU job's blocks of deals at once), the streams in parts on the pool: each stream's
    deals are deal_from's of its seed alone, in order, on one thread and on all."""
    rest = np.setdiff1d(np.arange(52, dtype=np.uint8), [0, 13, 26, 51])
    seeds = [[7, index] for index in range(11)]
    counts = [500, 1, 0, 333, 500, 500, 2, 500, 77, 500, 499]
    alone = np.concatenate([deal_from(rest, np.random.default_rng(seed), count, 3)
                            for seed, count in zip(seeds, counts)])
    for threads in sorted({1, MOST}):
        with numba_threads(threads):
            assert np.array_equal(deal_seeded(rest, seeds, counts, 3), alone)


def test_a_build_and_a_bonus_solve_do_not_depend_on_the_threads(monkeypatch):
    """A build's certificates, searches and learning sums, and the solver's scoring bonus, all in parts on the
    pool (small parts here, so that a small build has many): the same tables (with near-best lists, kept splits
    and the card-removal correction) and the same solve under 2-4 on one thread and on all."""
    import cpoker.jobs.nearbest
    import cpoker.jobs.removal_learning
    import cpoker.jobs.solve
    from cpoker import solve
    from cpoker.jobs.selfplay import build_tables

    for module, name, size in [(cpoker.jobs.nearbest, "CERTIFIED_PART", 100),
                               (cpoker.jobs.removal_learning, "DEALS_PART", 50),
                               (cpoker.jobs.removal_learning, "STRENGTHS_PART", 64),
                               (cpoker.jobs.solve, "BONUS_PART", 16)]:
        monkeypatch.setattr(module, name, size)

    answers = []
    for threads in sorted({1, MOST}):
        with numba_threads(threads):
            tables = build_tables(hands=3_000, seed=8, max_iterations=8, tolerance=0.0, removal_deals=2_000,
                                  removal_rounds=1, chunk=1_000)
            solved = solve("As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s", samples=3_000, seed=4, rules="2-4")
        answers.append((tables.fingerprint, tables.iterations, str(solved.best), solved.ev,
                        repr(solved.alternatives)))
    assert all(answer == answers[0] for answer in answers)
    assert answers[0][1] == 8
