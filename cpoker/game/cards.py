"""Cards as small integers and sets of cards as 64-bit masks.

A card id is ``13 * suit + rank`` with ranks ``0..12`` for ``2..A`` and suits
``0..3`` for spades, hearts, diamonds, clubs.  The mask of a set of cards has
bit ``id`` set for each card, so ``(mask >> 13 * suit) & 0x1FFF`` is the
13-bit rank set of one suit: the layout the evaluation kernels are built on.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Union

import numpy as np

from cpoker.system.errors import CardError
from cpoker.system.limits import check_int, check_seed

RANKS = "23456789TJQKA"
SUITS = "shdc"
SUIT_SYMBOLS = "♠♥♦♣"
RANK_NAMES = ("two", "three", "four", "five", "six", "seven", "eight", "nine",
              "ten", "jack", "queen", "king", "ace")
RANK_PLURALS = ("twos", "threes", "fours", "fives", "sixes", "sevens", "eights",
                "nines", "tens", "jacks", "queens", "kings", "aces")
DECK_SIZE = 52

_RANK_OF = {r: i for i, r in enumerate(RANKS)} | {"10": 8}
_SUIT_OF = {s: i for i, s in enumerate(SUITS)} | {s: i for i, s in enumerate(SUIT_SYMBOLS)}
# U+FE0F (emoji presentation) may follow a suit symbol pasted from a phone
# ASCII-only case folding: without re.ASCII, IGNORECASE also matches look-alikes such as the
# KELVIN SIGN (U+212A) for k and the long s (U+017F) for s; text is NFKC-normalised first instead
_TOKEN = re.compile(r"(10|[2-9TJQKA])([SHDC\u2660\u2665\u2666\u2663])\ufe0f?", re.IGNORECASE | re.ASCII)
_SUIT_SYMBOL_ALIASES = str.maketrans("\u2664\u2661\u2662\u2667", "\u2660\u2665\u2666\u2663")  # white suits
MAX_CARD_TEXT = 10_000  # characters: a hand is ~40; anything longer is not a list of cards
_SEPARATORS = re.compile(r"[\s,;]+")


class Card(int):
    """One playing card: an ``int`` id in ``0..51`` that prints as ``As``.

    >>> Card.parse("Kd"), Card.parse("10h").rank_char
    (Card('Kd'), 'T')
    """

    __slots__ = ()

    def __new__(cls, value: "int | str | Card") -> "Card":
        if isinstance(value, str):
            return cls.parse(value)
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise CardError(f"a card id is a whole number 0..51 or a string such as 'As', got {value!r}")
        ident = int(value)
        if not 0 <= ident < DECK_SIZE:
            raise CardError(f"card id {value!r} is outside 0..51")
        return super().__new__(cls, ident)

    @classmethod
    def from_rank_suit(cls, rank: int, suit: int) -> "Card":
        """The card of ``rank`` (0 = two .. 12 = ace) and ``suit`` (0..3, ``shdc``)."""
        for name, value, high in (("rank", rank, 12), ("suit", suit, 3)):
            whole = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
            if not whole or not 0 <= value <= high:
                raise CardError(f"{name} must be a whole number 0..{high}, got {value!r}")
        return cls(13 * suit + rank)

    @classmethod
    def parse(cls, token: str) -> "Card":
        """Parse one card such as ``As``, ``10h``, ``kD`` or ``A♠``."""
        if not isinstance(token, str):
            raise CardError(f"a card is a string such as 'As', got {token!r}")
        token = normalize_text(token)
        match = _TOKEN.fullmatch(token.strip())
        if match is None:
            raise CardError(_explain_bad_token(token))
        rank, suit = match.group(1).upper(), match.group(2).lower()
        return cls.from_rank_suit(_RANK_OF[rank], _SUIT_OF[suit])

    @property
    def rank(self) -> int:
        return int(self) % 13

    @property
    def suit(self) -> int:
        return int(self) // 13

    @property
    def mask(self) -> int:
        return 1 << int(self)

    @property
    def rank_char(self) -> str:
        return RANKS[self.rank]

    def symbol(self) -> str:
        """The card with a suit symbol, e.g. ``A♠``."""
        return RANKS[self.rank] + SUIT_SYMBOLS[self.suit]

    def __str__(self) -> str:
        return RANKS[self.rank] + SUITS[self.suit]

    def __repr__(self) -> str:
        return f"Card('{self}')"


CardsLike = Union[str, Card, int, Iterable[Union[str, Card, int]]]
FULL_DECK: tuple[Card, ...] = tuple(Card(i) for i in range(DECK_SIZE))


def normalize_text(text: str) -> str:
    """NFKC-normalised text (full-width letters, ligatures, look-alikes folded), white suits as black."""
    return unicodedata.normalize("NFKC", text).translate(_SUIT_SYMBOL_ALIASES)


def _character_name(char: str) -> str:
    code = f"U+{ord(char):04X}"
    name = unicodedata.name(char, "")
    return f"{char!r} ({code} {name})" if name else f"{code}"


def _explain_bad_token(token: str) -> str:
    text = token.strip()
    if not text:
        return "empty card token"
    if len(text) > 40:
        text = text[:37] + "..."
    for char in text:
        if not (char.isascii() and char.isprintable()) and char not in SUIT_SYMBOLS + "\ufe0f":
            return f"unknown character {_character_name(char)} in card {text!r}"
    rank, suit = (text[:2], text[2:]) if text[:2] == "10" else (text[:1], text[1:])
    if rank.upper() not in _RANK_OF:
        return f"unknown rank {rank!r} in card {text!r} (ranks are 2-9, T or 10, J, Q, K, A)"
    if suit.lower().rstrip("\ufe0f") not in _SUIT_OF:
        what = "missing suit" if not suit else f"unknown suit {suit!r}"
        return f"{what} in card {text!r} (suits are s h d c or ♠ ♥ ♦ ♣)"
    return f"cannot read card {text!r}"


def _split_tokens(text: str) -> list[str]:
    if len(text) > MAX_CARD_TEXT:
        raise CardError(f"card text of {len(text):,} characters is too long to be a list of cards")
    text = normalize_text(text)
    tokens: list[str] = []
    for chunk in _SEPARATORS.split(text.strip()):
        if not chunk:
            continue
        # allow run-together cards such as "AsKdTh"
        pieces = _TOKEN.findall(chunk)
        if pieces and "".join(r + s for r, s in pieces).lower() == chunk.lower().replace("\ufe0f", ""):
            tokens.extend(r + s for r, s in pieces)
        else:
            tokens.append(chunk)
    return tokens


def parse_cards(cards: CardsLike, count: int | None = None, unique: bool = True) -> tuple[Card, ...]:
    """Read cards from text (``"As Kd 10h"``, ``"AS,KD"``, ``"A♠ K♥"``) or from cards/ids.

    Parameters
    ----------
    cards
        A string of cards separated by spaces or commas (or run together),
        a single card, or an iterable of cards, ids or card strings.
    count
        If given, the exact number of cards required.
    unique
        Reject a card given twice (the default).

    Raises
    ------
    CardError
        On an unknown rank or suit, a duplicated card or a wrong count; the
        message names the offending token.
    """
    if isinstance(cards, np.ndarray) and cards.ndim == 1 and cards.dtype.kind in "ui" and len(cards) <= DECK_SIZE:
        ids = cards.tolist()  # the fast path for card ids from the kernels: one range check, no per-item dispatch
        if ids and not (0 <= min(ids) and max(ids) < DECK_SIZE):
            raise CardError(f"card id {min(ids) if min(ids) < 0 else max(ids)} is outside 0..51")
        parsed = [CARDS[i] for i in ids]
    elif isinstance(cards, str):
        plain = _plain_cards(cards)
        parsed = [Card.parse(token) for token in _split_tokens(cards)] if plain is None else plain
    elif isinstance(cards, (int, np.integer)) and not isinstance(cards, (bool, np.bool_)):
        parsed = [Card(cards)]
    elif isinstance(cards, (bytes, bytearray, dict)) or not isinstance(cards, Iterable):
        raise CardError(f"cannot read {short_repr(cards)} as cards: give text such as 'As Kd Th' or card ids")
    else:
        parsed = []
        for item in cards:
            if isinstance(item, str):
                parsed.extend(Card.parse(token) for token in _split_tokens(item))
            elif isinstance(item, (int, np.integer)) and not isinstance(item, (bool, np.bool_)):
                parsed.append(Card(item))
            else:
                raise CardError(f"cannot read {short_repr(item)} as a card")
            if len(parsed) > DECK_SIZE:
                raise CardError(f"more than {DECK_SIZE} cards given")
    if unique:
        seen: set[int] = set()
        for card in parsed:
            if card in seen:
                raise CardError(f"duplicate card {card}")
            seen.add(card)
    if count is not None and len(parsed) != count:
        raise CardError(f"expected {count} cards, got {len(parsed)}: {format_cards(parsed) or 'none'}")
    return tuple(parsed)


CARDS = tuple(int.__new__(Card, i) for i in range(DECK_SIZE))  # every Card, by id: built once

# Every token that plain text writes a card as ("As", "as", "AS", "10h", "A♠"): what Card.parse makes of each
_PLAIN_TOKENS = {rank + suit: CARDS[13 * _SUIT_OF[suit.lower()] + _RANK_OF[rank.upper()]]
                 for rank in [*RANKS, *RANKS.lower(), "10"] for suit in [*SUITS, *SUITS.upper(), *SUIT_SYMBOLS]}


def _plain_cards(text: str) -> "list[Card] | None":
    """The cards of text made only of plain tokens between spaces, or ``None`` for anything else.

    The common case at a dictionary lookup per card, many times cheaper than the general reader
    (:func:`_split_tokens` and :meth:`Card.parse`); any other text, and every error, goes the general way.
    """
    if len(text) > MAX_CARD_TEXT:
        return None
    tokens = text.split()
    try:
        return [_PLAIN_TOKENS[token] for token in tokens]
    except KeyError:
        return None


def short_repr(value: object, width: int = 40) -> str:
    """``repr(value)``, cut to ``width`` characters: a value quoted in an error message."""
    text = repr(value)
    return text if len(text) <= width else text[:width - 3] + "..."


def format_cards(cards: Iterable[int], symbols: bool = False, sort: bool = True) -> str:
    """Canonical text of cards: ``As Kd Th``, strongest rank first unless ``sort=False``."""
    items = [Card(c) for c in cards]
    if sort:
        items.sort(key=lambda c: (-c.rank, c.suit))
    return " ".join(c.symbol() if symbols else str(c) for c in items)


def cards_mask(cards: Iterable[int]) -> int:
    """The 64-bit mask of a set of card ids."""
    mask = 0
    for card in cards:
        mask |= 1 << int(card)
    return mask


def mask_cards(mask: int) -> tuple[Card, ...]:
    """The cards whose bits are set in ``mask``, in id order."""
    return tuple(Card(i) for i in range(DECK_SIZE) if (mask >> i) & 1)


def deal(players: int = 4, seed: "int | np.random.Generator | None" = None) -> list[tuple[Card, ...]]:
    """Deal 13 cards to each of 2-4 players from a shuffled deck (seeded: same seed, same deal).

    Each hand is sorted strongest rank first.
    """
    players = check_int("players", players, 2, 4, " (a deal has 2 to 4 players)")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(check_seed(seed))
    order = rng.permutation(DECK_SIZE)
    return [tuple(sorted((Card(int(c)) for c in order[13 * p:13 * p + 13]), key=lambda c: (-c.rank, c.suit)))
            for p in range(players)]
