#!/usr/bin/env python3
"""A random agent against the ``mc`` strategy through cpoker's PettingZoo environment, and the same figures
from ``cpoker.ofc.match``: the environment plays the match's hands (docs/ofc.md).

    python examples/rl/random_against_mc.py --hands 20 --seed 1

Each deal is the first hand of a one-hand session of the match (so no Fantasyland carries), played twice with
the seats swapped, as a duplicate match plays it; the environment is reset to each with ``options={"match":
...}``.  An agent of your own goes where ``random_agent`` is: it sees the observation and the action mask only.
"""

import argparse

import numpy as np

from cpoker import ofc
from cpoker.jobs.ofc.placement import options_of
from cpoker.rl.ofc_env import env


def random_strategy(view):
    """A uniformly random legal placement, seeded by what the table gives the decision (as a strategy)."""
    options = options_of(view.board, view.cards, view.keep)
    return options[np.random.default_rng(view.seed).integers(len(options))][0]


def play(hands: int, seed: int, rollouts: int) -> dict:
    """Points of each strategy over ``hands`` duplicate deals, played through the environment."""
    from cpoker.jobs.ofc.match import resolve_ofc_strategy  # (mc:N as the match resolves it)

    strategies = {"random": random_strategy, "mc": resolve_ofc_strategy(f"mc:{rollouts}")[1]}
    points = {"random": 0, "mc": 0}
    game = env("pineapple")
    for session in range(hands):
        for copy, first in ((0, "mc"), (1, "random")):  # who sits first after the button in each duplicate copy
            seated = {"player_0": first, "player_1": "random" if first == "mc" else "mc"}
            game.reset(options={"match": {"seed": seed, "session": session, "copy": copy}})
            for agent in game.agent_iter():
                observation, reward, terminated, truncated, info = game.last()
                if terminated:
                    points[seated[agent]] += reward
                    game.step(None)
                    continue
                board = strategies[seated[agent]](game.view(agent))
                game.step(game.action_of(agent, board))
    return points


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rollouts", type=int, default=20)
    args = parser.parse_args()
    through_env = play(args.hands, args.seed, args.rollouts)
    played = ofc.match([random_strategy, f"mc:{args.rollouts}"], hands=args.hands, rules="pineapple",
                       seed=args.seed, session_hands=1)
    for score in played.scores:
        name = "random" if score.name == "random_strategy" else "mc"
        print(f"{name:>6}: {through_env[name] / (2 * args.hands):+.3f} a hand through the environment, "
              f"{score.points:+.3f} in cpoker.ofc.match")


if __name__ == "__main__":
    main()
