import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import cpoker
from cpoker import Card, CardError, parse_cards
from cpoker.game.cards import cards_mask, deal, format_cards, mask_cards
from cpoker.game.dealing import deal_from


@pytest.mark.parametrize("text", ["As Kd Th 9c", "AS,KD,TH,9C", "as kd 10h 9c", "A♠ K♦ T♥ 9♣",
                                  "AsKdTh9c", "A♠️ K♦ 10♥ 9♣", " As ,  Kd ; Th 9c "])
def test_parse_accepts_every_documented_spelling(text):
    assert format_cards(parse_cards(text), sort=False) == "As Kd Th 9c"


def test_card_ids_and_masks_follow_the_documented_layout():
    ace_spades, two_clubs = Card.parse("As"), Card.parse("2c")
    assert (int(ace_spades), int(two_clubs)) == (12, 39)
    assert ace_spades.rank == 12 and ace_spades.suit == 0
    assert cards_mask([ace_spades, two_clubs]) == (1 << 12) | (1 << 39)
    assert mask_cards(cards_mask(range(52))) == cpoker.game.cards.FULL_DECK


def test_card_str_repr_symbol():
    card = Card("10h")
    assert str(card) == "Th" and repr(card) == "Card('Th')" and card.symbol() == "T♥"
    assert format_cards(parse_cards("2s Ah Kd"), symbols=True) == "A♥ K♦ 2♠"


@given(st.lists(st.integers(0, 51), min_size=1, max_size=13, unique=True))
def test_format_then_parse_round_trips(ids):
    cards = tuple(Card(i) for i in ids)
    assert parse_cards(format_cards(cards, sort=False)) == cards
    assert parse_cards(format_cards(cards, symbols=True, sort=False)) == cards


_RANK_SPELLINGS = [*"23456789TJQKAtjqka", "10"]
_SUIT_SPELLINGS = [*"shdcSHDC♠♥♦♣♤♡♢♧", "♠\ufe0f"]
_GAPS = [" ", "  ", ",", ", ", ";", "\t", "\n", "\u00a0", "\u3000", ""]


@settings(max_examples=300)
@given(st.lists(st.tuples(st.sampled_from(_RANK_SPELLINGS), st.sampled_from(_SUIT_SPELLINGS),
                          st.sampled_from(_GAPS)), max_size=15),
       st.sampled_from(["", " ", "\n"]))
def test_plain_text_reads_as_the_general_reader_reads_it(tokens, edge):
    """The dictionary path for plain text (cards.py ``_plain_cards``) gives what the general reader gives, and
    leaves every other text, errors included, to it: random spellings, separators and duplicates."""
    from cpoker.game.cards import _split_tokens

    text = edge + "".join(rank + suit + gap for rank, suit, gap in tokens) + edge
    try:
        expected = [Card.parse(token) for token in _split_tokens(text)]
        if len(set(expected)) < len(expected):
            raise CardError("duplicate")
    except CardError:
        with pytest.raises(CardError):
            parse_cards(text)
        return
    assert parse_cards(text) == tuple(expected)
    assert all(type(card) is Card for card in parse_cards(text))


@pytest.mark.parametrize("text, fragment", [
    ("As Xd", "unknown rank 'X' in card 'Xd'"),
    ("As Kx", "unknown suit 'x' in card 'Kx'"),
    ("As K", "missing suit in card 'K'"),
    ("As 11h", "unknown rank '1' in card '11h'"),
    ("As Kd As", "duplicate card As"),
])
def test_parse_errors_name_the_offending_token(text, fragment):
    with pytest.raises(CardError, match=fragment):
        parse_cards(text)


def test_card_error_is_a_value_error_and_counts_are_checked():
    assert issubclass(CardError, ValueError)
    with pytest.raises(CardError, match="expected 13 cards, got 2"):
        parse_cards("As Kd", count=13)
    with pytest.raises(CardError, match="outside 0..51"):
        Card(52)
    with pytest.raises(CardError, match="cannot read"):
        parse_cards([1.5])


def test_deal_is_seeded_and_uses_distinct_cards():
    first, again, other = deal(4, seed=7), deal(4, seed=7), deal(4, seed=8)
    assert first == again and first != other
    cards = [c for hand in first for c in hand]
    assert len(cards) == 52 == len(set(cards)) and all(len(h) == 13 for h in first)
    with pytest.raises(cpoker.OptionError):
        deal(5)


def test_import_is_lazy():
    import subprocess
    import sys

    code = "import sys, cpoker; cpoker.CardError; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_public_api_names_resolve():
    import pkgutil

    for module in pkgutil.iter_modules(cpoker.__path__):  # a submodule must never shadow an exported name
        if module.name != "__main__":
            __import__(f"cpoker.{module.name}")

    for name in cpoker.__all__:
        assert getattr(cpoker, name) is not None
    with pytest.raises(AttributeError):
        cpoker.no_such_thing  # noqa: B018
    assert np.asarray(parse_cards("As Kd")).tolist() == [12, 37]
    for name in cpoker.__all__:  # a function or class, but the namespaces of a game (cpoker.ofc.settle)
        assert (type(getattr(cpoker, name)).__name__ == "module") == (name == "ofc"), name


def numpy_deal_from(rest, rng, count, hands):
    """The definition of a deal: a stable argsort of one double per card, 13 cards to each hand in turn."""
    order = np.argsort(rng.random((count, len(rest))), axis=1, kind="stable")
    return np.sort(rest[order[:, :13 * hands]].reshape(count, hands, 13), axis=2)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), size=st.integers(13, 52), hands=st.integers(1, 4),
       count=st.sampled_from([0, 1, 7, 500, 1025, 3000]), buffered=st.booleans(), data=st.data())
def test_deals_are_numpys_stable_argsort_and_leave_the_generator_where_numpy_would(seed, size, hands, count,
                                                                                    buffered, data):
    """The dealing kernel steps PCG64 itself; the deals, their dtype and the generator afterwards are NumPy's."""
    hands = min(hands, size // 13)
    rest = np.sort(np.array(data.draw(st.permutations(range(52)))[:size]))
    ours, theirs = np.random.default_rng(seed), np.random.default_rng(seed)
    if buffered:  # a 32-bit draw leaves half a 64-bit output in the generator's buffer, which random() keeps
        ours.integers(0, 7, dtype=np.uint32)
        theirs.integers(0, 7, dtype=np.uint32)
    dealt, expected = deal_from(rest, ours, count, hands), numpy_deal_from(rest, theirs, count, hands)
    assert dealt.dtype == expected.dtype and np.array_equal(dealt, expected)
    assert ours.bit_generator.state == theirs.bit_generator.state
    assert np.array_equal(ours.integers(0, 2**31, 4, dtype=np.uint32), theirs.integers(0, 2**31, 4, dtype=np.uint32))


def test_deals_from_other_generators_take_numpys_path():
    rest = np.arange(52)
    dealt = deal_from(rest, np.random.Generator(np.random.MT19937(3)), 20, 4)
    assert np.array_equal(dealt, numpy_deal_from(rest, np.random.Generator(np.random.MT19937(3)), 20, 4))
