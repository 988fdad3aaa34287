"""Open-face strength and advice accuracy (issue 76): what docs/strategy-quality.md's open-face section reports.

    python benchmarks/ofc_strength.py strength --rules pineapple --hands 300 --seed 3
    python benchmarks/ofc_strength.py advice --rules pineapple --hands 12 --seed 5

``strength``: the new ``mc`` against 0.8.0's (``mc-flat``: every option 100 rollouts by the static policy),
duplicate heads-up (``cpoker.ofc.match``), with foul, Fantasyland and royalty rates; then the seconds a decision
each takes on one thread, on the same seeded hands (``--time-hands``), as a ratio.

``advice``: along seeded heads-up hands (both seats ``heuristic``), every decision out of Fantasyland of the first
seat is searched by the default ``place`` call, by ``mc`` and by ``mc-flat``; each choice's loss is the reference
search's best value minus the reference value of that choice, the reference a flat 10,000-rollout search
(``--reference``) on other deals (another seed).  Reports the mean loss a decision with its 95% interval, how
often each agrees with the reference's best, the openings' losses apart, and the default call's seconds at the
opening (all cores).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from cpoker.game.ofc.hand import OfcHand, seeded, table_deck
from cpoker.game.ofc.rules import OfcRules
from cpoker.jobs.ofc.match import match, resolve_ofc_strategy
from cpoker.jobs.ofc.placement import place
from cpoker.strategies.ofc.heuristic import heuristic


def interval(values: list) -> str:
    values = np.asarray(values, dtype=float)
    half = 1.96 * values.std(ddof=1) / np.sqrt(len(values)) if len(values) > 1 else float("nan")
    return f"{values.mean():+.4f} [{values.mean() - half:+.4f}, {values.mean() + half:+.4f}]"


def strength(args) -> dict:
    started = time.perf_counter()
    played = match([args.new, args.old], hands=args.hands, rules=args.rules, seed=args.seed, jobs=args.jobs)
    seconds = time.perf_counter() - started
    rows = {score.name: score.to_dict() for score in played.scores}
    for name, score in rows.items():
        print(f"{name:>10}: {score['points']:+.3f} {score['interval']} a hand, fouls {100 * score['foul_rate']:.1f}%, "
              f"enters Fantasyland {100 * score['fantasyland_entry_rate']:.1f}%, royalties {score['royalties']:.2f}")
    print(f"({args.hands} duplicate deals, {seconds:.0f} s)")
    if not args.time_hands:
        return {"match": played.to_dict()}
    timing = {}
    for name in (args.new, args.old):
        strategy = resolve_ofc_strategy(name)[1]
        decisions, spent = 0, 0.0
        for index in range(args.time_hands):
            hand = OfcHand(OfcRules.preset(args.rules), table_deck(1000 + index), [0, 0], seeded(1000 + index))
            while not hand.is_over:
                view = hand.view()
                from cpoker.jobs.job import numba_threads

                with numba_threads(1):
                    clock = time.perf_counter()
                    board = strategy(view)
                    spent += time.perf_counter() - clock
                decisions += 1
                hand.apply(board)
        timing[name] = spent / decisions
    ratio = timing[args.new] / timing[args.old]
    print(f"seconds a decision on one thread: {args.new} {timing[args.new]:.3f}, {args.old} {timing[args.old]:.3f}: "
          f"{ratio:.2f}x ({args.time_hands} hands each)")
    return {"match": played.to_dict(), "seconds_a_decision": timing, "time_ratio": ratio}


def advice(args) -> dict:
    rules = OfcRules.preset(args.rules)
    callers = {"place": lambda view: place(view.board, view.cards, rules, opponents=list(view.opponents),
                                           dead=view.discards, seed=view.seed, fantasylands=view.fantasyland_cards),
               "mc": lambda view: resolve_ofc_strategy("mc")[1](view),
               "mc-flat": lambda view: resolve_ofc_strategy("mc-flat")[1](view)}
    losses: dict = {name: [] for name in callers}
    agree: dict = {name: [] for name in callers}
    openings: dict = {name: [] for name in callers}
    opening_seconds = []
    for index in range(args.hands):
        seed = args.seed * 1_000_003 + index
        hand = OfcHand(rules, table_deck(seed), [0, 0], seeded(seed))
        while not hand.is_over:
            view = hand.view()
            if view.seat == 0 and not view.fantasyland:
                reference = place(view.board, view.cards, rules, opponents=list(view.opponents), dead=view.discards,
                                  samples=args.reference, seed=view.seed + 1, adaptive=False,
                                  fantasylands=view.fantasyland_cards)
                values = {str(option.board): option.ev for option in reference.options}
                for name, call in callers.items():
                    clock = time.perf_counter()
                    answer = call(view)
                    seconds = time.perf_counter() - clock
                    board = answer.best.board if name == "place" else answer
                    loss = reference.best.ev - values[str(board)]
                    losses[name].append(loss)
                    agree[name].append(str(board) == str(reference.best.board))
                    if not view.board.cards:
                        openings[name].append(loss)
                        if name == "place":
                            opening_seconds.append(seconds)
            hand.apply(heuristic(view))
        print(f"hand {index + 1}: " + ", ".join(f"{name} {np.mean(values):.4f}" for name, values in losses.items()),
              flush=True)
    report = {}
    for name in callers:
        report[name] = {"decisions": len(losses[name]), "loss": interval(losses[name]),
                        "agrees": float(np.mean(agree[name])), "opening_loss": interval(openings[name])}
        print(f"{name:>8}: loses {report[name]['loss']} a decision ({len(losses[name])} decisions), same best "
              f"{100 * report[name]['agrees']:.0f}%; openings {report[name]['opening_loss']}")
    report["opening_seconds"] = {"mean": float(np.mean(opening_seconds)), "max": float(np.max(opening_seconds))}
    print(f"the default place call at the opening: {np.mean(opening_seconds):.2f} s "
          f"(most {np.max(opening_seconds):.2f})")
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("study", choices=("strength", "advice"))
    parser.add_argument("--rules", default="pineapple")
    parser.add_argument("--hands", type=int, default=None)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--new", default="mc")
    parser.add_argument("--old", default="mc-flat")
    parser.add_argument("--time-hands", type=int, default=10)
    parser.add_argument("--reference", type=int, default=10_000)
    parser.add_argument("--out", default=None, help="write the figures as JSON")
    args = parser.parse_args()
    if args.hands is None:
        args.hands = 300 if args.study == "strength" else 12
    report = strength(args) if args.study == "strength" else advice(args)
    if args.out:
        with open(args.out, "w") as out:
            json.dump(report, out, indent=1)


if __name__ == "__main__":
    main()
