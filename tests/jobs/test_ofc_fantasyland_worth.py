"""What Fantasyland is worth: the simulation's hands replayed through the library's own solver and settlement."""

import json

import numpy as np
import pytest

from cpoker import OptionError
from cpoker._kernels.ofc_policy import complete_board
from cpoker.cli import main
from cpoker.game.cards import Card, mask_cards
from cpoker.game.ofc.boards import Board
from cpoker.strategies.ofc.fantasyland import fantasyland
from cpoker.strategies.ofc.rollout_policy import DEFAULT_FANTASYLAND_VALUE, policy_model, policy_weights
from cpoker.game.ofc.rules import OfcRules
from cpoker.game.ofc.scoring import settle
from cpoker.jobs.ofc.fantasyland_worth import BLOCK, fantasyland_worth


@pytest.mark.parametrize("preset", [pytest.param("ofc", marks=pytest.mark.slow), "pineapple"])
def test_the_hands_are_the_solver_against_the_policy_settled(preset):
    """One block of hands, replayed: the Fantasyland set by :func:`fantasyland` (royalties), the opponent by the
    rollout policy from the next cards (the static one, the default opponent), both settled by :func:`settle`; V
    is their mean over 1 - the stay rate."""
    rules = OfcRules.preset(preset)
    worth = fantasyland_worth(rules, hands=120, seed=5, jobs=1)
    size = worth.cards
    rng = np.random.default_rng([5, 0])
    decks = np.argsort(rng.random((120, 52)), axis=1, kind="stable")[:, :size + rules.cards_per_player]
    points, stays = [], []
    weights = policy_weights(DEFAULT_FANTASYLAND_VALUE[preset])
    for deck in decks:
        best = fantasyland([Card(int(c)) for c in deck[:size]], rules, "royalties")
        rows = complete_board(0, 0, 0, deck.astype(np.int64), size, rules.first_cards, rules.round_cards,
                              rules.round_places, rules.kernel_rules(), weights, policy_model(rules, "static"))[:3]
        theirs = Board(*(mask_cards(int(mask)) for mask in rows))
        points.append(settle([best.board, theirs], rules).results[0])
        stays.append(best.stays)
    assert worth.hands == 120 and worth.cards == (13 if preset == "ofc" else 14) and BLOCK >= 120
    assert worth.mean_points == pytest.approx(np.mean(points)) and worth.stay_rate == pytest.approx(np.mean(stays))
    assert worth.value == pytest.approx(np.mean(points) / (1 - np.mean(stays)))
    assert worth.interval[0] < worth.value < worth.interval[1]


def test_the_default_values_are_within_a_measure_of_the_simulation():
    """The shipped defaults are the simulation's (20,000 hands); 2,000 hands land within their interval's reach."""
    worth = fantasyland_worth("pineapple", hands=2000, seed=1)
    low, high = worth.interval
    spread = high - low
    assert low - spread < DEFAULT_FANTASYLAND_VALUE["pineapple"] < high + spread


def test_the_command_and_its_errors(capsys):
    assert main(["ofc", "fantasy-worth", "--rules", "pineapple", "--hands", "60", "--seed", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["hands"] == 60 and data["seed"] == 2 and data["cards"] == 14 and data["interval"][0] < data["value"]
    assert main(["ofc", "fantasy-worth", "--hands", "60", "--seed", "2"]) == 0
    assert "a Fantasyland of 13 cards (ofc) is worth" in capsys.readouterr().out
    with pytest.raises(SystemExit) as refused:
        main(["ofc", "fantasy-worth", "--hands", "1"])
    assert refused.value.code == 2 and "--hands: must be 2 to" in capsys.readouterr().err
    with pytest.raises(OptionError, match="cards must be 13 to 17"):
        fantasyland_worth("ofc", hands=10, cards=12)


def test_a_stay_dealt_another_size_counts_the_repeats_worth():
    """Progressive: a 17-card Fantasyland that stays is dealt 14 cards (the repeat), so V = m + p V_14, the
    repeat measured on its own deals; the default values of each size are this measure's (20,000 hands)."""
    from cpoker.strategies.ofc.rollout_policy import DEFAULT_FANTASYLAND_VALUES

    worth = fantasyland_worth("progressive", hands=1000, seed=3, cards=17)
    repeat = worth.repeat
    assert repeat is not None and repeat.cards == 14 and repeat.repeat is None and repeat.hands == 1000
    assert repeat.seed != worth.seed
    assert worth.value == pytest.approx(worth.mean_points + worth.stay_rate * repeat.value)
    assert worth.interval[0] < worth.value < worth.interval[1]
    low, high = worth.interval
    assert low - (high - low) < DEFAULT_FANTASYLAND_VALUES["progressive"][17] < high + (high - low)
    data = worth.to_dict()
    assert data["repeat"]["cards"] == 14 and json.loads(json.dumps(data))["value"] == worth.value
    assert fantasyland_worth("progressive", hands=200, seed=3).repeat is None  # 14 stays 14
