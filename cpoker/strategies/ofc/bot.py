"""Open-face bots: programs in any language that place cards over the line protocol (docs/bots.md).

A request is one decision, one JSON line; the answer, one line, is the board the bot leaves::

    -> {"protocol": 1, "game": "pineapple", "rules": {...}, "board": "Qh / 9s 9d / Ah Kh", "cards": "Qd 7c 2s",
        "keep": 2, "opponents": ["Kc 7d / 5s 5d / 8c 8h 3d"], "opponents_in_fantasyland": [false],
        "opponent_fantasylands": [0], "discards": "4c", "fantasyland": false, "seat": 1, "seed": 81985529216486895}
    <- {"board": "Qh Qd / 9s 9d 2s / Ah Kh"}

A decision has :data:`~cpoker.strategies.bots.DECISION_TIMEOUT` seconds unless the bot's ``timeout`` says
otherwise, and faults sooner when the bot shows no sign of life for its ``silence`` (a hung bot).

The request's ``"game"`` key tells it from the closed game's (which has ``"hands"``).  Faults are contained as
for the closed game (:mod:`cpoker.strategies.bots`): a crash, garbage, no answer in time, or a board that
breaks the rules (a card moved, one not dealt, the wrong count) forfeits that hand, the bot is restarted, and
three faults in a row break it (:class:`~cpoker.BotBroken`).
"""

from __future__ import annotations

from cpoker.game.cards import format_cards
from cpoker.game.ofc.boards import Board
from cpoker.game.ofc.hand import OfcView, placed_board
from cpoker.game.ofc.rules import OfcRules
from cpoker.strategies.bots import PREFIX, Bot
from cpoker.system.errors import StrategyError


def request_of(view: OfcView) -> dict:
    """The protocol's request for a decision (its keys but ``protocol``)."""
    return {"game": view.rules.game, "rules": view.rules.to_dict(), "board": str(view.board),
            "cards": format_cards(view.cards, sort=False), "keep": view.keep,
            "opponents": [str(board) for board in view.opponents],
            "opponents_in_fantasyland": list(view.opponents_in_fantasyland),
            "opponent_fantasylands": list(view.fantasyland_cards), "discards": format_cards(view.discards),
            "fantasyland": view.fantasyland, "seat": view.seat,
            "seed": view.seed}


class OfcBot:
    """A :class:`~cpoker.strategies.bots.Bot` as an open-face strategy (``cmd:COMMAND`` in an open-face match)."""

    def __init__(self, bot: "Bot | str") -> None:
        self.bot = bot if isinstance(bot, Bot) else Bot(bot)
        self.__name__ = self.bot.__name__

    def __call__(self, view: OfcView) -> Board:
        answer = self.bot.request_object(request_of(view))
        board = answer.get("board")
        try:
            if not isinstance(board, str):
                raise StrategyError(f"answered {str(answer)[:80]}, without a \"board\" of text")
            placed = placed_board(view, board)
        except StrategyError as error:
            self.bot.answer_was_wrong(str(error))
            raise StrategyError(f"bot {self.__name__!r} {error}") from None
        self.bot.answer_was_right()
        return placed


def is_bot_name(strategy: object) -> bool:
    return isinstance(strategy, str) and strategy.startswith(PREFIX)


def check_ofc_bot(bot: "Bot | str", rules: "OfcRules | str" = "pineapple", seed: int = 0) -> list:
    """Conformance checks of an open-face bot (what ``cpoker bot-check --game pineapple`` prints): a real hand
    (:class:`~cpoker.game.ofc.hand.OfcHand`) against the ``heuristic``, the bot first to act, its decisions in
    order (the first cards, each round, the last) with the requests a match sends (the opponent's board as it
    stands, the bot's own discards, the seed), one with keys it does not know; then a Fantasyland; then its end
    when its input ends.  Each answer must be a legal board (:func:`placed_board`); a failed check shows the end
    of the bot's standard error.  After a failure the hand goes on with the heuristic's board."""
    import time

    from cpoker.game.ofc.hand import OfcHand, seeded, table_deck
    from cpoker.strategies.ofc.heuristic import heuristic
    from cpoker.game.ofc.rules import resolve_ofc_rules
    from cpoker.strategies.bots import BotProcess, Check, end_check, fault_of, stderr_tail

    rules = resolve_ofc_rules(rules)
    bot = bot if isinstance(bot, Bot) else Bot(bot)
    child = BotProcess(bot)
    checks: list = []

    def ask(name: str, view: OfcView, extra: "dict | None" = None) -> "Board | None":
        started = time.perf_counter()
        try:
            answer = child.ask_object({**request_of(view), **(extra or {})})
            board = answer.get("board") if isinstance(answer, dict) else None
            placed = placed_board(view, board if isinstance(board, str) else answer)
        except StrategyError as error:
            checks.append(Check(name, False, str(error) + stderr_tail(child)))
            return None
        except Exception as error:  # the protocol's faults (no answer, garbage, a crash)
            reason = fault_of(error)
            if reason is None:
                raise
            checks.append(Check(name, False, reason + stderr_tail(child)))
            child.close()
            return None
        checks.append(Check(name, True, f"{1e3 * (time.perf_counter() - started):.1f} ms: {placed}"))
        return placed

    try:
        hand = OfcHand(rules, table_deck([seed, 0]), [0, 0], seeded(seed, 0))
        rounds = 0
        while hand.actor is not None:
            if hand.actor != 0:
                hand.play(heuristic)
                continue
            view = hand.view()
            name = ("starts, and places the first cards" if not view.board.cards
                    else "places the last round" if len(view.board.cards) + view.keep == 13
                    else f"places round {rounds}" + (" (a request with keys it does not know)" if rounds == 1
                                                     else ""))
            placed = ask(name, view, {"future_key": [1, 2]} if rounds == 1 else None)
            hand.apply(placed if placed is not None else heuristic(view))  # on, with a legal board, after a failure
            rounds += 1
        size = rules.smallest_fantasyland or 13
        fantasy = OfcHand(rules, table_deck([seed, 1]), [size, 0], seeded(seed, 1))
        ask(f"sets a Fantasyland of {size} cards", fantasy.view())
        checks.extend(end_check(child))
    finally:
        child.close()
    return checks
