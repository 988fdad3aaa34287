"""``cpoker serve``: a JSON API over the public library and a single page that uses it.

Routes are thin: each validates its body with the same cpoker checks as the
library (a ``CpokerError`` becomes a 422 with its message, never a 500), calls
the public API, and answers what the matching ``cpoker ... --json`` prints.
Safety by default:

* request bodies over 64 KiB are refused (413) before they are read;
* sizes are capped (samples, opponents) below the library's own limits, and
  each solve or simulation runs under a time budget: when it expires the
  answer rests on the samples done and says ``"partial": true``;
* at most ``workers`` solves run at once (one per core this process may run
  on, or ``NUMBA_NUM_THREADS``); a request that cannot start within a few
  seconds gets a 503 instead of queueing without bound;
* rules come from a preset name or TOML text in the body, never a file path;
* a request the machine has not the memory for now gets a 503 that says so,
  and the server goes on serving.

The kernels are compiled and the tables loaded by :func:`warm_up` before the
server reports that it is ready.
"""

from __future__ import annotations

import asyncio
import functools
from contextlib import contextmanager
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from collections.abc import Sequence
from typing import Any, Optional

from fastapi import FastAPI, HTTPException, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field

import cpoker
from cpoker.system.errors import CpokerError, InstallationError, out_of_memory
from cpoker.system.environment import kernel_threads

MAX_BODY = 64 * 1024
MAX_SAMPLES = 20_000
MAX_OPPONENTS = 3
TIME_BUDGET = 5.0  # seconds of sampling per request; the answer is partial past it
QUEUE_WAIT = 10.0  # seconds a request may wait for a free worker before a 503
HAND_TEXT = 400  # characters: a hand is ~40
MAX_REVIEW_HANDS = 500  # played hands a review request may hold
MAX_REVIEW_TEXT = 60_000  # characters of them: 500 hands of ~45, inside the 64 KiB body
MAX_OFC_REVIEW_BODY = 1024 * 1024  # an open-face review's histories: a Pineapple hand is ~3.4 KB, 300 hands
MAX_OFC_REVIEW_HANDS = 300
REVIEW_BUDGET = 60.0  # seconds a review request may take; the answer covers the hands done by then
# seeds the API takes: the integers a JSON number holds exactly everywhere (JavaScript's, and every JSON Schema
# validator that reads numbers as doubles, where 2**63 - 1 rounds up to 2**63); the library takes up to 2**63 - 1
MAX_SEED = 2**53 - 1


class ErrorBody(BaseModel):
    """The body of every error the API answers: one line that names the problem."""

    detail: str


# the errors every route may answer, each with the body above (FastAPI's own validation errors included)
ERRORS: dict = {
    400: {"model": ErrorBody, "description": "the body cannot be read as the JSON it declares"},
    411: {"model": ErrorBody, "description": "a request body without a Content-Length"},
    413: {"model": ErrorBody, "description": "the request body is over 64 KiB"},
    422: {"model": ErrorBody, "description": "the input cannot be used; the message names the problem"},
    500: {"model": ErrorBody, "description": "cpoker's own data files are missing or damaged"},
    503: {"model": ErrorBody, "description": "every worker is busy, or the machine is out of memory: try again"},
}


class StrictBody(BaseModel):
    """Numbers are numbers: ``true`` is not 1, ``"2"`` is not 2 (the library refuses booleans too)."""

    model_config = ConfigDict(strict=True)


class RulesField(StrictBody):
    """Rules by preset name, or house rules as TOML text."""

    rules: str = Field("pagat", max_length=40,
                       description="pagat, 1-6, 2-4, seed001-royalties, low-a5, low-27 or pusoy (= 1-6)")
    rules_toml: Optional[str] = Field(None, max_length=10_000, description="house rules as TOML text; wins over rules")


class EvaluateBody(StrictBody):
    cards: str = Field(..., max_length=HAND_TEXT, examples=["As Ks Qs Js Ts"])


class SolveBody(RulesField):
    hand: str = Field(..., max_length=HAND_TEXT, examples=["As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s"])
    opponents: int = Field(1, ge=1, le=MAX_OPPONENTS)
    samples: int = Field(2000, ge=1, le=MAX_SAMPLES)
    seed: Optional[int] = Field(None, ge=0, le=MAX_SEED)
    method: str = Field("mc", pattern="^(mc|table)$")
    opponent: str = Field("table", pattern="^(table|greedy)$", description="the opponent model: the table "
                          "policy of the rules, or greedy")
    compare: Optional[str] = Field(None, max_length=HAND_TEXT,
                                   description="an arrangement of the hand to score on the same samples")


class SimulateBody(RulesField):
    arrangement: str = Field(..., max_length=HAND_TEXT, examples=["2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac"])
    opponents: int = Field(1, ge=1, le=MAX_OPPONENTS)
    samples: int = Field(10_000, ge=1, le=MAX_SAMPLES)
    seed: Optional[int] = Field(None, ge=0, le=MAX_SEED)
    opponent: str = Field("table", pattern="^(table|greedy)$", description="the opponent model (see /api/solve)")


class ScoreBody(RulesField):
    players: list[str] = Field(..., min_length=2, max_length=4,
                               examples=[["2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac",
                                          "3s 3h 4d / 6c 6d 8s 5c 2d / 9c 9d Th Ts As"]])
    stakes: Optional[list[list[int]]] = Field(None, max_length=4, description="each pair's unit, "
                                              "stakes[i][j] for players i and j: a symmetric matrix of whole "
                                              "units from 1 to 1,000,000 (default 1 for every pair)")


class ReviewBody(RulesField):
    text: str = Field(..., max_length=MAX_REVIEW_TEXT, description="played hands, one a line, in any format "
                      "`cpoker review` reads (text, JSON Lines, CSV)",
                      examples=["2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac"])
    opponents: int = Field(1, ge=1, le=MAX_OPPONENTS, description="for the hands that do not say")
    samples: int = Field(1000, ge=1, le=MAX_SAMPLES)
    seed: Optional[int] = Field(None, ge=0, le=MAX_SEED)
    skip_bad: bool = Field(False, description="review the good lines and list the bad ones")


class PlayBody(RulesField):
    players: int = Field(..., ge=2, le=4)
    seed: int = Field(..., ge=0, le=MAX_SEED, description="the deal is cpoker.deal(players, seed)")
    arrangement: str = Field(..., max_length=HAND_TEXT, description="the player's arrangement of the first hand")
    samples: int = Field(1000, ge=1, le=MAX_SAMPLES)
    deal: int = Field(0, ge=0, le=999, description="the deal's number in the session, from 0: under rules with "
                      "session_stakes, the deal is settled at its stake")
    session_deals: int = Field(1, ge=1, le=1000, description="the session's length: rules with session_stakes "
                               "must give a stake to each of its deals")


class CheckBody(RulesField):  # (the rules: a low front fouls only when the back is weaker than the middle)
    arrangement: str = Field(..., max_length=HAND_TEXT)
    hand: Optional[str] = Field(None, max_length=HAND_TEXT)


class NaturalBody(RulesField):
    hand: str = Field(..., max_length=HAND_TEXT)


class OfcRulesField(StrictBody):
    """Open-face rules by preset name, or house rules as TOML text (docs/ofc.md)."""

    rules: str = Field("ofc", max_length=40, description="ofc, pineapple or progressive")
    rules_toml: Optional[str] = Field(None, max_length=10_000,
                                      description="open-face house rules as TOML text; wins over rules")


class OfcScoreBody(OfcRulesField):
    players: list[str] = Field(..., min_length=2, max_length=4, description="each player's full board, "
                               "'front / middle / back'",
                               examples=[["Qh Qd 2c / 5s 6s 7s 8s Ts / Ah Ad Ac Kd Ks",
                                          "Jh Jd 3c / 2s 2h 4d 4c 6d / Th Td Tc 9h 9d"]])
    fantasyland: list[bool] = Field([], max_length=4, description="which players played the hand in Fantasyland "
                                    "(in order; the rest did not)")


class OfcFantasyBody(OfcRulesField):
    cards: str = Field(..., max_length=HAND_TEXT, description="the 13 to 17 cards of a Fantasyland",
                       examples=["As Ad Ac Kh Kd Qs Jh Th 9c 8c 7c 6c 5c 2d"])
    objective: str = Field("ev", max_length=20, description="ev (default) or royalties")
    samples: int = Field(1000, ge=1, le=10_000, description="with objective ev: the opponent boards")
    seed: Optional[int] = Field(None, ge=0, le=MAX_SEED)
    fantasyland_value: Optional[float] = Field(None, ge=0, le=1000, description="points staying counts "
                                               "(default: the rules' measured value)")
    runners_up: int = Field(0, ge=0, le=20, description="with objective ev: the next best boards too, best first")
    compare: Optional[str] = Field(None, max_length=HAND_TEXT, description="with objective ev: a board of 13 of the "
                                   "cards to grade against the best on the same opponent boards (the answer's "
                                   "`compared`: its value, loss and the loss's 95% interval)")


class OfcPlaceBody(OfcRulesField):
    board: str = Field("- / - / -", max_length=HAND_TEXT, description="your board, 'front / middle / back'",
                       examples=["Qh / 9s 9d / Ah Kh"])
    cards: str = Field(..., max_length=HAND_TEXT, description="the cards dealt to place", examples=["Qd 7c 2s"])
    opponents: Optional[list[str]] = Field(None, max_length=3, description="each opponent's board as you see it "
                                           "(default: one, empty)", examples=[["Kc 7d / 5s 5d / 8c 8h 3d"]])
    dead: str = Field("", max_length=HAND_TEXT, description="cards out of play you know (your discards)")
    fantasylands: Optional[list[int]] = Field(None, max_length=3, description="for each opponent, the cards of the "
                                              "Fantasyland they play (0: a normal hand)", examples=[[0]])
    samples: int = Field(1000, ge=1, le=10_000, description="rollouts of the placements in contention to the end "
                         "(those out of contention stop early)")
    seed: Optional[int] = Field(None, ge=0, le=MAX_SEED)
    fantasyland_value: Optional[float] = Field(None, ge=0, le=1000, description="points a board that earns "
                                               "Fantasyland counts, whatever its size (default: the rules' measured "
                                               "value of each size)")
    compare: Optional[str] = Field(None, max_length=HAND_TEXT, description="a placement (the board it leaves) to "
                                   "grade: rolled out to the end, the ranking otherwise unchanged; the answer's "
                                   "`compared` is its rank (a drill's grade)")


class OfcReviewBody(StrictBody):
    histories: str = Field(..., max_length=MAX_OFC_REVIEW_BODY, description="open-face hand histories: JSON Lines, "
                           "a JSON list, or {\"hands\": [...]} as the page exports them (docs/ofc.md)")
    players: Optional[list[str]] = Field(None, max_length=4, description="the players to review (default: all)")
    samples: int = Field(300, ge=1, le=2000, description="the placement solver's rollouts a decision")
    seed: Optional[int] = Field(None, ge=0, le=MAX_SEED)


class OfcPlayBody(OfcRulesField):
    seed: int = Field(..., ge=0, le=MAX_SEED, description="the session's seed")
    hand: int = Field(0, ge=0, le=10_000, description="the hand's number in the session (the button moves)")
    placements: list[str] = Field([], max_length=17, description="your board after each of your decisions so far")
    fantasyland: list[int] = Field([0, 0], min_length=1, max_length=3, description="your and each opponent's "
                                   "Fantasyland sizes this hand (0: none), as the previous hand's answer said")
    opponents: int = Field(1, ge=1, le=2, description="1 (heads-up) or 2 (three-handed)")
    rollouts: int = Field(300, ge=1, le=2000, description="the opponent's rollouts of the placements in contention "
                          "(the mc strategy)")
    review_samples: int = Field(1000, ge=1, le=2000, description="rollouts of the review of your decisions")


def _web_seed(seed: Optional[int]) -> int:
    """``seed``, or one drawn that JavaScript holds exactly."""
    from cpoker.game.dealing import new_seed

    return new_seed() % (MAX_SEED + 1) if seed is None else seed


def _ofc_rules(body: OfcRulesField) -> "cpoker.ofc.OfcRules":
    from cpoker.game.ofc.rules import OfcRules

    if body.rules_toml:
        return OfcRules.from_toml_text(body.rules_toml, "rules_toml")
    with _web_words():
        return OfcRules.preset(body.rules)


def _rules(body: RulesField) -> cpoker.Rules:
    if body.rules_toml:
        return cpoker.Rules.from_toml_text(body.rules_toml, "rules_toml")
    with _web_words():
        return cpoker.Rules.preset(body.rules)


@contextmanager
def _web_words():
    """The library's errors say what a program or a command gives ("or a .toml file"); the web API takes house
    rules as TOML text in ``rules_toml``: say that instead."""
    from cpoker.system.errors import RulesError

    try:
        yield
    except RulesError as error:
        raise RulesError(str(error).replace("or a .toml file", "or house rules as TOML text in rules_toml")) from None


def validation_message(errors: "Sequence[Any]") -> str:
    """FastAPI's validation errors as one line: each field and what is wrong with it (five at most)."""
    parts = []
    for error in errors[:5]:
        where = ".".join(str(part) for part in error.get("loc", ()) if part not in ("body", "query"))
        parts.append(f"{where}: {error.get('msg')}" if where else str(error.get("msg")))
    return "; ".join(parts) + (f"; and {len(errors) - 5} more" if len(errors) > 5 else "")


def warm_up() -> None:
    """Compile (or load) every kernel the routes use and load the tables, before serving."""
    hand = "As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s"
    cpoker.evaluate("As Ks Qs Js Ts")
    for rules in ("pagat", "2-4"):
        cpoker.solve(hand, samples=50, seed=1, rules=rules, compare="As Kd Qh / 6s 5d 4h 3c 2s / Jc Ts 9d 8h 7c")
        cpoker.simulate("As Kd Qh / 6s 5d 4h 3c 2s / Jc Ts 9d 8h 7c", samples=50, seed=1, rules=rules)
    cpoker.solve(hand, method="table")


def create_app(workers: Optional[int] = None, time_budget: float = TIME_BUDGET) -> FastAPI:
    """The ASGI application (``uvicorn.run(create_app())``); ``workers`` solves run at once (by default as
    many as numba has threads: :func:`cpoker.system.environment.kernel_threads`)."""
    app = FastAPI(title="cpoker", version=cpoker.__version__, docs_url=None, redoc_url=None,  # those load a CDN
                  description="Closed 13-card Chinese poker: evaluate, score, solve, simulate. "
                              "Errors in the input are 422 with a message naming the problem.", responses=ERRORS)
    count = workers or kernel_threads()  # the cores it may use (os.cpu_count() counts the machine's)
    slots = asyncio.Semaphore(count)  # waiting for a slot holds no thread
    executor = ThreadPoolExecutor(count, thread_name_prefix="cpoker-solve")

    @app.middleware("http")
    async def cap_body(request: Request, call_next):
        length = request.headers.get("content-length")
        cap = MAX_OFC_REVIEW_BODY if request.url.path == "/api/ofc/review" else MAX_BODY  # (a session's histories)
        if length is not None and (not length.isdigit() or int(length) > cap):
            return JSONResponse({"detail": f"request body over {cap // 1024} KiB"}, status_code=413)
        if length is None and request.method == "POST":
            return JSONResponse({"detail": "a request body needs a Content-Length"}, status_code=411)
        return await call_next(request)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, error: RequestValidationError):  # the body cpoker declares
        errors = error.errors()
        unreadable = any(item.get("type") == "json_invalid" for item in errors)  # not JSON: a 400, as declared
        return JSONResponse({"detail": validation_message(errors)}, status_code=400 if unreadable else 422)

    @app.exception_handler(CpokerError)
    async def cpoker_error(request: Request, error: CpokerError):
        return JSONResponse({"detail": str(error)}, status_code=422)

    @app.exception_handler(InstallationError)
    async def installation_error(request: Request, error: InstallationError):  # the server's fault: a 500 that
        return JSONResponse({"detail": str(error)}, status_code=500)  # names the damaged file and the mend

    @app.exception_handler(MemoryError)
    async def memory_error(request: Request, error: MemoryError):  # the machine's state, not the request: a 503
        advice = "try again later, or with fewer samples or opponents"
        return JSONResponse({"detail": out_of_memory(error, advice, who="the server is")}, status_code=503)

    async def limited(function, *args, **kwargs) -> Any:
        """Run a library call on a solver thread once a slot is free (503 if none frees up in time)."""
        try:
            await asyncio.wait_for(slots.acquire(), QUEUE_WAIT)
        except asyncio.TimeoutError:
            raise HTTPException(503, f"busy: every worker was taken for {QUEUE_WAIT:.0f} s; try again") from None
        try:
            return await asyncio.get_running_loop().run_in_executor(executor, functools.partial(function, *args,
                                                                                                **kwargs))
        finally:
            slots.release()

    @app.post("/api/evaluate", summary="Strength of a 3-card front or a 5-card row (as `cpoker eval --json`)")
    async def evaluate(body: EvaluateBody) -> dict:
        cards = cpoker.parse_cards(body.cards)
        value = cpoker.evaluate(cards)
        return {"cards": cpoker.format_cards(cards), **value.to_dict()}

    @app.post("/api/check", summary="Whether an arrangement fouls, and its rows")
    async def check(body: CheckBody) -> dict:
        arrangement = cpoker.Arrangement.parse(body.arrangement, hand=body.hand)
        return arrangement.under(_rules(body).front).to_dict()

    @app.post("/api/solve", summary="The best non-fouling arrangement (as `cpoker solve --json`)")
    async def solve(body: SolveBody) -> dict:
        rules = _rules(body)
        solution = await limited(cpoker.solve, body.hand, opponents=body.opponents, samples=body.samples,
                                 seed=body.seed, rules=rules, method=body.method, opponent=body.opponent,
                                 compare=body.compare, time_budget=time_budget)
        return solution.to_dict()

    @app.post("/api/simulate", summary="EV of an arrangement against random opponents (as `cpoker simulate --json`)")
    async def simulate(body: SimulateBody) -> dict:
        rules = _rules(body)
        result = await limited(cpoker.simulate, body.arrangement, opponents=body.opponents, samples=body.samples,
                               seed=body.seed, rules=rules, opponent=body.opponent, jobs=1, time_budget=time_budget)
        return result.to_dict()

    @app.post("/api/score", summary="Settle a deal of 2-4 players (as `cpoker score --json`)")
    async def score(body: ScoreBody) -> dict:
        rules = _rules(body)
        settlement = cpoker.settle_details(body.players, rules, stakes=body.stakes)
        return {"rules": rules.to_dict(), "results": settlement.results, "matrix": settlement.total.tolist(),
                "stakes": None if settlement.stakes is None else settlement.stakes.tolist(),
                "players": [entry.to_dict() for entry in settlement.entries]}

    @app.post("/api/natural", summary="The naturals of a hand (as `cpoker natural --json`)")
    async def natural(body: NaturalBody) -> dict:
        rules = _rules(body)
        found = cpoker.find_naturals(body.hand, rules)
        declared = cpoker.natural(body.hand, rules)
        return {"naturals": [n.to_dict() for n in found], "declare": None if declared is None else declared.to_dict()}

    @app.post("/api/review", summary="What each played hand cost (as `cpoker review --json`; at most "
                                     f"{MAX_REVIEW_HANDS} hands)")
    async def review(body: ReviewBody) -> dict:
        from cpoker.jobs.played import read_played

        rules = _rules(body)
        hands, skipped = read_played(body.text, "the pasted text", skip_bad=body.skip_bad, limit=MAX_REVIEW_HANDS)
        result = await limited(cpoker.review, hands, rules=rules, opponents=body.opponents, samples=body.samples,
                               seed=body.seed, jobs=1, time_budget=REVIEW_BUDGET, skipped=tuple(skipped))
        return result.to_dict()

    @app.post("/api/play", summary="Play a seeded deal at a full table: the opponents play the table policy; "
                                   "the deal settled and the player's hand reviewed")
    async def play(body: PlayBody) -> dict:
        from cpoker.jobs.review import table_deal

        rules = _rules(body)
        played = await limited(table_deal, body.arrangement, body.players, body.seed, rules=rules,
                               samples=body.samples, deal=body.deal, session_deals=body.session_deals)
        return played.to_dict()

    @app.post("/api/ofc/score", summary="Settle full open-face boards of 2-4 players (as `cpoker ofc score "
                                        "--json`)")
    async def ofc_score(body: OfcScoreBody) -> dict:
        from cpoker.game.ofc.scoring import settle as settle_boards

        return settle_boards(body.players, _ofc_rules(body), body.fantasyland).to_dict()

    @app.post("/api/ofc/fantasy", summary="The best Fantasyland board of 13-17 cards (as `cpoker ofc fantasy "
                                          "--json`)")
    async def ofc_fantasy(body: OfcFantasyBody) -> dict:
        from cpoker.strategies.ofc.fantasyland import fantasyland

        best = await limited(fantasyland, body.cards, _ofc_rules(body), body.objective, samples=body.samples,
                             seed=_web_seed(body.seed), fantasyland_value=body.fantasyland_value,
                             runners_up=body.runners_up)
        answer = best.to_dict()
        if body.compare is not None:
            from cpoker.run.stats import Z95
            from cpoker.strategies.ofc.fantasyland import compare_fantasyland

            if body.objective != "ev":
                raise HTTPException(422, "compare grades a board by the ev objective: leave objective at ev")
            compared = await limited(compare_fantasyland, body.cards, body.compare, best.rules, samples=best.samples,
                                     seed=best.seed, fantasyland_value=body.fantasyland_value)
            half = Z95 * compared.loss_stderr
            answer["compared"] = {**compared.to_dict(), "loss_interval": [compared.loss - half, compared.loss + half]}
        return answer

    @app.post("/api/ofc/play", summary="An open-face hand (the rules' game: ofc by default) against the mc strategy, "
                                       "one decision at a time: your next decision, or the hand settled and your "
                                       "decisions reviewed")
    async def ofc_play(body: OfcPlayBody) -> dict:
        from cpoker.jobs.ofc.table import table_turn

        turn = await limited(table_turn, _ofc_rules(body), body.seed, body.hand, body.placements, body.fantasyland,
                             f"mc:{body.rollouts}", body.review_samples, jobs=1, time_budget=time_budget,
                             opponents=body.opponents)
        return turn.to_dict()

    @app.post("/api/ofc/place", summary="Every placement of the cards in hand, best first, with its expected value "
                                        "(as `cpoker ofc place --json`)")
    async def ofc_place(body: OfcPlaceBody) -> dict:
        from cpoker.jobs.ofc.table import ranked

        solved = await limited(ranked, body.board, body.cards, _ofc_rules(body), opponents=body.opponents,
                               fantasylands=body.fantasylands, dead=body.dead, samples=body.samples,
                               seed=_web_seed(body.seed), compare=body.compare,
                               fantasyland_value=body.fantasyland_value, jobs=1, time_budget=time_budget)
        return solved.to_dict()

    @app.post("/api/ofc/review", summary="What each open-face decision of a session cost (as `cpoker ofc review "
                                         f"--json`; at most {MAX_OFC_REVIEW_HANDS} hands, {REVIEW_BUDGET:.0f} s)")
    async def ofc_review(body: OfcReviewBody) -> dict:
        from cpoker.game.ofc.history import PROBLEMS_SHOWN, HistoryError, read_histories
        from cpoker.jobs.ofc.review import review as review_session

        try:
            hands = read_histories(body.histories, "the histories")
        except HistoryError as error:  # every problem, a line each, as the command prints them
            raise HTTPException(422, "\n".join([str(error), *error.problems[:PROBLEMS_SHOWN]])) from None
        if len(hands) > MAX_OFC_REVIEW_HANDS:
            raise HTTPException(422, f"the histories hold {len(hands)} hands; a request reviews at most "
                                     f"{MAX_OFC_REVIEW_HANDS} (cpoker ofc review FILE takes any number)")
        result = await limited(review_session, hands, players=body.players, samples=body.samples,
                               seed=_web_seed(body.seed), jobs=1, time_budget=REVIEW_BUDGET)
        return result.to_dict()

    @app.get("/api/deal", summary="Deal 2-4 hands, reproducibly (as `cpoker deal --json`)")
    async def deal(players: int = Query(2, ge=2, le=4), seed: Optional[int] = Query(None, ge=0, le=MAX_SEED)) -> dict:
        seed = _web_seed(seed)
        hands = cpoker.deal(players, seed)
        return {"seed": seed, "players": [cpoker.format_cards(hand) for hand in hands]}

    static = resources.files("cpoker.web") / "static"

    @app.get("/", include_in_schema=False)
    async def page() -> Response:
        return FileResponse(str(static / "index.html"), media_type="text/html")

    app.mount("/static", StaticFiles(directory=str(static)), name="static")
    return app
