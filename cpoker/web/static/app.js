"use strict";
// cpoker's page: no framework, no build step. It only calls the JSON API that `cpoker serve` documents.

const RANKS = "AKQJT98765432";
const SUITS = [["s", "\u2660", "spades"], ["h", "\u2665", "hearts"], ["d", "\u2666", "diamonds"], ["c", "\u2663", "clubs"]];
const SUIT = Object.fromEntries(SUITS.map(([letter, symbol, name]) => [letter, { symbol, name }]));
const ROWS = ["front", "middle", "back"];
const SIZES = { front: 3, middle: 5, back: 5 };
const $ = (id) => document.getElementById(id);

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
  return `EV ${candidate.ev >= 0 ? "+" : ""}${candidate.ev.toFixed(3)} [${low.toFixed(3)}, ${high.toFixed(3)}]`;
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
    rules: $("rules").value,
  };
  if ($("seed").value !== "") body.seed = Number($("seed").value);
  try {
    const solution = await withProgress(status, api("/api/solve", body));
    status.textContent = `Done in ${solution.seconds.toFixed(2)} s: ${solution.non_fouling_candidates} non-fouling arrangements, ` +
      `${solution.samples} samples, seed ${solution.seed}${solution.partial ? " (PARTIAL: time budget reached)" : ""}.`;
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

// --- train -----------------------------------------------------------------------------------------
const train = { hand: [], rows: { front: [], middle: [], back: [] }, selected: null, seed: null };
const SESSION_KEY = "cpoker-training";

function session() {
  return JSON.parse(localStorage.getItem(SESSION_KEY) || '{"hands": 0, "lost": 0}');
}

function showSession() {
  const s = session();
  $("session").textContent = s.hands ? `Session: ${s.hands} hand(s), total EV lost ${s.lost.toFixed(3)} ` +
    `(${(s.lost / s.hands).toFixed(3)} per hand; kept in this browser only)` : "";
}

function placed() {
  return ROWS.flatMap((row) => train.rows[row]);
}

function renderTrain() {
  const hand = $("train-hand");
  hand.innerHTML = "";
  for (const card of train.hand.filter((c) => !placed().includes(c))) {
    hand.appendChild(cardButton(card, (button) => {
      button.draggable = true;
      if (card === train.selected) button.classList.add("selected");
      button.addEventListener("click", () => { train.selected = train.selected === card ? null : card; renderTrain(); });
      button.addEventListener("dragstart", (event) => event.dataTransfer.setData("text/plain", card));
    }));
  }
  for (const row of ROWS) {
    const cards = document.querySelector(`.row-target[data-row=${row}] .row-cards`);
    cards.innerHTML = "";
    for (const card of train.rows[row]) {
      cards.appendChild(cardButton(card, (button) => {
        button.title = "take back";
        button.addEventListener("click", () => { train.rows[row] = train.rows[row].filter((c) => c !== card); renderTrain(); });
      }));
    }
  }
  checkFoul();
}

function place(row, card) {
  if (!card || train.rows[row].length >= SIZES[row]) return;
  for (const r of ROWS) train.rows[r] = train.rows[r].filter((c) => c !== card);
  train.rows[row].push(card);
  train.selected = null;
  renderTrain();
}

for (const target of document.querySelectorAll(".row-target")) {
  const row = target.dataset.row;
  target.querySelector(".row-name").addEventListener("click", () => place(row, train.selected));
  target.addEventListener("dragover", (event) => { event.preventDefault(); target.classList.add("over"); });
  target.addEventListener("dragleave", () => target.classList.remove("over"));
  target.addEventListener("drop", (event) => { event.preventDefault(); target.classList.remove("over"); place(row, event.dataTransfer.getData("text/plain")); });
}

function arrangementText() {
  return ROWS.map((row) => train.rows[row].join(" ")).join(" / ");
}

let checking = 0;
async function checkFoul() {
  const foul = $("foul");
  const complete = placed().length === 13;
  $("submit").disabled = !complete;
  foul.classList.remove("foul");
  if (!complete) {
    foul.textContent = train.hand.length ? `${13 - placed().length} card(s) left to place` : "";
    return;
  }
  const mine = ++checking;
  try {
    const result = await api("/api/check", { arrangement: arrangementText(), hand: train.hand.join(" ") });
    if (mine !== checking) return;
    foul.textContent = result.foul ? `FOUL: ${result.foul}` : "Valid arrangement: no foul.";
    if (result.foul) foul.classList.add("foul");
  } catch (error) {
    foul.textContent = error.message;
  }
}

$("deal").addEventListener("click", async () => {
  const seed = $("train-seed").value;
  const dealt = await api(`/api/deal?players=2${seed !== "" ? `&seed=${seed}` : ""}`);
  train.hand = rowCards(dealt.players[0]);
  train.rows = { front: [], middle: [], back: [] };
  train.selected = null;
  train.seed = dealt.seed;
  $("dealt-seed").textContent = `seed ${dealt.seed}`;
  $("verdict").innerHTML = "";
  $("train-status").textContent = "";
  renderTrain();
});

$("submit").addEventListener("click", async () => {
  const status = $("train-status");
  try {
    const solution = await withProgress(status, api("/api/solve", {
      hand: train.hand.join(" "), samples: 2000, seed: train.seed, compare: arrangementText(),
    }));
    status.textContent = "";
    const yours = solution.compared;
    const lost = yours.ev_lost;
    const [low, high] = yours.ev_lost_interval_95;  // paired: both arrangements scored on the same samples
    $("verdict").innerHTML = `<p class="ev">Your EV <span data-testid="your-ev">${yours.ev.toFixed(3)}</span> · ` +
      `best EV <span data-testid="train-best-ev">${solution.ev.toFixed(3)}</span> · ` +
      `EV lost <span data-testid="ev-lost">${lost.toFixed(3)}</span> ` +
      `<span class="interval" data-testid="ev-lost-interval">[${low.toFixed(3)}, ${high.toFixed(3)}]</span></p>` +
      `<p>The best arrangement:</p><div id="train-best"></div>`;
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
