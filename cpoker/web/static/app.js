"use strict";
// cpoker's page: no framework, no build step. It only calls the JSON API that `cpoker serve` documents.

const RANKS = "AKQJT98765432";
const SUITS = [["s", "\u2660", "spades"], ["h", "\u2665", "hearts"], ["d", "\u2666", "diamonds"], ["c", "\u2663", "clubs"]];
const SUIT = Object.fromEntries(SUITS.map(([letter, symbol, name]) => [letter, { symbol, name }]));
const ROWS = ["front", "middle", "back"];
const SIZES = { front: 3, middle: 5, back: 5 };
const $ = (id) => document.getElementById(id);

// x with `digits` decimals, never a negative zero: a value that rounds to zero shows as 0.000, not -0.000
function fixed(x, digits) {
  const text = x.toFixed(digits);
  return /^-[0.]*$/.test(text) ? text.slice(1) : text;
}

function cardButton(card, extra) {
  const button = document.createElement("button");
  const suit = SUIT[card[1]];
  button.className = "card" + (card[1] === "h" || card[1] === "d" ? " red" : "");
  button.type = "button";
  button.dataset.card = card;
  button.setAttribute("aria-label", `${card[0] === "T" ? "10" : card[0]} of ${suit.name}`);
  // the suit is a distinct shape and a letter, so it never depends on colour
  button.innerHTML = `${card[0] === "T" ? "10" : card[0]}${suit.symbol}<span class="suit-letter">${card[1]}</span>`;
  if (extra) extra(button);
  return button;
}

async function api(path, body) {
  const options = body === undefined ? {} : { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
  const response = await fetch(path, options);
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const detail = Array.isArray(data.detail) ? data.detail.map((d) => `${d.loc.slice(-1)[0]}: ${d.msg}`).join("; ") : data.detail;
    throw new Error(detail || `HTTP ${response.status}`);
  }
  return data;
}

// --- tabs ----------------------------------------------------------------------------------------
for (const tab of document.querySelectorAll("[role=tab]")) {
  tab.addEventListener("click", () => {
    for (const other of document.querySelectorAll("[role=tab]")) {
      const selected = other === tab;
      other.setAttribute("aria-selected", String(selected));
      $(other.getAttribute("aria-controls")).hidden = !selected;
    }
  });
}

// --- solve -----------------------------------------------------------------------------------------
const chosen = new Set();

function syncHandText() {
  $("hand").value = [...chosen].join(" ");
}

for (const [suit] of SUITS) {
  for (const rank of RANKS) {
    $("grid").appendChild(cardButton(rank + suit, (button) => {
      button.setAttribute("aria-pressed", "false");
      button.addEventListener("click", () => {
        const card = button.dataset.card;
        if (chosen.has(card)) chosen.delete(card);
        else if (chosen.size < 13) chosen.add(card);
        button.setAttribute("aria-pressed", String(chosen.has(card)));
        syncHandText();
      });
    }));
  }
}

$("hand").addEventListener("input", () => {
  chosen.clear();
  const tokens = $("hand").value.match(/(10|[2-9TJQKA])\s*([shdc\u2660\u2665\u2666\u2663])/gi) || [];
  const symbols = { "\u2660": "s", "\u2665": "h", "\u2666": "d", "\u2663": "c" };
  for (const token of tokens) {
    const m = token.match(/(10|[2-9TJQKA])\s*(.)/i);
    const rank = m[1] === "10" ? "T" : m[1].toUpperCase();
    chosen.add(rank + (symbols[m[2]] || m[2].toLowerCase()));
  }
  for (const button of $("grid").children) button.setAttribute("aria-pressed", String(chosen.has(button.dataset.card)));
});

function rowCards(text) {
  return text.split(" ").filter(Boolean);
}

function showArrangement(target, arrangement, probabilities) {
  target.innerHTML = "";
  for (const row of ROWS) {
    const line = document.createElement("div");
    line.className = "arr-row";
    line.dataset.row = row;
    line.innerHTML = `<span class="name">${row}</span>`;
    const cards = document.createElement("span");
    cards.className = "cards";
    cards.dataset.testid = `cards-${row}`;
    for (const card of rowCards(arrangement[row])) cards.appendChild(cardButton(card, (b) => { b.tabIndex = -1; }));
    line.appendChild(cards);
    const description = arrangement.rows ? arrangement.rows[row].description : "";
    line.insertAdjacentHTML("beforeend", `<span class="desc">${description}</span>`);
    const p = probabilities && probabilities[row];
    if (p) {
      const pct = (x) => `${(100 * x).toFixed(1)}%`;
      line.insertAdjacentHTML("beforeend",
        `<span class="bar" role="img" aria-label="win ${pct(p.win)}, tie ${pct(p.tie)}, loss ${pct(p.loss)}">` +
        `<span class="win" style="width:${pct(p.win)}"></span><span class="tie" style="width:${pct(p.tie)}"></span>` +
        `<span class="loss" style="width:${pct(p.loss)}"></span></span>` +
        `<span class="odds">win ${pct(p.win)} · tie ${pct(p.tie)} · loss ${pct(p.loss)}</span>`);
    }
    target.appendChild(line);
  }
}

function evText(candidate) {
  const [low, high] = candidate.interval_95 || [candidate.ev, candidate.ev];
  return `EV ${signed(candidate.ev)} [${fixed(low, 3)}, ${fixed(high, 3)}]`;
}

async function withProgress(status, promise) {
  const started = performance.now();
  status.classList.remove("error");
  const tick = setInterval(() => { status.textContent = `Solving… ${((performance.now() - started) / 1000).toFixed(1)} s`; }, 100);
  status.textContent = "Solving…";
  try {
    return await promise;
  } finally {
    clearInterval(tick);
  }
}

$("solve-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const status = $("solve-status");
  const body = {
    hand: $("hand").value, opponents: Number($("opponents").value), samples: Number($("samples").value),
    rules: $("rules").value, opponent: $("opponent").value,
  };
  if ($("seed").value !== "") body.seed = Number($("seed").value);
  try {
    const solution = await withProgress(status, api("/api/solve", body));
    status.textContent = `Done in ${fixed(solution.seconds, 2)} s: ${solution.non_fouling_candidates} non-fouling arrangements, ` +
      `${solution.samples} samples against ${solution.opponent_model === "greedy" ? "greedy" : "the table policy"}, ` +
      `seed ${solution.seed}${solution.partial ? " (PARTIAL: time budget reached)" : ""}.`;
    renderSolution(solution);
  } catch (error) {
    status.textContent = error.message;
    status.classList.add("error");
  }
});

function renderSolution(solution) {
  const target = $("solution");
  target.innerHTML = `<p class="ev" data-testid="best-ev">Best: ${evText(solution)} per deal</p><div id="shown"></div>` +
    `<h3>Alternatives</h3><div class="alternatives" data-testid="alternatives"></div>`;
  showArrangement($("shown"), solution.best, solution.row_probabilities);
  const list = target.querySelector(".alternatives");
  const options = [{ label: "best", arrangement: solution.best, probabilities: solution.row_probabilities, candidate: solution }]
    .concat(solution.alternatives.map((c, i) => ({ label: `${i + 1}`, arrangement: c.arrangement, probabilities: c.row_probabilities, candidate: c })));
  for (const option of options) {
    const button = document.createElement("button");
    button.type = "button";
    const a = option.arrangement;
    button.textContent = `${option.label}. ${a.front} / ${a.middle} / ${a.back} — ${evText(option.candidate)}`;
    button.addEventListener("click", () => showArrangement($("shown"), option.arrangement, option.probabilities));
    list.appendChild(button);
  }
}

// --- arranging a dealt hand (Train and Play) --------------------------------------------------------
// makeArranger(root, names, onChange): the cards to place and the three rows, built inside `root`; `names`
// gives the test ids of the hand, each row's button (name(row)) and the foul line.
function makeArranger(root, names, onChange) {
  const state = { hand: [], rows: { front: [], middle: [], back: [] }, selected: null };
  root.innerHTML = `<div class="hand" data-testid="${names.hand}" aria-label="Cards to place"></div>` +
    `<div class="rows">${ROWS.map((row) => `<div class="row-target" data-row="${row}"><button class="row-name" ` +
      `data-row="${row}" data-testid="${names.row(row)}">${row[0].toUpperCase() + row.slice(1)} (${SIZES[row]})</button>` +
      `<div class="row-cards"></div></div>`).join("")}</div>` +
    `<p class="status" role="status" aria-live="polite" data-testid="${names.foul}"></p>`;
  const handArea = root.querySelector(".hand");
  const foul = root.querySelector(".status");
  const placed = () => ROWS.flatMap((row) => state.rows[row]);
  const text = () => ROWS.map((row) => state.rows[row].join(" ")).join(" / ");
  let checking = 0;

  async function checkFoul() {
    const complete = placed().length === 13;
    foul.classList.remove("foul");
    onChange(complete);
    if (!complete) {
      foul.textContent = state.hand.length ? `${13 - placed().length} card(s) left to place` : "";
      return;
    }
    const mine = ++checking;
    try {
      const result = await api("/api/check", { arrangement: text(), hand: state.hand.join(" ") });
      if (mine !== checking) return;
      foul.textContent = result.foul ? `FOUL: ${result.foul}` : "Valid arrangement: no foul.";
      if (result.foul) foul.classList.add("foul");
    } catch (error) {
      foul.textContent = error.message;
    }
  }

  function render() {
    handArea.innerHTML = "";
    for (const card of state.hand.filter((c) => !placed().includes(c))) {
      handArea.appendChild(cardButton(card, (button) => {
        button.draggable = true;
        if (card === state.selected) button.classList.add("selected");
        button.addEventListener("click", () => { state.selected = state.selected === card ? null : card; render(); });
        button.addEventListener("dragstart", (event) => event.dataTransfer.setData("text/plain", card));
      }));
    }
    for (const row of ROWS) {
      const cards = root.querySelector(`.row-target[data-row=${row}] .row-cards`);
      cards.innerHTML = "";
      for (const card of state.rows[row]) {
        cards.appendChild(cardButton(card, (button) => {
          button.title = "take back";
          button.addEventListener("click", () => { state.rows[row] = state.rows[row].filter((c) => c !== card); render(); });
        }));
      }
    }
    checkFoul();
  }

  function place(row, card) {
    if (!card || state.rows[row].length >= SIZES[row]) return;
    for (const r of ROWS) state.rows[r] = state.rows[r].filter((c) => c !== card);
    state.rows[row].push(card);
    state.selected = null;
    render();
  }

  for (const target of root.querySelectorAll(".row-target")) {
    const row = target.dataset.row;
    target.querySelector(".row-name").addEventListener("click", () => place(row, state.selected));
    target.addEventListener("dragover", (event) => { event.preventDefault(); target.classList.add("over"); });
    target.addEventListener("dragleave", () => target.classList.remove("over"));
    target.addEventListener("drop", (event) => { event.preventDefault(); target.classList.remove("over"); place(row, event.dataTransfer.getData("text/plain")); });
  }
  return {
    deal(cards) { state.hand = cards; state.rows = { front: [], middle: [], back: [] }; state.selected = null; render(); },
    hand: () => state.hand,
    text,
  };
}

function splitArrangement(text) {
  const [front, middle, back] = text.split("/").map((part) => part.trim());
  return { front, middle, back };
}

function signed(x, digits = 3) {
  const text = fixed(x, digits);
  return text.startsWith("-") ? text : `+${text}`;
}

// --- train -----------------------------------------------------------------------------------------
const train = { seed: null };
const SESSION_KEY = "cpoker-training";
const trainer = makeArranger($("train-arranger"), { hand: "train-hand", row: (row) => `row-${row}`, foul: "foul" },
  (complete) => { $("submit").disabled = !complete; });

function session() {
  return JSON.parse(localStorage.getItem(SESSION_KEY) || '{"hands": 0, "lost": 0}');
}

function showSession() {
  const s = session();
  $("session").textContent = s.hands ? `Session: ${s.hands} hand(s), total EV lost ${fixed(s.lost, 3)} ` +
    `(${fixed(s.lost / s.hands, 3)} per hand; kept in this browser only)` : "";
}

$("deal").addEventListener("click", async () => {
  const seed = $("train-seed").value;
  const dealt = await api(`/api/deal?players=2${seed !== "" ? `&seed=${seed}` : ""}`);
  train.seed = dealt.seed;
  $("dealt-seed").textContent = `seed ${dealt.seed}`;
  $("verdict").innerHTML = "";
  $("train-status").textContent = "";
  trainer.deal(rowCards(dealt.players[0]));
});

$("submit").addEventListener("click", async () => {
  const status = $("train-status");
  try {
    const solution = await withProgress(status, api("/api/solve", {
      hand: trainer.hand().join(" "), samples: 2000, seed: train.seed, compare: trainer.text(),
      opponents: Number($("train-opponents").value), rules: $("train-rules").value,
    }));
    status.textContent = "";
    const yours = solution.compared;
    const lost = yours.ev_lost;
    const [low, high] = yours.ev_lost_interval_95;  // paired: both arrangements scored on the same samples
    $("verdict").innerHTML = `<p class="ev">Your EV <span data-testid="your-ev">${fixed(yours.ev, 3)}</span> · ` +
      `best EV <span data-testid="train-best-ev">${fixed(solution.ev, 3)}</span> · ` +
      `EV lost <span data-testid="ev-lost">${fixed(lost, 3)}</span> ` +
      `<span class="interval" data-testid="ev-lost-interval">[${fixed(low, 3)}, ${fixed(high, 3)}]</span></p>` +
      `<p>Against ${solution.opponents} opponent(s), rules ${solution.rules.name}. The best arrangement:</p>` +
      `<div id="train-best"></div>`;
    showArrangement($("train-best"), solution.best, solution.row_probabilities);
    const s = session();
    localStorage.setItem(SESSION_KEY, JSON.stringify({ hands: s.hands + 1, lost: s.lost + lost }));
    showSession();
  } catch (error) {
    status.textContent = error.message;
    status.classList.add("error");
  }
});

showSession();

// --- review ------------------------------------------------------------------------------------------
const reviewed = { hands: [], key: "number", descending: false };

$("review-file").addEventListener("change", async () => {
  const file = $("review-file").files[0];
  if (!file) return;
  if (file.size > 60 * 1024) {
    $("review-status").textContent = `${file.name} is ${Math.round(file.size / 1024)} KiB; a request takes at most ` +
      "60 KiB (about 500 hands): review it in parts, or with `cpoker review` on the command line";
    $("review-status").classList.add("error");
    return;
  }
  $("review-text").value = await file.text();
});

$("review-run").addEventListener("click", async () => {
  const status = $("review-status");
  const body = {
    text: $("review-text").value, opponents: Number($("review-opponents").value),
    samples: Number($("review-samples").value), rules: $("review-rules").value, skip_bad: $("review-skip").checked,
  };
  if ($("review-seed").value !== "") body.seed = Number($("review-seed").value);
  try {
    const result = await withProgress(status, api("/api/review", body));
    status.textContent = `Reviewed ${result.hands_reviewed} hand(s) in ${fixed(result.seconds, 1)} s, seed ${result.seed}` +
      (result.partial ? ` (PARTIAL: ${result.hands_reviewed} of ${result.requested_hands}; the time budget ran out)` : "") +
      (result.skipped.length ? `; skipped lines ${result.skipped.map((s) => s.line).join(", ")}` : "") + ".";
    reviewed.hands = result.hands;
    showSummary(result.summary);
    renderReview();
  } catch (error) {
    status.textContent = error.message;
    status.classList.add("error");
  }
});

function showSummary(summary) {
  const [low, high] = summary.total_ev_lost_interval_95;
  let html = `<p class="ev">EV lost <span data-testid="review-total">${fixed(summary.total_ev_lost, 3)}</span> ` +
    `[${fixed(low, 3)}, ${fixed(high, 3)}] over <span data-testid="review-hands">${summary.hands}</span> hand(s): ` +
    `${fixed(summary.mean_ev_lost, 4)} a hand</p>` +
    `<p>Fouls <span data-testid="review-fouls">${summary.fouls}</span> · played as well as the best within the noise ` +
    `<span data-testid="review-as-well">${summary.as_well_as_best}</span></p>`;
  if (summary.real_deals) {
    html += `<p>On the ${summary.real_deals} real deal(s): won ${signed(summary.total_actual, 0)} · EV ` +
      `${signed(summary.total_ev)} · luck <span data-testid="review-luck">${signed(summary.total_luck)}</span></p>`;
  }
  $("review-summary").innerHTML = html;
}

function renderReview() {
  const table = $("review-table");
  const body = table.querySelector("tbody");
  const { key, descending } = reviewed;
  const rows = [...reviewed.hands].sort((a, b) => (descending ? b[key] - a[key] : a[key] - b[key]) || a.number - b.number);
  body.innerHTML = "";
  for (const hand of rows) {
    const line = document.createElement("tr");
    line.dataset.number = hand.number;
    if (hand.fouled) line.className = "foul";
    const [low, high] = hand.ev_lost_interval_95;
    line.innerHTML = `<td>${hand.number + 1}</td><td>${hand.line}</td><td class="text">${hand.played}</td>` +
      `<td>${signed(hand.ev_played)}</td><td>${signed(hand.ev_best)}</td><td class="lost">${fixed(hand.ev_lost, 3)}</td>` +
      `<td>[${fixed(low, 3)}, ${fixed(high, 3)}]</td>` +
      `<td class="text">${hand.fouled ? "FOUL" : hand.rows_differ.join(", ") || "same"}` +
      `${hand.should_surrender ? "; surrender was best" : ""}</td>`;
    line.tabIndex = 0;
    const show = () => showReviewedHand(hand, line);
    line.addEventListener("click", show);
    line.addEventListener("keydown", (event) => { if (event.key === "Enter") show(); });
    body.appendChild(line);
  }
  table.hidden = false;
}

for (const button of document.querySelectorAll("#review-table .sort")) {
  button.addEventListener("click", () => {
    reviewed.descending = reviewed.key === button.dataset.key ? !reviewed.descending : true;
    reviewed.key = button.dataset.key;
    for (const other of document.querySelectorAll("#review-table .sort")) other.removeAttribute("aria-sort");
    button.setAttribute("aria-sort", reviewed.descending ? "descending" : "ascending");
    renderReview();
  });
}

function showReviewedHand(hand, line) {
  for (const row of $("review-table").querySelectorAll("tr.chosen")) row.classList.remove("chosen");
  line.classList.add("chosen");
  const detail = $("review-detail");
  detail.innerHTML = `<h3>Hand ${hand.number + 1} (line ${hand.line}${hand.id ? `, ${hand.id}` : ""}): EV lost ` +
    `${fixed(hand.ev_lost, 3)}</h3><div class="pair"><div><h4>Played: EV ${signed(hand.ev_played)}` +
    `${hand.fouled ? " (FOUL)" : ""}</h4><div data-testid="review-played"></div></div>` +
    `<div><h4>Best: EV ${signed(hand.ev_best)}</h4><div data-testid="review-best"></div></div></div>` +
    (hand.actual === null ? "" : `<p>Actual deal: ${signed(hand.actual, 0)} · luck ${signed(hand.luck)}</p>`);
  showArrangement(detail.querySelector("[data-testid=review-played]"), splitArrangement(hand.played));
  showArrangement(detail.querySelector("[data-testid=review-best]"), splitArrangement(hand.best));
}

// --- play: a full table -------------------------------------------------------------------------------
const DEALS_PER_SESSION = 8;
const table = { players: 4, seed: 0, rules: "pagat", rulesToml: "", deal: 0, ledger: [], dealt: null, played: false };
const player = makeArranger($("play-arranger"), { hand: "play-hand", row: (row) => `play-row-${row}`, foul: "play-foul" },
  (complete) => { $("play-submit").disabled = !complete || table.played; });
const seatName = (seat) => (seat === 0 ? "You" : `Opponent ${seat}`);
const ordinal = (n) => `${n}${n % 100 >= 11 && n % 100 <= 13 ? "th" : { 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th"}`;

function places(totals) {
  return totals.map((total) => 1 + totals.filter((other) => other > total).length);  // ties share a place
}

async function dealTable() {
  const seed = table.seed + table.deal;
  table.dealt = await api(`/api/deal?players=${table.players}&seed=${seed}`);
  table.played = false;
  $("play-dealt").textContent = `deal ${table.deal + 1} of ${DEALS_PER_SESSION}, seed ${seed}, dealer ` +
    `${seatName(table.deal % table.players)}`;
  $("play-result").innerHTML = "";
  $("play-status").textContent = "";
  $("play-next").hidden = true;
  $("play-surrender").hidden = !/^\s*surrender\s*=/m.test(table.rulesToml);  // the house rules allow it
  $("play-surrender").disabled = false;
  player.deal(rowCards(table.dealt.players[0]));
}

$("play-new").addEventListener("click", async () => {
  const seed = $("play-seed").value;
  table.players = Number($("play-players").value);
  table.rules = $("play-rules").value;
  table.rulesToml = $("play-rules-toml").value.trim();  // house rules win over the preset
  table.seed = seed !== "" ? Number(seed) : Math.floor(Math.random() * 2 ** 40);
  table.deal = 0;
  table.ledger = [];
  showLedger();
  await dealTable();
});

$("play-next").addEventListener("click", async () => {
  table.deal += 1;
  await dealTable();
});

$("play-submit").addEventListener("click", () => playDeal(player.text()));
$("play-surrender").addEventListener("click", () => playDeal("surrender"));

async function playDeal(arrangement) {
  const status = $("play-status");
  try {
    $("play-submit").disabled = true;
    $("play-surrender").disabled = true;
    const deal = await withProgress(status, api("/api/play", {
      players: table.players, seed: table.dealt.seed, arrangement, rules: table.rules,
      rules_toml: table.rulesToml || null, deal: table.deal, session_deals: DEALS_PER_SESSION,
    }));
    table.played = true;
    status.textContent = "";
    showDeal(deal);
    table.ledger.push({ results: deal.results, stake: deal.stake });
    showLedger();
    if (table.deal + 1 < DEALS_PER_SESSION) $("play-next").hidden = false;
    else status.textContent = "Session over: the standings are final.";
  } catch (error) {
    $("play-submit").disabled = false;
    $("play-surrender").disabled = false;
    status.textContent = error.message;
    status.classList.add("error");
  }
}

function showDeal(deal) {
  const review = deal.review;
  const n = deal.results.length;
  const stake = deal.stake === 1 ? "" : ` at this deal's stake ×<span data-testid="play-stake">${deal.stake}</span>` +
    " (the EVs are per unit)";
  const gaveUp = review.surrendered ? ` <span data-testid="play-surrendered">by surrendering</span>` : "";
  let html = `<p class="ev">You won <span data-testid="play-actual">${signed(deal.results[0], 0)}</span>${gaveUp}${stake} · your EV ` +
    `<span data-testid="play-your-ev">${signed(review.ev_played)}</span> · best EV ` +
    `<span data-testid="play-best-ev">${signed(review.ev_best)}</span> · luck ` +
    `<span data-testid="play-luck">${signed(review.luck)}</span></p>` +
    `<table class="data" data-testid="play-matrix"><thead><tr><th class="text">won from →</th>` +
    deal.results.map((_, j) => `<th>${seatName(j)}</th>`).join("") + "<th>Total</th></tr></thead><tbody>";
  for (let i = 0; i < n; i++) {
    html += `<tr><td class="text">${seatName(i)}</td>` + deal.matrix[i].map((x, j) => `<td>${i === j ? "·" : signed(x, 0)}</td>`).join("") +
      `<td data-testid="play-total-${i}">${signed(deal.results[i], 0)}</td></tr>`;
  }
  html += `</tbody></table><div class="pair">` + deal.arrangements.map((_, i) => `<div class="seat"><h4>${seatName(i)}` +
    `${deal.arrangements[i].foul ? " (FOUL)" : ""}${deal.arrangements[i].surrender ? " (surrendered)" : ""}</h4>` +
    `<div data-testid="play-seat-${i}"></div></div>`).join("") +
    `<div class="seat"><h4>Best for you (EV ${signed(review.ev_best)})</h4><div data-testid="play-best"></div></div></div>`;
  $("play-result").innerHTML = html;
  deal.arrangements.forEach((arrangement, i) => {
    const seat = $("play-result").querySelector(`[data-testid=play-seat-${i}]`);
    if (arrangement.surrender) seat.innerHTML = `<p class="surrendered">Gave up the deal.</p>`;
    else showArrangement(seat, arrangement);
  });
  showArrangement($("play-result").querySelector("[data-testid=play-best]"), splitArrangement(review.best));
}

function showLedger() {
  const ledger = $("play-ledger");
  if (!table.ledger.length) {
    ledger.innerHTML = "";
    $("play-standings").innerHTML = "";
    return;
  }
  const totals = Array(table.players).fill(0);
  const staked = table.ledger.some((deal) => deal.stake !== 1);  // rising session stakes: show each deal's
  let html = `<thead><tr><th>Deal</th><th class="text">Dealer</th>${staked ? "<th>Stake</th>" : ""}` +
    Array.from({ length: table.players }, (_, i) => `<th>${seatName(i)}</th>`).join("") + "</tr></thead><tbody>";
  table.ledger.forEach(({ results, stake }, d) => {
    results.forEach((x, i) => { totals[i] += x; });
    html += `<tr><td>${d + 1}</td><td class="text">${seatName(d % table.players)}</td>` +
      (staked ? `<td data-testid="ledger-stake-${d}">×${stake}</td>` : "") +
      results.map((x) => `<td>${signed(x, 0)}</td>`).join("") + "</tr>";
  });
  html += `<tr><th>Total</th><th></th>${staked ? "<th></th>" : ""}` + totals.map((t, i) => `<th data-testid="ledger-total-${i}">${signed(t, 0)}</th>`).join("") +
    "</tr></tbody>";
  ledger.innerHTML = html;
  const place = places(totals);
  const order = totals.map((_, i) => i).sort((a, b) => place[a] - place[b] || a - b);
  $("play-standings").innerHTML = `<p data-testid="standings">Standings after ${table.ledger.length} deal(s): ` +
    order.map((i) => `<span data-testid="place-${i}">${ordinal(place[i])}</span> ${seatName(i)} (${signed(totals[i], 0)})`).join(" · ") + "</p>";
}

// --- open face -----------------------------------------------------------------------------------------
// A hand is replayed on the server from the session's seed and your placements (POST /api/ofc/play): nothing
// of the game lives here but your placements so far, this round's pending cards and the ledger.
const ofcState = { seed: null, hand: 0, placements: [], fantasyland: [0, 0], turn: null, pending: null,
  selected: null, ledger: [], rules: "pineapple", rollouts: 300, opponents: 1, histories: [], epoch: 0 };
const OFC_SAVED = "cpoker-ofc"; // the session in play, its ledger and its hands' histories, kept in this browser
const OFC_MISTAKES = "cpoker-ofc-mistakes"; // the drill's mistakes, kept across sessions
const OFC_KEPT_HISTORIES = 300; // the hands of a session kept for its review and export (the newest)

function ofcSave() {
  const { seed, hand, placements, fantasyland, ledger, rules, rollouts, opponents, histories } = ofcState;
  try {
    localStorage.setItem(OFC_SAVED, JSON.stringify({ seed, hand, placements, fantasyland, ledger, rules, rollouts,
      opponents, histories }));
  } catch (e) { /* private mode, or full: nothing kept */ }
}

function ofcSettings() {
  // the rules, the opponents and their rollouts in force from the next hand: a hand keeps those it was dealt with
  const opponents = Number($("ofc-opponents").value) || 1;
  if (opponents !== ofcState.opponents || $("ofc-rules").value !== ofcState.rules) {
    ofcState.fantasyland = new Array(opponents + 1).fill(0); // another table: nobody carries a Fantasyland to it
  }
  ofcState.rules = $("ofc-rules").value;
  ofcState.rollouts = Number($("ofc-rollouts").value) || 300;
  ofcState.opponents = opponents;
}

function sortedCards(cards) {
  return [...cards].sort((a, b) => RANKS.indexOf(a[0]) - RANKS.indexOf(b[0]) || a[1].localeCompare(b[1]));
}

const OFC_REVIEW_SAMPLES = 1000; // the rollouts a decision is ranked with, by the Hint and by the review

function ofcRules() { return ofcState.rules; }

function boardRows(text) {
  // "Qh / 9s 9d / -" -> {front: ["Qh"], middle: ["9s", "9d"], back: []}
  const parts = (text || "- / - / -").split("/").map((part) => part.trim());
  return Object.fromEntries(ROWS.map((row, i) => [row, parts[i] && parts[i] !== "-" ? parts[i].split(/\s+/) : []]));
}

function boardText(rows) {
  return ROWS.map((row) => (rows[row].length ? rows[row].join(" ") : "-")).join(" / ");
}

function showOfcBoard(target, rows, pending, interactive) {
  target.innerHTML = "";
  for (const row of ROWS) {
    const line = document.createElement("div");
    line.className = "ofc-row";
    line.dataset.row = row;
    const name = document.createElement("button");
    name.type = "button";
    name.className = "row-name";
    name.textContent = `${row} (${SIZES[row]})`;
    const prefix = { "ofc-board": "ofc-row", "ofc-opponent": "ofc-opp", "ofc-opponent-2": "ofc-opp2" }[target.id];
    name.setAttribute("data-testid", `${prefix}-${row}`);
    line.appendChild(name);
    for (const card of rows[row]) line.appendChild(cardButton(card));
    for (const card of (pending ? pending[row] : [])) {
      line.appendChild(cardButton(card, (button) => {
        button.classList.add("pending");
        button.title = "placed this round: click to take it back";
        button.addEventListener("click", () => ofcTakeBack(card));
      }));
    }
    if (interactive) {
      name.addEventListener("click", () => ofcPut(row));
      line.addEventListener("dragover", (event) => { event.preventDefault(); line.classList.add("over"); });
      line.addEventListener("dragleave", () => line.classList.remove("over"));
      line.addEventListener("drop", (event) => {
        event.preventDefault();
        line.classList.remove("over");
        ofcState.selected = event.dataTransfer.getData("text/plain");
        ofcPut(row);
      });
    }
    target.appendChild(line);
  }
}

function ofcPendingCount() {
  return ROWS.reduce((n, row) => n + ofcState.pending[row].length, 0);
}

function ofcRender() {
  const turn = ofcState.turn;
  if (!turn) return;
  const others = turn.opponents || [turn.opponent];
  showOfcBoard($("ofc-opponent"), boardRows(others[0]), null, false);
  const second = others.length > 1;
  $("ofc-opponent-title").textContent = second ? "Opponent 1" : "Opponent";
  $("ofc-opponent-2-title").hidden = $("ofc-opponent-2").hidden = !second;
  if (second) showOfcBoard($("ofc-opponent-2"), boardRows(others[1]), null, false);
  if (turn.done) {
    showOfcBoard($("ofc-board"), boardRows(turn.you.board), null, false);
    $("ofc-hand").innerHTML = "";
    $("ofc-place").disabled = true;
    $("ofc-hint").disabled = true;
    return;
  }
  const view = turn.you;
  const fixedRows = boardRows(view.board);
  showOfcBoard($("ofc-board"), fixedRows, ofcState.pending, true);
  const placed = new Set(ROWS.flatMap((row) => ofcState.pending[row]));
  const hand = $("ofc-hand");
  hand.innerHTML = "";
  const dealt = view.cards.split(" ");
  $("ofc-discards").textContent = view.discards ? `Your discards: ${view.discards}` : "";
  const inFantasyland = (view.opponent_fantasylands || []).map((size, i) => size ?
    `${others.length > 1 ? `Opponent ${i + 1}` : "The opponent"} is in Fantasyland (${size} cards): its board is ` +
    "set face down until the end of the hand." : "").filter(Boolean);
  $("ofc-opp-note").textContent = inFantasyland.join(" ");
  for (const card of (view.fantasyland ? sortedCards(dealt) : dealt)) {
    if (placed.has(card)) continue;
    hand.appendChild(cardButton(card, (button) => {
      button.draggable = true;
      button.setAttribute("aria-pressed", String(ofcState.selected === card));
      button.addEventListener("click", () => {
        ofcState.selected = ofcState.selected === card ? null : card;
        ofcRender();
      });
      button.addEventListener("dragstart", (event) => event.dataTransfer.setData("text/plain", card));
    }));
  }
  const left = view.keep - ofcPendingCount();
  $("ofc-place").disabled = left !== 0;
  $("ofc-hint").disabled = false;
  const what = view.fantasyland ? `Fantasyland: set 13 of your ${dealt.length} cards`
    : `place ${view.keep} of ${dealt.length}`;
  $("ofc-status").classList.remove("error");
  $("ofc-status").textContent = left ? `Hand ${ofcState.hand + 1}: ${what} (${left} to go)` :
    `Hand ${ofcState.hand + 1}: ready to place`;
}

function ofcRefuse(message) {
  // a card that cannot go where it was put: say why, and leave everything as it was
  $("ofc-status").classList.add("error");
  $("ofc-status").textContent = message;
}

function ofcPut(row) {
  const card = ofcState.selected;
  const view = ofcState.turn && !ofcState.turn.done ? ofcState.turn.you : null;
  if (!card || !view) return;
  const room = SIZES[row] - boardRows(view.board)[row].length - ofcState.pending[row].length;
  if (room <= 0) return ofcRefuse(`The ${row} is full (${SIZES[row]} cards): put ${card} in another row.`);
  if (ofcPendingCount() >= view.keep) {
    return ofcRefuse(`You place ${view.keep} card${view.keep > 1 ? "s" : ""} this round` +
      (view.keep < view.cards.split(" ").length ? " and discard the rest" : "") + ": take one back first.");
  }
  for (const other of ROWS) ofcState.pending[other] = ofcState.pending[other].filter((c) => c !== card);
  ofcState.pending[row].push(card);
  ofcState.selected = null;
  ofcRender();
}

function ofcTakeBack(card) {
  for (const row of ROWS) ofcState.pending[row] = ofcState.pending[row].filter((c) => c !== card);
  ofcRender();
}

async function ofcRequest() {
  const epoch = ++ofcState.epoch; // an answer to an older request (a late Hint) is dropped
  ofcSave();
  $("ofc-status").classList.remove("error");
  $("ofc-status").textContent = "The opponent is thinking...";
  $("ofc-place").disabled = true;
  $("ofc-hint").disabled = true;
  $("ofc-hints").innerHTML = "";
  try {
    const turn = await api("/api/ofc/play", { seed: ofcState.seed, hand: ofcState.hand, placements: ofcState.placements,
      fantasyland: ofcState.fantasyland, rules: ofcRules(), rollouts: ofcState.rollouts,
      opponents: ofcState.opponents, review_samples: OFC_REVIEW_SAMPLES });
    if (epoch !== ofcState.epoch) return;
    ofcState.turn = turn;
    ofcState.pending = { front: [], middle: [], back: [] };
    ofcState.selected = null;
    $("ofc-hints").innerHTML = "";
    ofcRender();
    if (turn.done) ofcFinish(turn);
  } catch (error) {
    if (epoch !== ofcState.epoch) return;
    $("ofc-status").classList.add("error");
    $("ofc-status").textContent = error.message;
  }
}

function ofcBoardSummary(player, who, rows) {
  // one board's result: its royalties by row, its foul, its Fantasyland, and (yours) each row won or lost
  const names = { 1: "won", 0: "tied", "-1": "lost" };
  const byRow = ROWS.map((row, i) => `${row} ${player.royalties[row]}${rows ? ` (${names[rows[i]]})` : ""}`).join(", ");
  const foul = player.foul ? ` <span class="foul" data-testid="ofc-${who}-foul">FOUL: ${player.foul}</span>` : "";
  const title = who === "you" ? "You" : who === "opponent" ? "Opponent" : `Opponent ${who.slice(-1)}`;
  return `<p data-testid="ofc-${who}-summary"><b>${title}</b>: royalties ` +
    `<span data-testid="ofc-${who}-royalties">${player.royalty_total}</span> (${byRow})${foul}` +
    `${player.fantasyland ? ` · Fantasyland next hand (${player.fantasyland} cards)` : ""}</p>`;
}

function ofcFinish(turn) {
  const players = turn.settlement.players.length;
  const you = turn.settlement.players[turn.seat];
  const others = Array.from({ length: players - 1 }, (_, k) => turn.settlement.players[(turn.seat + 1 + k) % players]);
  const summaries = others.length === 1 ? ofcBoardSummary(others[0], "opponent", null) :
    others.map((other, k) => ofcBoardSummary(other, `opponent-${k + 1}`, null)).join("");
  const lines = turn.review.map((r) => `<tr><td>${r.decision}</td><td>${r.fantasyland ? "-" : fixed(r.loss, 3)}</td>
    <td>${r.fantasyland ? "" : `${r.rank} of ${r.options}`}</td><td class="text">${r.cards}</td>
    <td class="text">${r.chosen}</td><td class="text">${r.best}</td>
    <td>${r.fantasyland ? "" : `[${fixed(r.loss_interval[0], 3)}, ${fixed(r.loss_interval[1], 3)}]`}</td></tr>`);
  const next = turn.next_fantasyland;
  const fantasy = next.you ? ` You play the next hand in Fantasyland (${next.you} cards).` : "";
  $("ofc-result").innerHTML = `<p class="ev" data-testid="ofc-points">${turn.points > 0 ? "+" : ""}${turn.points} points</p>
    ${ofcBoardSummary(you, "you", turn.rows)}${summaries}
    <p>${fantasy}</p><div class="scroll"><table class="data" data-testid="ofc-review"><thead><tr><th>#</th>
    <th>EV lost</th><th>Rank</th><th class="text">Dealt</th><th class="text">You played</th><th class="text">Best</th>
    <th>95% interval</th></tr></thead><tbody>${lines.join("")}</tbody></table></div>`;
  ofcState.ledger.push({ hand: ofcState.hand + 1, points: turn.points, royalties: you.royalty_total,
    foul: Boolean(you.foul), fantasyland: ofcState.fantasyland[0] > 0 });
  ofcState.fantasyland = [next.you, ...(next.opponents || [next.opponent])];
  if (turn.history) ofcState.histories = ofcState.histories.concat([turn.history]).slice(-OFC_KEPT_HISTORIES);
  ofcState.finished = true;
  ofcSave();
  ofcShowLedger();
  $("ofc-status").textContent = `Hand ${ofcState.hand + 1} is over.`;
  $("ofc-next").hidden = false;
}

function ofcShowLedger() {
  let total = 0;
  const rows = ofcState.ledger.map((entry) => {
    total += entry.points;
    return `<tr class="${entry.foul ? "foul" : ""}"><td>${entry.hand}</td><td>${entry.fantasyland ? "yes" : ""}</td>
      <td>${entry.royalties}</td><td>${entry.points > 0 ? "+" : ""}${entry.points}</td><td>${total > 0 ? "+" : ""}${total}</td></tr>`;
  });
  $("ofc-ledger").innerHTML = `<thead><tr><th>Hand</th><th>Fantasyland</th><th>Royalties</th><th>Points</th>
    <th>Total</th></tr></thead><tbody>${rows.join("")}</tbody>`;
}

function optionTable(options, testid, shown = 10) {
  const more = options.length > shown ? `<button type="button" class="more" data-testid="${testid}-all"
    onclick="this.previousElementSibling.querySelectorAll('tr[hidden]').forEach((r) => { r.hidden = false; });
    this.remove()">Show all ${options.length}</button>` : "";
  // EV and loss first: at phone width they are what shows without scrolling
  // then what players decide by: the chance the board fouls, that it earns Fantasyland, its expected royalties
  const percent = (p) => `${Math.round(100 * p)}%`;
  const rows = options.map((o, i) => `<tr${i >= shown ? " hidden" : ""}><td>${i + 1}</td><td>${fixed(o.ev, 3)}</td>
    <td>${i ? fixed(o.loss, 3) : "best"}</td><td class="text">${o.board}</td><td class="text">${o.discard || ""}</td>
    <td>${percent(o.foul_chance)}</td><td>${percent(o.fantasyland_chance)}</td><td>${fixed(o.royalties, 2)}</td>
    <td>[${fixed(o.interval[0], 3)}, ${fixed(o.interval[1], 3)}]</td><td>${o.samples}</td></tr>`);
  return `<div class="scroll"><table class="data" data-testid="${testid}"><thead><tr><th>#</th><th>EV</th>
    <th>Loses</th><th class="text">Board</th><th class="text">Discard</th><th>Fouls</th><th>Fantasyland</th>
    <th>Royalties</th><th>95% interval</th><th title="how deep the search took it">Rollouts</th></tr></thead>
    <tbody>${rows.join("")}</tbody></table>${more}</div>`;
}

$("ofc-hint").addEventListener("click", async () => {
  const view = ofcState.turn && ofcState.turn.you;
  if (!view || ofcState.turn.done) return;
  const epoch = ofcState.epoch; // a Place or a new hand since: this answer is for a decision gone, and dropped
  $("ofc-hint").disabled = true;
  $("ofc-status").classList.remove("error");
  $("ofc-status").textContent = "Rolling every option out...";
  try {
    // the decision's own ranking: its ranking seed and the review's samples, so that the review at the hand's
    // end ranks the options exactly as the Hint does
    if (view.fantasyland) {
      const best = await api("/api/ofc/fantasy", { cards: view.cards, rules: ofcRules(), seed: view.ranking_seed,
        samples: OFC_REVIEW_SAMPLES });
      if (epoch !== ofcState.epoch) return;
      $("ofc-hints").innerHTML = `<p data-testid="ofc-hint-fantasy">Best Fantasyland board: ${best.board}
        (discard ${best.discards || "none"}), EV ${fixed(best.value, 3)}</p>`;
    } else {
      const found = await api("/api/ofc/place", { board: view.board, cards: view.cards, opponents: view.opponents,
        fantasylands: view.opponent_fantasylands, dead: view.discards, rules: ofcRules(), samples: OFC_REVIEW_SAMPLES,
        seed: view.ranking_seed });
      if (epoch !== ofcState.epoch) return;
      $("ofc-hints").innerHTML = optionTable(found.placements, "ofc-hint-table");
    }
    if (epoch !== ofcState.epoch) return;
    ofcRender();
  } catch (error) {
    if (epoch !== ofcState.epoch) return;
    $("ofc-status").classList.add("error");
    $("ofc-status").textContent = error.message;
    $("ofc-hint").disabled = false;
  }
});

$("ofc-place").addEventListener("click", () => {
  if ($("ofc-place").disabled || !ofcState.turn || ofcState.turn.done) return;
  $("ofc-place").disabled = true; // one decision, one placement: a second click is nothing
  const view = ofcState.turn.you;
  const rows = boardRows(view.board);
  for (const row of ROWS) rows[row] = rows[row].concat(ofcState.pending[row]);
  ofcState.placements.push(boardText(rows));
  if ($("ofc-drill").checked) ofcGrade(view, boardText(rows), ofcState.hand, ofcRules());
  ofcRequest();
});

$("ofc-new").addEventListener("click", () => {
  const seed = $("ofc-seed").value;
  ofcState.seed = seed === "" ? Math.floor(Math.random() * 2 ** 31) : Number(seed);
  ofcState.hand = 0;
  ofcState.placements = [];
  ofcState.ledger = [];
  ofcState.histories = [];
  ofcState.finished = false;
  ofcSettings();
  ofcState.fantasyland = new Array(ofcState.opponents + 1).fill(0);
  $("ofc-dealt").textContent = `session seed ${ofcState.seed}`;
  $("ofc-result").innerHTML = "";
  $("ofc-next").hidden = true;
  ofcShowLedger();
  ofcRequest();
});

$("ofc-next").addEventListener("click", () => {
  ofcState.hand += 1;
  ofcState.placements = [];
  ofcState.finished = false;
  ofcSettings();
  $("ofc-result").innerHTML = "";
  $("ofc-next").hidden = true;
  ofcRequest();
});

// --- the drill: each decision graded as it is made, the mistakes kept to retry ------------------------------
function gradeText(found) {
  // a placement's rank among the options and what it lost against the best, on the same deals
  const mine = found.placements[found.compared - 1];
  const interval = `[${fixed(mine.loss_interval[0], 3)}, ${fixed(mine.loss_interval[1], 3)}]`;
  if (found.compared === 1) return `Best: rank 1 of ${found.placements.length}.`;
  return `Rank ${found.compared} of ${found.placements.length}: loses ${fixed(mine.loss, 3)} ${interval} against ` +
    `${found.placements[0].board}` + (mine.loss_interval[0] > 0 ? " (a mistake)" : " (as good within the noise)");
}

function ofcMistakes() {
  try { return JSON.parse(localStorage.getItem(OFC_MISTAKES) || "[]"); } catch (e) { return []; }
}

function ofcKeepMistakes(mistakes) {
  try { localStorage.setItem(OFC_MISTAKES, JSON.stringify(mistakes.slice(-200))); } catch (e) { /* not kept */ }
  ofcShowMistakes();
}

function ofcShowMistakes() {
  const mistakes = ofcMistakes();
  $("ofc-mistake-count").textContent = String(mistakes.length);
  $("ofc-mistakes").innerHTML = mistakes.length ? `<thead><tr><th>Lost</th><th class="text">Board</th>
    <th class="text">Dealt</th><th class="text">You played</th><th class="text">Best</th><th></th></tr></thead><tbody>` +
    mistakes.map((m, i) => `<tr><td>${fixed(m.loss, 3)}</td><td class="text">${m.board}</td>
      <td class="text">${m.cards}</td><td class="text">${m.chosen}</td><td class="text">${m.best}</td>
      <td><button type="button" data-testid="ofc-retry-${i}" onclick="ofcRetry(${i})">Retry</button></td></tr>`).join("") +
    "</tbody>" : "";
}

function fantasylandGradeText(compared) {
  // a Fantasyland board against the solver's best, on the same opponent boards
  const interval = `[${fixed(compared.loss_interval[0], 3)}, ${fixed(compared.loss_interval[1], 3)}]`;
  if (compared.loss === 0) return `Fantasyland: as good as the best (EV ${fixed(compared.value, 3)}).`;
  return `Fantasyland: loses ${fixed(compared.loss, 3)} ${interval} against ${compared.best}` +
    (compared.loss_interval[0] > 0 ? " (a mistake)" : " (as good within the noise)");
}

async function ofcGrade(view, chosen, hand, rules) {
  // the Hint's ranking (the decision's ranking seed, the review's rollouts), the choice kept to the end of it
  $("ofc-grade").classList.remove("error");
  $("ofc-grade").textContent = "Grading your placement...";
  if (view.fantasyland) return ofcGradeFantasyland(view, chosen, hand, rules);
  const position = { board: view.board, cards: view.cards, opponents: view.opponents,
    fantasylands: view.opponent_fantasylands, dead: view.discards, rules, samples: OFC_REVIEW_SAMPLES,
    seed: view.ranking_seed };
  try {
    const found = await api("/api/ofc/place", { ...position, compare: chosen });
    const mine = found.placements[found.compared - 1];
    $("ofc-grade").textContent = `Hand ${hand + 1}, ${view.cards}: ${gradeText(found)}`;
    if (mine.loss_interval[0] > 0) {
      ofcKeepMistakes(ofcMistakes().concat([{ ...position, chosen, best: found.placements[0].board, loss: mine.loss,
        id: `${Date.now()}-${Math.random()}` }]));
    }
  } catch (error) {
    $("ofc-grade").classList.add("error");
    $("ofc-grade").textContent = `The grade failed: ${error.message}`;
  }
}

async function ofcGradeFantasyland(view, chosen, hand, rules) {
  // the Hint's Fantasyland board (the decision's ranking seed, the review's opponent boards), and the player's
  try {
    const found = await api("/api/ofc/fantasy", { cards: view.cards, rules, samples: OFC_REVIEW_SAMPLES,
      seed: view.ranking_seed, compare: chosen });
    const compared = found.compared;
    $("ofc-grade").textContent = `Hand ${hand + 1}: ${fantasylandGradeText(compared)}`;
    if (compared.loss_interval[0] > 0) {
      ofcKeepMistakes(ofcMistakes().concat([{ fantasyland: true, board: "- / - / -", cards: view.cards, rules,
        samples: OFC_REVIEW_SAMPLES, seed: view.ranking_seed, chosen, best: compared.best, loss: compared.loss,
        id: `${Date.now()}-${Math.random()}` }]));
    }
  } catch (error) {
    $("ofc-grade").classList.add("error");
    $("ofc-grade").textContent = `The grade failed: ${error.message}`;
  }
}

function ofcRetry(index) {
  // the exact position in the editor (a Fantasyland in its solver): the same ranking seed and rollouts, so its
  // grade is the drill's
  const mistake = ofcMistakes()[index];
  if (!mistake) return;
  ofcState.retrying = mistake.id;
  if (mistake.fantasyland) {
    $("fl-rules").value = mistake.rules;
    $("fl-cards").value = mistake.cards;
    $("fl-samples").value = String(mistake.samples);
    $("fl-seed").value = String(mistake.seed);
    $("fl-answer").value = "";
    $("fl-result").innerHTML = "";
    $("ofc-fl-box").open = true;
    $("fl-status").classList.remove("error");
    $("fl-status").textContent = `Retry: set 13 of ${mistake.cards}; type your board and Solve to grade it.`;
    $("fl-answer").focus();
    return;
  }
  const opponents = mistake.opponents || [];
  const sizes = mistake.fantasylands || [];
  $("an-rules").value = mistake.rules;
  $("an-board").value = mistake.board;
  $("an-cards").value = mistake.cards;
  $("an-opponent").value = opponents[0] || "- / - / -";
  $("an-fl-1").value = String(sizes[0] || 0);
  $("an-opponent-2").value = opponents.length > 1 ? opponents[1] : "";
  $("an-fl-2").value = String(sizes[1] || 0);
  $("an-dead").value = mistake.dead || "";
  $("an-samples").value = String(mistake.samples);
  $("an-seed").value = String(mistake.seed);
  $("an-answer").value = "";
  $("an-result").innerHTML = "";
  $("ofc-analyse").open = true;
  $("an-status").classList.remove("error");
  $("an-status").textContent = `Retry: place ${mistake.cards} on ${mistake.board}; type your placement and Analyse ` +
    "to grade it.";
  $("an-answer").focus();
}

$("ofc-mistakes-clear").addEventListener("click", () => ofcKeepMistakes([]));

$("ofc-analyse-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("an-status").classList.remove("error");
  $("an-result").innerHTML = ""; // an answer shown is the answer to the question asked now, or none
  $("an-status").textContent = "Rolling every option out...";
  const second = $("an-opponent-2").value.trim() || Number($("an-fl-2").value) > 0;
  const opponents = [$("an-opponent").value || "- / - / -"].concat(second ?
    [$("an-opponent-2").value.trim() || "- / - / -"] : []);
  const fantasylands = [Number($("an-fl-1").value)].concat(second ? [Number($("an-fl-2").value)] : []);
  const answer = $("an-answer").value.trim();
  try {
    const found = await api("/api/ofc/place", { board: $("an-board").value, cards: $("an-cards").value, opponents,
      fantasylands, dead: $("an-dead").value, rules: $("an-rules").value,
      samples: Number($("an-samples").value) || 1000, seed: Number($("an-seed").value) || 0,
      compare: answer || null });
    $("an-result").innerHTML = optionTable(found.placements, "an-table");
    let status = found.exact ? `${found.placements.length} options (exact)` :
      `${found.placements.length} options, up to ${found.samples} rollouts each (those out of contention stop early)`;
    if (answer) {
      status = `Your placement: ${gradeText(found)} ${status}`;
      const mine = found.placements[found.compared - 1];
      if (ofcState.retrying && mine.loss_interval[0] <= 0) { // a mistake put right leaves the log
        ofcKeepMistakes(ofcMistakes().filter((m) => m.id !== ofcState.retrying));
        ofcState.retrying = null;
        status += " Put right: it leaves the log.";
      }
    }
    $("an-status").textContent = status;
  } catch (error) {
    $("an-status").classList.add("error");
    $("an-status").textContent = error.message;
  }
});

// --- the Fantasyland solver ------------------------------------------------------------------------------
$("ofc-fl-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("fl-status").classList.remove("error");
  $("fl-result").innerHTML = "";
  $("fl-status").textContent = "Solving...";
  try {
    const answer = $("fl-answer").value.trim();
    const found = await api("/api/ofc/fantasy", { cards: $("fl-cards").value, rules: $("fl-rules").value,
      samples: Number($("fl-samples").value) || 1000, seed: Number($("fl-seed").value) || 0, runners_up: 4,
      compare: answer || null });
    const boards = [found].concat(found.runners_up || []);
    $("fl-result").innerHTML = `<table class="data" data-testid="fl-table"><thead><tr><th>#</th><th>EV</th>
      <th class="text">Board</th><th class="text">Discard</th><th>Royalties</th><th>Stays</th></tr></thead><tbody>` +
      boards.map((b, i) => `<tr><td>${i + 1}</td><td>${fixed(b.value, 3)}</td><td class="text">${b.board}</td>
        <td class="text">${b.discards || ""}</td><td>${b.royalty_total}</td>
        <td>${b.stays ? `yes (${b.next_fantasyland} cards)` : "no"}</td></tr>`).join("") + "</tbody></table>";
    let status = `The best board of ${found.cards.split(" ").length} cards against ${found.samples} ` +
      `opponent boards (${found.rules.name}); staying counts ${fixed(found.fantasyland_value, 1)} points.`;
    if (found.compared) {
      status = `Your board: ${fantasylandGradeText(found.compared)} ${status}`;
      if (ofcState.retrying && found.compared.loss_interval[0] <= 0) { // a mistake put right leaves the log
        ofcKeepMistakes(ofcMistakes().filter((m) => m.id !== ofcState.retrying));
        ofcState.retrying = null;
        status += " Put right: it leaves the log.";
      }
    }
    $("fl-status").textContent = status;
  } catch (error) {
    $("fl-status").classList.add("error");
    $("fl-status").textContent = error.message;
  }
});

// --- the review of a session: this one's hands, pasted ones, or a file's ------------------------------------
function ofcSessionText() {
  return JSON.stringify({ format: "cpoker-ofc-session", hands: ofcState.histories });
}

$("ofc-export").addEventListener("click", () => {
  if (!ofcState.histories.length) {
    $("ofc-review-status").textContent = "No hand of this session is over yet: nothing to export.";
    return;
  }
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([ofcSessionText()], { type: "application/json" }));
  link.download = `cpoker-ofc-session-${ofcState.seed}.json`;
  document.body.appendChild(link);
  link.click();
  link.remove();
});

$("ofc-review-file").addEventListener("change", async () => {
  const file = $("ofc-review-file").files[0];
  if (file) $("ofc-review-text").value = await file.text();
});

async function ofcReview(histories) {
  $("ofc-review-status").classList.remove("error");
  $("ofc-review-result").innerHTML = "";
  $("ofc-review-status").textContent = "Reviewing every decision...";
  const player = $("ofc-review-player").value.trim();
  try {
    const found = await api("/api/ofc/review", { histories, players: player ? [player] : null,
      samples: Number($("ofc-review-samples").value) || 300, seed: Number($("ofc-review-seed").value) || 0 });
    const players = found.players.map((p) => `<tr><td class="text">${p.name}</td><td>${p.hands}</td>
      <td>${p.decisions}</td><td>${p.points > 0 ? "+" : ""}${p.points}</td><td>${fixed(p.skill, 2)}</td>
      <td>${fixed(p.luck, 2)}</td><td>${fixed(p.mean_ev_lost, 3)}</td><td>${p.mistakes}</td></tr>`).join("");
    const order = found.decisions.map((d, i) => i).sort((a, b) => found.decisions[b].ev_lost -
      found.decisions[a].ev_lost || a - b);
    const rows = order.map((i) => {
      const d = found.decisions[i];
      return `<tr class="${d.mistake ? "foul" : ""}"><td>${fixed(d.ev_lost, 3)}</td>
        <td>[${fixed(d.ev_lost_interval[0], 3)}, ${fixed(d.ev_lost_interval[1], 3)}]</td>
        <td>${d.fantasyland ? "Fantasyland" : `${d.rank} of ${d.options}`}</td><td>${d.hand + 1}.${d.decision}</td>
        <td class="text">${d.board}</td><td class="text">${d.cards}</td><td class="text">${d.chosen}</td>
        <td class="text">${d.best}</td></tr>`;
    }).join("");
    $("ofc-review-result").innerHTML = `<div class="scroll"><table class="data" data-testid="ofc-review-players">
      <thead><tr><th class="text">Player</th><th>Hands</th><th>Decisions</th><th>Result</th><th>Skill</th>
      <th>Luck</th><th>EV lost a decision</th><th>Mistakes</th></tr></thead><tbody>${players}</tbody></table></div>
      <div class="scroll"><table class="data" data-testid="ofc-review-decisions"><thead><tr><th>EV lost</th>
      <th>95% interval</th><th>Rank</th><th>Hand.decision</th><th class="text">Board</th><th class="text">Dealt</th>
      <th class="text">Played</th><th class="text">Best</th></tr></thead><tbody>${rows}</tbody></table></div>`;
    $("ofc-review-status").textContent = `${found.hands} hands, ${found.decisions.length} decisions, the costliest ` +
      `first (result = skill + luck; ${found.samples} rollouts a decision, seed ${found.seed})` +
      (found.partial ? `: PARTIAL, ${found.hands} of ${found.asked_hands} hands in the time a request has` : "");
  } catch (error) {
    $("ofc-review-status").classList.add("error");
    $("ofc-review-status").textContent = error.message;
  }
}

$("ofc-review-session").addEventListener("click", () => {
  if (!ofcState.histories.length) {
    $("ofc-review-status").textContent = "No hand of this session is over yet: nothing to review.";
    return;
  }
  ofcReview(ofcSessionText());
});

$("ofc-review-run").addEventListener("click", () => ofcReview($("ofc-review-text").value));

for (const id of ["ofc-rules", "ofc-rollouts", "ofc-opponents"]) {
  $(id).addEventListener("change", () => {
    if (ofcState.turn && !ofcState.finished) {
      $("ofc-status").textContent = "New settings apply from the next hand: this one plays on as it was dealt.";
    }
  });
}

ofcShowMistakes();

(function ofcRestore() {
  // a reload finds the session where it was: the ledger, and the hand in play replayed from its placements
  let saved = null;
  try { saved = JSON.parse(localStorage.getItem(OFC_SAVED) || "null"); } catch (e) { saved = null; }
  if (!saved || typeof saved.seed !== "number") return;
  Object.assign(ofcState, { seed: saved.seed, hand: saved.hand || 0, placements: saved.placements || [],
    fantasyland: saved.fantasyland || [0, 0], ledger: saved.ledger || [], rules: saved.rules || "pineapple",
    rollouts: saved.rollouts || 300, opponents: saved.opponents || 1, histories: saved.histories || [] });
  $("ofc-rules").value = ofcState.rules;
  $("ofc-rollouts").value = ofcState.rollouts;
  $("ofc-opponents").value = String(ofcState.opponents);
  $("ofc-dealt").textContent = `session seed ${ofcState.seed}`;
  ofcShowLedger();
  const ended = ofcState.ledger.length > ofcState.hand; // the hand saved was over: deal the next on request
  if (ended) {
    ofcState.finished = true;
    $("ofc-next").hidden = false;
    $("ofc-status").textContent = `Hand ${ofcState.hand + 1} is over.`;
  } else {
    ofcRequest();
  }
})();
