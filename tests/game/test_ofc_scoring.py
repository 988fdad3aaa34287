"""Open-face scoring: the library scores with the kernels the solvers use; a slow reference written from RULES.md
(tests/naive.py: its own hand strengths, the rules' tables read directly) settles the same boards the same way,
under the presets and under house rules of every kind (multipliers, scoops, Fantasyland entries, repeats, stays)."""

import numpy as np
from hypothesis import given, strategies as st
from naive import ofc_points, ofc_score

from cpoker.game.cards import Card
from cpoker.game.ofc.boards import Board
from cpoker.game.ofc.rules import FANTASYLAND_FRONTS, FIVE_CARD_HANDS, GAMES, RANK_LETTERS, STAY_CONDITIONS, OfcRules
from cpoker.game.ofc.scoring import row_results, score_board, settle


@st.composite
def house_rules(draw):
    """Rules of any kind the TOML takes: a preset's deal, with every table, entry and bonus drawn."""
    game = draw(st.sampled_from(GAMES))
    base = OfcRules.preset(game)
    units = st.integers(0, 60)
    pairs = draw(st.integers(0, 3))  # how many of QQ, KK, AA enter (from the smallest given up to AA)
    entering = list(FANTASYLAND_FRONTS[3 - pairs:3]) + (["trips"] if pairs or draw(st.booleans()) else [])
    royalties = {"front_pairs": draw(st.dictionaries(st.sampled_from(RANK_LETTERS), units, max_size=13)),
                 "front_trips": draw(st.dictionaries(st.sampled_from(RANK_LETTERS), units, max_size=13)),
                 "middle": draw(st.dictionaries(st.sampled_from(FIVE_CARD_HANDS), units, max_size=10)),
                 "back": draw(st.dictionaries(st.sampled_from(FIVE_CARD_HANDS), units, max_size=10))}
    return OfcRules(game=game, first_cards=base.first_cards, round_cards=base.round_cards,
                    round_places=base.round_places,
                    fantasyland=tuple((front, draw(st.integers(13, 17))) for front in entering),
                    fantasyland_repeat=draw(st.one_of(st.none(), st.integers(13, 17))),
                    stay=tuple(draw(st.lists(st.sampled_from(STAY_CONDITIONS), unique=True))),
                    royalties=royalties, scoop=draw(st.integers(0, 6)), royalty_multiplier=draw(st.integers(1, 3)))


def boards_of(seed: int, players: int, ordered: list) -> list:
    """``players`` boards of distinct cards: dealt at random, or (``ordered``) the strongest ranks at the back so
    that most do not foul."""
    cards = np.random.default_rng(seed).permutation(52)
    boards = []
    for k in range(players):
        ids = [int(c) for c in cards[13 * k:13 * (k + 1)]]
        if ordered[k]:
            ids.sort(key=lambda c: c % 13)  # lowest ranks first: the front, then the middle, the highest at the back
        boards.append(Board(*(tuple(Card(c) for c in part) for part in (ids[:3], ids[3:8], ids[8:]))))
    return boards


def test_the_boards_drawn_cover_fouls_royalties_and_fantasylands():
    """(What the property above draws reaches every case it compares.)"""
    rules = OfcRules.preset("progressive")
    scores = [score_board(board, rules) for seed in range(300) for board in boards_of(seed, 3, [True, True, False])]
    assert any(s.fouled for s in scores) and any(not s.fouled and s.total for s in scores)
    assert any(s.fantasyland for s in scores)


@given(rules=house_rules(), seed=st.integers(0, 2**32), players=st.integers(2, 3),
       ordered=st.lists(st.booleans(), min_size=3, max_size=3), flags=st.lists(st.booleans(), min_size=3, max_size=3))
def test_the_kernel_settlement_is_the_reference_under_house_rules(rules, seed, players, ordered, flags):
    boards = boards_of(seed, players, ordered)
    settled = settle(boards, rules, flags[:players])
    expected = [ofc_score(tuple([int(c) for c in row] for row in board.rows), rules, flag)
                for board, flag in zip(boards, flags)]
    for scored, reference in zip(settled.boards, expected):
        assert scored.royalties == reference["royalties"] and scored.fouled == reference["fouled"]
        assert scored.fantasyland == reference["fantasyland"] and scored.stays == reference["stays"]
    for i in range(players):
        for j in range(players):
            if i != j:
                assert settled.matrix[i][j] == ofc_points(expected[i], expected[j], rules)
                if not expected[i]["fouled"] and not expected[j]["fouled"]:
                    assert row_results(settled.boards[i], settled.boards[j]) == tuple(
                        (x > y) - (x < y) for x, y in zip(expected[i]["strengths"], expected[j]["strengths"]))
    assert sum(settled.results) == 0


def test_the_reference_and_the_library_agree_on_the_worked_examples():
    """RULES.md's examples: QQ 7 + middle flush 8 + back full house 6 = 21; JJ 6 + full house 6 = 12."""
    rules = OfcRules.preset("pineapple")
    for text, total in (("Qh Qd 2c / 5s 6s 7s 8s Ts / Ah Ad Ac Kd Ks", 21),
                        ("Jh Jd 3c / 2s 2h 4d 4c 6d / Th Td Tc 9h 9d", 12)):
        board = Board.parse(text)
        assert score_board(board, rules).total == total == sum(
            ofc_score(tuple([int(c) for c in row] for row in board.rows), rules)["royalties"])
