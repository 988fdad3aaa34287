"""The PettingZoo environment: PettingZoo's own API test, what a player may see, and hands that are exactly the
hands :func:`play_hand` plays for the same strategies and deck."""

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test  # noqa: E402

from cpoker import OptionError, StrategyError  # noqa: E402
from cpoker.game.dealing import derived_seed  # noqa: E402
from cpoker.game.ofc.hand import SEAT_CARDS, play_hand  # noqa: E402
from cpoker.strategies.ofc.heuristic import heuristic  # noqa: E402
from cpoker.game.ofc.rules import OfcRules  # noqa: E402
from cpoker.jobs.ofc.placement import options_of  # noqa: E402
from cpoker.rl.ofc_env import OfcEnv, decode, env  # noqa: E402


@pytest.mark.filterwarnings("ignore:Observation:UserWarning")
@pytest.mark.parametrize("rules, players", [("pineapple", 2), ("pineapple", 3), ("ofc", 2)])
def test_pettingzoo_api_test_passes(rules, players):
    api_test(env(rules, players), num_cycles=200, verbose_progress=False)


def random_strategy(view):
    """A uniformly random legal placement, seeded by the view."""
    options = options_of(view.board, view.cards, view.keep)
    return options[np.random.default_rng(view.seed).integers(len(options))][0]


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("players", [2, 3])
def test_strategies_play_through_the_environment_the_hand_play_hand_plays(seed, players):
    """A random agent and the heuristic: the same boards and points as :func:`play_hand` on the same deck."""
    strategies = [random_strategy, heuristic, random_strategy][:players]
    game = env("pineapple", players)
    game.reset(seed=seed)
    boards, rewards = {}, {}
    for agent in game.agent_iter():
        observation, reward, terminated, truncated, info = game.last()
        if terminated:
            boards[agent], rewards[agent] = info["board"], reward
            game.step(None)
            continue
        seat = game.possible_agents.index(agent)
        action = game.action_of(agent, strategies[seat](game.view(agent)))
        assert observation["action_mask"][action] == 1
        game.step(action)
    deck = np.argsort(np.random.default_rng(seed).random(52), kind="stable")
    record = play_hand(strategies, OfcRules.preset("pineapple"), deck[:SEAT_CARDS * players].tolist(),
                       [0] * players, lambda k, step: derived_seed(seed, k, step))
    assert [boards[a] for a in game.possible_agents] == [str(b) for b in record.boards]
    assert [rewards[a] for a in game.possible_agents] == list(record.settlement.results)
    assert sum(rewards.values()) == 0 and not game.agents


def test_observations_show_only_what_a_player_sees():
    game = env("pineapple", 2)
    game.reset(seed=5)
    first = game.agent_selection
    game.step(int(np.flatnonzero(game.observe(first)["action_mask"])[0]))
    second = game.agent_selection
    planes = game.observe(second)["observation"].reshape(-1, 52)
    own_cards = {int(c) for c in game.view(second).cards}
    assert {int(i) for i in np.flatnonzero(planes[3])} == own_cards and planes[:3].sum() == 0
    assert planes[5:8].sum() == 5  # the first player's five cards, placed
    game.step(int(np.flatnonzero(game.observe(second)["action_mask"])[0]))
    planes = game.observe(first)["observation"].reshape(-1, 52)
    assert planes[4].sum() == 0 and len(game.view(first).cards) == 3  # a Pineapple round: three to place
    assert game.observe(second)["action_mask"].sum() == 0  # not its turn
    mask = game.observe(first)["action_mask"]
    view = game.view(first)
    legal = {game.action_of(first, board) for board, _ in options_of(view.board, view.cards, view.keep)}
    assert legal == set(np.flatnonzero(mask).tolist()) and len(legal) <= 27
    assert decode(0, view.cards, 2)[0] == view.cards[:2]


def test_bad_settings_and_actions_are_refused():
    with pytest.raises(OptionError, match="2 or 3 players"):
        OfcEnv("pineapple", 4)
    game = env("ofc", 2)
    game.reset(seed=1)
    illegal = int(np.flatnonzero(game.observe(game.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(StrategyError, match="not legal"):
        game.step(illegal)


def test_a_random_agent_and_mc_through_the_environment_give_the_match_figures():
    """examples/rl/random_against_mc.py: the environment reset to a match's deals plays that match's hands."""
    import runpy
    from pathlib import Path

    from cpoker.jobs.ofc.match import match

    example = runpy.run_path(str(Path(__file__).resolve().parents[2] / "examples" / "rl" / "random_against_mc.py"))
    through_env = example["play"](3, 7, 4)
    played = match([example["random_strategy"], "mc:4"], hands=3, rules="pineapple", seed=7, session_hands=1)
    assert [through_env["random"] / 6, through_env["mc"] / 6] == [s.points for s in played.scores]
    assert through_env["random"] == -through_env["mc"]
