"""A PettingZoo AEC environment of open-face Chinese poker (Pineapple by default, or plain OFC).

An episode is one hand of 2 or 3 players (no Fantasyland: a board that earns one says so in its ``infos``).
``player_0`` sits first after the button and acts first in every round; each player in turn places the cards
dealt to them, and the rewards, at the end of the hand, are the points each wins (:func:`cpoker.ofc.settle`).

**Actions** (``Discrete(243)`` in Pineapple and OFC): a decision's moves numbered as
:func:`cpoker.game.ofc.hand.option_moves` lists them, whether the board has room or not (the legal ones, in
the same order, are the options :func:`cpoker.game.ofc.hand.options_of` lists and the placement solver ranks).
The first five cards: ``sum(row_i * 3**(4 - i))``, the
row (0 front, 1 middle, 2 back) of each card in the order dealt.  A Pineapple round: ``kept * 9 + row_a * 3 +
row_b``, where ``kept`` numbers the pair of cards kept (``itertools.combinations`` of the three: 0 keeps the
first two) and ``row_a``, ``row_b`` are their rows.  An OFC round: the card's row.  ``action_mask`` marks the
legal ones (the rows with room).

**Observations** (what the acting player may see, as 0/1 card planes of 52, card id ``suit * 13 + rank``):
the player's front, middle and back, the cards dealt to place, the player's own discards, then each other
player's front, middle and back, in seat order after the player.  Other players' discards and the cards to
come are never shown.

The hand is an :class:`~cpoker.game.ofc.hand.OfcHand`, the state every table of cpoker steps: ``reset(seed=s)``
deals ``table_deck(s)`` with the decision seeds ``seeded(s)``, so a strategy played through the environment
plays exactly the hand :func:`~cpoker.game.ofc.hand.play_hand` would (:meth:`OfcEnv.view` and
:meth:`OfcEnv.action_of` translate).
"""

from __future__ import annotations

import math
from typing import Optional

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import AgentSelector

from cpoker.game.dealing import new_seed
from cpoker.game.ofc.hand import OfcHand, OfcView, fits, option_moves, placed_board, seeded, table_deck
from cpoker.game.ofc.history import HandHistory, hand_history
from cpoker.game.ofc.rules import OfcRules, resolve_ofc_rules
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
    moves = option_moves(cards, kept)
    if not 0 <= int(action) < len(moves):
        raise StrategyError(f"action {action} is not an option of this decision")
    return moves[int(action)]


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
        self._hand: Optional[OfcHand] = None
        self._seed: object = None  # the hand's seed (a match's hand: "seed-session-0-copy"), its history's id

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> None:
        """A new hand.  ``options={"match": {"seed": s, "session": i, "copy": c}}`` deals the first hand of
        session ``i`` of ``cpoker.ofc.match(..., seed=s, session_hands=1)`` in its duplicate copy ``c`` (0, or 1
        for the copy with the seats swapped; ``"table"`` is an older name of it), with that match's decision
        seeds: the environment then plays that match's hands."""
        match = (options or {}).get("match")
        players = len(self.possible_agents)
        if match is not None:
            seed, session = int(match["seed"]), int(match["session"])
            copy = int(match.get("copy", match.get("table", 0)))
            self._hand = OfcHand(self.rules, table_deck([seed, session, 0]), [0] * players,
                                 seeded(seed, session, 0, copy))
            self._seed = f"{seed}-{session}-0-{copy}"
        else:
            seed = new_seed() if seed is None else int(seed)
            self._hand = OfcHand(self.rules, table_deck(seed), [0] * players, seeded(seed))
            self._seed = seed
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict = {agent: {} for agent in self.agents}
        self._selector = AgentSelector(self.agents)
        self.agent_selection = self._selector.reset()

    @property
    def hand(self) -> OfcHand:
        """The hand in play (:class:`~cpoker.game.ofc.hand.OfcHand`): its boards, its record."""
        if self._hand is None:
            raise StrategyError("no hand is dealt yet: call reset() first")
        return self._hand

    def history(self, names: "dict | None" = None) -> HandHistory:
        """The finished hand's history (:mod:`cpoker.game.ofc.history`, docs/ofc.md): what ``cpoker ofc review``
        reads; ``names`` maps an agent to the name it is recorded under (default: the agent's).  Write a
        session's with :func:`~cpoker.game.ofc.history.history_lines`.

        Raises
        ------
        StrategyError
            When the hand is not over.
        """
        named = [str((names or {}).get(agent, agent)) for agent in self.possible_agents]
        return hand_history(self.hand, named, id=f"{self._seed}", source={"kind": "ofc-env", "seed": self._seed})

    def view(self, agent: str) -> OfcView:
        """What ``agent`` sees now, as a strategy of :mod:`cpoker.game.ofc.hand` is shown it (its turn only)."""
        seat = self.possible_agents.index(agent)
        if self.hand.actor != seat:
            raise StrategyError(f"{agent} has no decision now: it is "
                                f"{'nobody' if self.hand.actor is None else self.possible_agents[self.hand.actor]}'s "
                                "turn")
        return self.hand.view()

    def action_of(self, agent: str, board: object) -> int:
        """The action that leaves ``board`` (a board a strategy answered for :meth:`view`)."""
        view = self.view(agent)
        new = placed_board(view, board)
        kept = tuple(c for c in view.cards if c in set(new.cards))
        rows = tuple(next(row for row, cards in enumerate(new.rows) if card in cards) for card in kept)
        return option_moves(view.cards, view.keep).index((kept, rows))

    def _mask(self, agent: str) -> np.ndarray:
        mask = np.zeros(self.actions, dtype=np.int8)
        seat = self.possible_agents.index(agent)
        if self.hand.actor != seat or self.terminations[agent]:
            return mask
        view = self.hand.view()
        for action, (_, rows) in enumerate(option_moves(view.cards, view.keep)):
            mask[action] = fits(view.board, rows)
        return mask

    def observe(self, agent: str) -> dict:
        seat = self.possible_agents.index(agent)
        players = len(self.possible_agents)
        hand = self.hand
        boards = hand.boards
        planes = np.zeros((PLANES_OWN + 3 * (players - 1), 52), dtype=np.int8)
        for row, cards in enumerate(boards[seat].rows):
            planes[row, [int(c) for c in cards]] = 1
        if hand.actor == seat:
            planes[3, [int(c) for c in hand.view().cards]] = 1
        planes[4, [int(c) for c in hand.discards[seat]]] = 1
        for i in range(1, players):
            for row, cards in enumerate(boards[(seat + i) % players].rows):
                planes[PLANES_OWN + 3 * (i - 1) + row, [int(c) for c in cards]] = 1
        return {"observation": planes.ravel(), "action_mask": self._mask(agent)}

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if not 0 <= int(action) < self.actions or not self._mask(agent)[int(action)]:
            raise StrategyError(f"{agent}: action {action} is not legal now (see the observation's action_mask)")
        hand = self.hand
        view = hand.view()
        kept, rows = decode(int(action), view.cards, view.keep)
        hand.apply(view.board.plus(kept, rows))
        self._cumulative_rewards[agent] = 0
        if hand.is_over:
            record = hand.record()
            for k, name in enumerate(self.agents):
                scored = record.settlement.boards[k]
                self.rewards[name] = record.settlement.results[k]
                self.infos[name] = {"board": str(scored.board), "fouled": scored.fouled, "royalties": scored.total,
                                    "fantasyland": scored.fantasyland or 0}
            self.terminations = dict.fromkeys(self.agents, True)
            self._accumulate_rewards()
        self.agent_selection = self._selector.next()

    def render(self) -> Optional[str]:
        if self.render_mode != "ansi":
            return None
        return "\n".join(f"{agent}: {board}" for agent, board in zip(self.possible_agents, self.hand.boards))

    def close(self) -> None:
        pass


def env(rules: "OfcRules | str | None" = "pineapple", players: int = 2,
        render_mode: Optional[str] = None) -> OfcEnv:
    """An :class:`OfcEnv` (PettingZoo's convention: ``from cpoker.rl.ofc_env import env``)."""
    return OfcEnv(rules, players, render_mode)
