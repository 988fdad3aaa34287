import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from helpers import random_hands
from naive import non_fouling_splits

from cpoker import Arrangement, ArrangementError, CardError, arrangements, is_foul, parse_cards
from cpoker._kernels.subsets import count_valid_splits
from cpoker.game.arrangements import parse_hand
from cpoker.game.lookup_tables import N_SPLITS, split_tables

EDGE_HANDS = {
    "quads": "As Ad Ah Ac Ks Kd 7h 7c 5s 4d 3h 2c 9s",
    "five of a suit": "As Ks 9s 5s 2s Qd Jd Th 8c 7c 6h 4d 3c",
    "all one suit": "As Ks Qs Js Ts 9s 8s 7s 6s 5s 4s 3s 2s",
    "dragon": "As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s",
    "four trips": "As Ad Ah Ks Kd Kh Qs Qd Qh Js Jd Jh 2c",
    "six pairs": "As Ad Ks Kd Qs Qd Js Jd Ts Td 9s 9d 2c",
}


def test_split_tables_are_every_split_once_ordered_by_back_then_middle():
    """Against the plain enumeration: each back (in lexicographic order), each middle from the 8 positions it
    leaves (lexicographic), the 3 left over as the front."""
    from itertools import combinations

    t = split_tables()
    assert t.subsets5.shape == (1287, 5) and t.subsets3.shape == (286, 3) and t.splits.shape == (N_SPLITS, 3)
    assert t.subsets5.tolist() == [list(c) for c in combinations(range(13), 5)]
    assert t.subsets3.tolist() == [list(c) for c in combinations(range(13), 3)]
    expected = []
    for back in combinations(range(13), 5):
        left = [p for p in range(13) if p not in back]
        for middle in combinations(left, 5):
            expected.append((back, middle, tuple(p for p in left if p not in middle)))
    got = [(tuple(t.subsets5[b]), tuple(t.subsets5[m]), tuple(t.subsets3[f])) for b, m, f in t.splits.tolist()]
    assert got == [tuple(map(tuple, split)) for split in expected]
    assert (t.middles == t.splits[:, 1]).all() and (t.fronts == t.splits[:, 2]).all()


@pytest.mark.parametrize("name", sorted(EDGE_HANDS))
def test_enumeration_matches_slow_reference_on_edge_hands(name):
    check_against_reference(parse_cards(EDGE_HANDS[name]))


@pytest.mark.parametrize("seed", range(4))
def test_enumeration_matches_slow_reference_on_random_hands(seed):
    check_against_reference(random_hands(1, seed)[0])


def check_against_reference(hand):
    found = arrangements(hand)
    expected = non_fouling_splits([int(c) for c in hand])
    got = {(frozenset(a.front), frozenset(a.middle), frozenset(a.back)) for a in found}
    assert len(found) == len(expected) and got == expected
    assert not any(a.is_foul for a in found[:50])
    assert np.all(found.back_keys >= found.middle_keys) and np.all(found.middle_keys >= found.front_keys)


def test_typical_counts_of_non_fouling_splits():
    t = split_tables()
    counts = count_valid_splits(random_hands(200, 9), t.subsets5, t.subsets3, t.middles, t.fronts)
    assert 20_000 <= np.median(counts) <= 24_000 and counts.max() < N_SPLITS
    assert len(arrangements(EDGE_HANDS["all one suit"])) == N_SPLITS // 2  # flush keys are all distinct


def test_arrangements_object_is_a_sequence():
    found = arrangements(EDGE_HANDS["dragon"])
    assert len(found[:3]) == 3 and found[0] == next(iter(found)) and "non-fouling" in repr(found)
    assert found.split_ids.dtype == np.int32 and len(found.front_keys) == len(found)


@pytest.mark.parametrize("rows, reason", [
    (("2s 2h Ad", "7c 7d 9s 5h 3d", "Tc Jc Qc Kc Ac"), None),
    (("2s 2h Ad", "Tc Jc Qc Kc Ac", "7c 7d 9s 5h 3d"), "back (pair of sevens, nine, five and three kickers) "
                                                       "is weaker than middle (royal flush)"),
    (("As Ad Kc", "Qs Qd 5c 4h 3s", "Ks Kd 8h 7s 2c"), "middle (pair of queens, five, four and three kickers) "
                                                       "is weaker than front (pair of aces, king kicker)"),
    (("Ks Kh 5d", "Kc Kd 5c 4h 3s", "As Ad Ah 2c 2d"), None),  # docs/rules.md §04: the middle is stronger
])
def test_foul_reasons(rows, reason):
    arrangement = Arrangement(*rows)
    assert arrangement.foul_reason == reason and arrangement.is_foul == (reason is not None)
    assert is_foul(*rows) == (reason is not None)


MISSET = [
    (("2s 2h", "7c 7d 9s 5h 3d", "Tc Jc Qc Kc Ac"), "wrong count: front has 2 cards, needs 3"),
    (("2s 2h Ad", "7c 7d 9s 5h 3d 4d", "Tc Jc Qc Kc Ac"), "wrong count: middle has 6 cards, needs 5"),
    (("2s 2h Ad", "7c 7d 9s 5h 3d", "Tc Jc Qc Kc Ad"), "duplicate card Ad"),
    (("Ks Kh 5d", "Kc Kd 5c 4h 3s", "Ac Kd 5c 4h 3s"), "duplicate card Kd"),
]


@pytest.mark.parametrize("rows, reason", MISSET)
def test_malformed_rows_are_errors_not_fouls(rows, reason):
    with pytest.raises(ArrangementError, match=reason):
        Arrangement(*rows)
    with pytest.raises(ArrangementError, match=reason):
        Arrangement.parse(" / ".join(rows))


@pytest.mark.parametrize("rows, reason", MISSET)
def test_misset_foul_applies_the_table_rule(rows, reason):
    """docs/rules.md §04: at the table a wrong count or a repeated card fouls; misset="foul" settles it so."""
    arrangement = Arrangement(*rows, misset="foul")
    assert arrangement.is_foul and arrangement.foul_reason == reason and arrangement.values is None
    with pytest.raises(ArrangementError, match="misset must be"):
        Arrangement(*rows, misset="maybe")


def test_equal_middle_and_front_do_not_foul():
    assert not is_foul("Ks Kh 5d", "Kc Kd 5c 4h 3s", "As Ad Ah 2c 2d")
    assert not Arrangement("2s 3s 4s", "2h 3h 4h 5h 6h", "2d 3d 4d 5d 6d").is_foul  # equal middle and back


def test_cards_outside_the_hand_are_an_error_or_a_table_foul():
    hand = "2s 2h Ad 7c 7d 9s 5h 3d Tc Jc Qc Kc Ac"
    assert not Arrangement("2s 2h Ad", "7c 7d 9s 5h 3d", "Tc Jc Qc Kc Ac", hand=hand).is_foul
    with pytest.raises(ArrangementError, match="card Ah is not in the hand"):
        Arrangement("2s 2h Ah", "7c 7d 9s 5h 3d", "Tc Jc Qc Kc Ac", hand=hand)
    outside = Arrangement("2s 2h Ah", "7c 7d 9s 5h 3d", "Tc Jc Qc Kc Ac", hand=hand, misset="foul")
    assert outside.foul_reason == "card Ah is not in the hand"


def test_parse_format_and_equality():
    a = Arrangement.parse("2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac")
    b = Arrangement.parse("Ad 2h 2s / 3d 5h 7c 7d 9s / Ac Kc Qc Jc Tc")
    assert a == b and hash(a) == hash(b) and str(a) == "Ad 2s 2h / 9s 7d 7c 5h 3d / Ac Kc Qc Jc Tc"
    assert eval(repr(a), {"Arrangement": Arrangement}) == a
    assert a.to_dict()["rows"]["back"]["description"] == "royal flush"
    with pytest.raises(ArrangementError, match="two '/'"):
        Arrangement.parse("2s 2h Ad / 7c 7d 9s 5h 3d")
    with pytest.raises(ArrangementError, match="cannot be evaluated"):
        Arrangement("2s", "7c", "Tc", misset="foul").back_value  # noqa: B018
    with pytest.raises(CardError, match="unknown suit"):
        Arrangement.parse("2s 2h Ax / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac")


@pytest.mark.parametrize("hand, message", [
    ("As Kd", "a hand has 13 cards, got 2"),
    ("As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s 2c", "a hand has 13 cards, got 14"),
    ("As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c As", "duplicate card As"),
])
def test_arrangements_rejects_bad_hands(hand, message):
    with pytest.raises(CardError, match=message):
        arrangements(hand)


@settings(max_examples=300, deadline=None)
@given(ids=st.lists(st.integers(-3, 55), min_size=11, max_size=14),
       dtype=st.sampled_from([np.uint8, np.int8, np.int16, np.uint16, np.int64]))
def test_a_hand_of_card_ids_in_an_array_reads_as_the_same_ids_in_a_list(ids, dtype):
    """``parse_hand``'s fast path for arrays (the kernels' output) answers, or refuses, exactly like the general one."""
    array = np.array(ids).astype(dtype)  # wraps out-of-range values as numpy does: the list below sees the same
    as_list = [int(i) for i in array]
    try:
        expected = parse_hand(as_list)
    except CardError:  # (the two may name different bad ids: the first, or the largest)
        with pytest.raises(CardError, match="outside 0..51|duplicate card|a hand has 13 cards"):
            parse_hand(array)
    else:
        got = parse_hand(array)
        assert got.dtype == np.uint8 and np.array_equal(got, expected) and list(got) == sorted(as_list)
