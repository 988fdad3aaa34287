"""A PettingZoo AEC environment of open-face Chinese poker (Pineapple by default, or plain OFC).

An episode is one hand of 2 or 3 players (no Fantasyland: a board that earns one says so in its ``infos``).
``player_0`` sits first after the button and acts first in every round; each player in turn places the cards
dealt to them, and the rewards, at the end of the hand, are the points each wins (:func:`cpoker.ofc.settle`).

**Actions** (``Discrete(243)`` in Pineapple and OFC): a decision's options numbered as
:func:`cpoker.jobs.placement.options_of` lists them.  The first five cards: ``sum(row_i * 3**(4 - i))``, the
row (0 front, 1 middle, 2 back) of each card in the order dealt.  A Pineapple round: ``kept * 9 + row_a * 3 +
row_b``, where ``kept`` numbers the pair of cards kept (``itertools.combinations`` of the three: 0 keeps the
first two) and ``row_a``, ``row_b`` are their rows.  An OFC round: the card's row.  ``action_mask`` marks the
legal ones (the rows with room).

**Observations** (what the acting player may see, as 0/1 card planes of 52, card id ``suit * 13 + rank``):
the player's front, middle and back, the cards dealt to place, the player's own discards, then each other
player's front, middle and back, in seat order after the player.  Other players' discards and the cards to
come are never shown.

Deals: ``reset(seed=s)`` shuffles the deck by ``numpy.random.default_rng(s)`` and seat ``k`` takes its cards
from ``deck[17 k:]`` in the order dealt, as :func:`cpoker.game.ofc.play.play_hand` deals them, so a strategy
played through the environment plays exactly the hand ``play_hand`` would (:meth:`OfcEnv.view` and
:meth:`OfcEnv.action_of` translate).
"""

from __future__ import annotations

import itertools
import math
from typing import Optional

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import AgentSelector

from cpoker.game.cards import Card
from cpoker.game.dealing import derived_seed, new_seed
from cpoker.game.ofc.boards import Board
from cpoker.game.ofc.play import SEAT_CARDS, OfcView, placed_board
from cpoker.game.ofc.rules import OfcRules, resolve_ofc_rules
from cpoker.game.ofc.scoring import settle
from cpoker.system.errors import OptionError, StrategyError

PLANES_OWN = 5  # front, middle, back, the cards to place, the discards
MAX_FIRST_CARDS = 6  # 3**6 actions at most in the first deal


def _decisions(rules: OfcRules) -> list:
    """``(dealt, kept)`` of each of a hand's decisions."""
    return [(rules.first_cards, rules.first_cards)] + [(rules.round_cards, rules.round_places)] * rules.rounds


def action_count(rules: OfcRules) -> int:
    """The size of the action space: the most options any decision numbers."""
    return max(math.comb(dealt, kept) * 3 ** kept for dealt, kept in _decisions(rules))


def decode(action: int, cards: tuple, kept: int) -> tuple:
    """``(kept cards, their rows)`` of ``action`` for ``cards`` dealt (see the module docstring)."""
    subsets = list(itertools.combinations(range(len(cards)), kept))
    subset, code = divmod(int(action), 3 ** kept)
    if subset >= len(subsets):
        raise StrategyError(f"action {action} is not an option of this decision")
    rows = [code // 3 ** (kept - 1 - i) % 3 for i in range(kept)]
    return tuple(cards[i] for i in subsets[subset]), tuple(rows)


class OfcEnv(AECEnv):
    """Open-face Chinese poker as a PettingZoo AEC environment (see the module docstring).

    Parameters
    ----------
    rules
        ``"pineapple"`` (default), ``"ofc"``, ``"progressive"``, :class:`~cpoker.ofc.OfcRules` or a TOML file.
    players
        2 (default) or 3.
    render_mode
        ``None`` or ``"ansi"`` (:meth:`render` returns the boards as text).
    """

    metadata = {"name": "cpoker_ofc_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, rules: "OfcRules | str | None" = "pineapple", players: int = 2,
                 render_mode: Optional[str] = None) -> None:
        super().__init__()
        self.rules = resolve_ofc_rules(rules)
        if players not in (2, 3) or players > self.rules.max_players:
            raise OptionError(f"the environment seats 2 or 3 players ({self.rules.name} deals "
                              f"{self.rules.max_players}), got {players!r}")
        if self.rules.first_cards > MAX_FIRST_CARDS:
            raise OptionError(f"a first deal of {self.rules.first_cards} cards has too many options to number "
                              f"(at most {MAX_FIRST_CARDS})")
        if render_mode not in (None, "ansi"):
            raise OptionError(f"render_mode is None or 'ansi', got {render_mode!r}")
        self.render_mode = render_mode
        self.possible_agents = [f"player_{k}" for k in range(players)]
        self.agents = self.possible_agents[:]
        self.actions = action_count(self.rules)
        planes = PLANES_OWN + 3 * (players - 1)
        self.observation_spaces = {agent: spaces.Dict({
            "observation": spaces.Box(low=0, high=1, shape=(planes * 52,), dtype=np.int8),
            "action_mask": spaces.Box(low=0, high=1, shape=(self.actions,), dtype=np.int8)})
            for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(self.actions) for agent in self.possible_agents}
        self._seed = 0
        self._path: tuple = ()
        self._boards: list = []
        self._discards: list = []
        self._cards: list = []
        self._dealt: list = []
        self._step = 0

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> None:
        """A new hand.  ``options={"match": {"seed": s, "session": i, "table": t}}`` deals the first hand of
        session ``i`` of ``cpoker.ofc.match(..., seed=s, session_hands=1)`` at its table ``t`` (0, or 1 for a
        duplicate's second), with that match's decision seeds: the environment then plays that match's hands."""
        match = (options or {}).get("match")
        if match is not None:
            self._seed = int(match["seed"])
            self._path = (int(match["session"]), 0, int(match.get("table", 0)))
            shuffle = np.random.default_rng([self._seed, self._path[0], 0])
        else:
            self._seed = new_seed() if seed is None else int(seed)
            self._path = ()
            shuffle = np.random.default_rng(self._seed)
        players = len(self.possible_agents)
        deck = np.argsort(shuffle.random(52), kind="stable")
        self._cards = [[Card(int(c)) for c in deck[SEAT_CARDS * k:SEAT_CARDS * (k + 1)]] for k in range(players)]
        self._boards = [Board() for _ in range(players)]
        self._discards = [() for _ in range(players)]
        self._dealt = [0] * players
        self._step = 0
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict = {agent: {} for agent in self.agents}
        self._selector = AgentSelector(self.agents)
        self.agent_selection = self._selector.reset()

    def _decision(self, seat: int) -> tuple:
        """``(cards dealt now, how many to keep)`` for the seat's next decision."""
        step = self.rules.deal_after(len(self._boards[seat].cards))
        assert step is not None  # (the environment places as the rules say)
        dealt, kept = step
        start = self._dealt[seat]
        return tuple(self._cards[seat][start:start + dealt]), kept

    def view(self, agent: str) -> OfcView:
        """What ``agent`` sees now, as a strategy of :mod:`cpoker.game.ofc.play` is shown it."""
        seat = self.possible_agents.index(agent)
        cards, kept = self._decision(seat)
        players = len(self.possible_agents)
        others = tuple(self._boards[(seat + i) % players] for i in range(1, players))
        return OfcView(rules=self.rules, board=self._boards[seat], cards=cards, keep=kept, opponents=others,
                       discards=self._discards[seat], fantasyland=False, seat=seat,
                       seed=derived_seed(self._seed, *self._path, seat, self._step // players + 1))

    def action_of(self, agent: str, board: object) -> int:
        """The action that leaves ``board`` (a board a strategy answered for :meth:`view`)."""
        view = self.view(agent)
        new = placed_board(view, board)
        kept = tuple(c for c in view.cards if c in set(new.cards))
        subset = list(itertools.combinations(range(len(view.cards)), view.keep)).index(
            tuple(i for i, c in enumerate(view.cards) if c in set(kept)))
        code = 0
        for card in kept:
            code = code * 3 + next(row for row, cards in enumerate(new.rows) if card in cards)
        return subset * 3 ** view.keep + code

    def _mask(self, agent: str) -> np.ndarray:
        mask = np.zeros(self.actions, dtype=np.int8)
        if agent != self.agent_selection or self.terminations[agent]:
            return mask
        seat = self.possible_agents.index(agent)
        cards, kept = self._decision(seat)
        free = self._boards[seat].free
        for action in range(math.comb(len(cards), kept) * 3 ** kept):
            rows = decode(action, cards, kept)[1]
            mask[action] = all(rows.count(row) <= room for row, room in enumerate(free))
        return mask

    def observe(self, agent: str) -> dict:
        seat = self.possible_agents.index(agent)
        players = len(self.possible_agents)
        planes = np.zeros((PLANES_OWN + 3 * (players - 1), 52), dtype=np.int8)
        for row, cards in enumerate(self._boards[seat].rows):
            planes[row, [int(c) for c in cards]] = 1
        if not self.terminations.get(agent, False) and len(self._boards[seat].cards) < 13:
            planes[3, [int(c) for c in self._decision(seat)[0]]] = 1
        planes[4, [int(c) for c in self._discards[seat]]] = 1
        for i in range(1, players):
            for row, cards in enumerate(self._boards[(seat + i) % players].rows):
                planes[PLANES_OWN + 3 * (i - 1) + row, [int(c) for c in cards]] = 1
        return {"observation": planes.ravel(), "action_mask": self._mask(agent)}

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self.possible_agents.index(agent)
        if not self._mask(agent)[int(action)]:
            raise StrategyError(f"{agent}: action {action} is not legal now (see the observation's action_mask)")
        cards, kept = self._decision(seat)
        chosen, rows = decode(int(action), cards, kept)
        self._boards[seat] = self._boards[seat].plus(chosen, rows)
        self._discards[seat] = tuple(sorted((*self._discards[seat], *(c for c in cards if c not in chosen))))
        self._dealt[seat] += len(cards)
        self._step += 1
        self._cumulative_rewards[agent] = 0
        if all(board.is_complete for board in self._boards):
            settlement = settle(self._boards, self.rules)
            for k, name in enumerate(self.agents):
                scored = settlement.boards[k]
                self.rewards[name] = settlement.results[k]
                self.infos[name] = {"board": str(scored.board), "fouled": scored.fouled, "royalties": scored.total,
                                    "fantasyland": scored.fantasyland or 0}
            self.terminations = dict.fromkeys(self.agents, True)
            self._accumulate_rewards()
        self.agent_selection = self._selector.next()

    def render(self) -> Optional[str]:
        if self.render_mode != "ansi":
            return None
        return "\n".join(f"{agent}: {board}" for agent, board in zip(self.possible_agents, self._boards))

    def close(self) -> None:
        pass


def env(rules: "OfcRules | str | None" = "pineapple", players: int = 2,
        render_mode: Optional[str] = None) -> OfcEnv:
    """An :class:`OfcEnv` (PettingZoo's convention: ``from cpoker.rl.ofc_env import env``)."""
    return OfcEnv(rules, players, render_mode)
