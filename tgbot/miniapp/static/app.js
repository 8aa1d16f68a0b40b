// The Mini App's page: the board, the players, the hand and the choices of the decision
// the player owes, all from the server's JSON (legal moves included: the page offers
// nothing else). A move is posted with the game version it was chosen at and a key of
// its own; a refusal is shown in the bot's words and the board is drawn afresh.
import * as telegram from "./telegram.js";
import { CELL, COLOR, bounds, boardMarkup, frame, origin, tile } from "./board.js";
import { BoardView } from "./view.js";
import { TOOLS, actionCard, setActionIcons, toolIcon } from "./icons.js";

const $ = (id) => document.getElementById(id);
const api = new URL("api/", location.href);
const RETRY_MS = [500, 1000, 2000, 4000, 8000];

let texts = {};
let icons = {}; // the one legend's icons, by name (tgbot.presenter.icons)
let legend = null; // {title, lines}: the chat's "?" screen
let legendOpen = false;
let state = null;
let ui = fresh();
let busy = false;
let clockOffset = 0;
let gameId = "";
let board = null;

function fresh() {
  return { mode: "root", card: null, rotated: false, cell: null, selected: [], removeKind: null, confirm: null };
}

// An icon of the legend by its name ("turn", "gold" ...), "" before the server said.
function icon(name) {
  return icons[name] || "";
}

// The form of a counted message for n (the server's table of the language's plural rule).
function pluralForm(forms, n) {
  const table = texts._plural || [];
  const count = Math.abs(Math.trunc(Number(n) || 0));
  const index = table[count < table.length ? count : 100 + (count % 100)] ?? 0;
  return forms[Math.min(index, forms.length - 1)];
}

function t(key, params = {}) {
  let template = texts[key] ?? key;
  if (Array.isArray(template)) template = pluralForm(template, params.n ?? params.count);
  return template.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

// A time left as a person says it (tgbot.presenter.texts.Texts.remaining).
function remaining(seconds) {
  const whole = Math.max(0, Math.ceil(seconds));
  if (whole < 60) return t("bot.duration_seconds", { n: whole });
  let minutes = Math.ceil(whole / 60);
  if (minutes < 60) return t("bot.duration_minutes", { n: minutes });
  let hours = Math.floor(minutes / 60);
  minutes %= 60;
  if (hours < 24) {
    const parts = [t("bot.duration_hours", { n: hours })];
    if (minutes && hours < 6) parts.push(t("bot.duration_minutes", { n: minutes }));
    return parts.join(" ");
  }
  const days = Math.floor((hours + (minutes > 0 ? 1 : 0)) / 24);
  hours = (hours + (minutes > 0 ? 1 : 0)) % 24;
  const parts = [t("bot.duration_days", { n: days })];
  if (hours) parts.push(t("bot.duration_hours", { n: hours }));
  return parts.join(" ");
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "onclick") node.addEventListener("click", value);
    else if (key === "html") node.innerHTML = value;
    else if (value !== false && value != null) node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) if (child != null) node.append(child);
  return node;
}

function key() {
  if (crypto.randomUUID) return crypto.randomUUID();
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

function headers() {
  return { Authorization: `tma ${telegram.initData()}`, "Content-Type": "application/json" };
}

// ------------------------------------------------------------------------ start

async function main() {
  await telegram.start();
  board = new BoardView($("board"), tapCell);
  $("fit").addEventListener("click", () => board.fit());
  $("seats").addEventListener("scroll", seatCues, { passive: true });
  new ResizeObserver(seatCues).observe($("seats"));
  $("seats-more").addEventListener("click", () => scrollSeats(1));
  $("seats-back").addEventListener("click", () => scrollSeats(-1));
  $("legend-open").addEventListener("click", () => showLegend(true));
  $("legend").addEventListener("click", () => showLegend(false));
  gameId = telegram.startParam();
  if (!gameId) {
    const mine = await request("GET", "mine");
    if (!mine.ok) return cover(mine.body.error);
    texts = mine.body.texts;
    gameId = mine.body.games[0] || "";
    if (!gameId) return cover(t("miniapp.no_game"));
  }
  const opened = await request("GET", `game/${encodeURIComponent(gameId)}`);
  if (!opened.ok) return cover(opened.body.error);
  texts = opened.body.texts;
  icons = opened.body.icons || {};
  legend = opened.body.legend || null;
  setActionIcons(icons.actions || {});
  document.title = t("miniapp.title");
  document.documentElement.lang = opened.body.state.lang;
  show(opened.body.state);
  $("cover").hidden = true;
  setInterval(tick, 1000);
  follow();
}

async function request(method, path, body) {
  try {
    const response = await fetch(new URL(path, api), {
      method,
      headers: headers(),
      body: body ? JSON.stringify(body) : undefined,
      cache: "no-store",
    });
    let data = {};
    try {
      data = await response.json();
    } catch {
      data = { error: `${response.status}` };
    }
    return { ok: response.ok, status: response.status, body: data };
  } catch (error) {
    return { ok: false, status: 0, body: { error: t("miniapp.reconnecting") } };
  }
}

function cover(message) {
  const box = $("cover");
  box.textContent = message || t("miniapp.no_game");
  box.classList.add("refused");
  box.hidden = false;
}

// Server-sent events over fetch (so initData travels in a header, not in the address).
async function follow() {
  let attempt = 0;
  for (;;) {
    try {
      const response = await fetch(new URL(`game/${encodeURIComponent(gameId)}/live`, api), {
        headers: headers(),
        cache: "no-store",
      });
      if (response.status === 401 || response.status === 403 || response.status === 404) {
        const body = await response.json().catch(() => ({}));
        return cover(body.error);
      }
      if (!response.ok || !response.body) throw new Error(`live: ${response.status}`);
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        setOnline(true);
        attempt = 0;
        buffer += value;
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          received(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
      }
    } catch (error) {
      console.info("live updates interrupted", error);
    }
    setOnline(false);
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS[Math.min(attempt++, RETRY_MS.length - 1)]));
  }
}

function received(block) {
  let event = "message", data = "";
  for (const line of block.split("\n")) {
    if (line.startsWith("event:")) event = line.slice(6).trim();
    else if (line.startsWith("data:")) data += line.slice(5).trim();
  }
  if (event === "state" && data) show(JSON.parse(data));
}

function setOnline(online) {
  $("offline").hidden = online;
  if (!online) $("offline").textContent = t("miniapp.reconnecting");
}

// ------------------------------------------------------------------------ showing

function show(next) {
  if (!next) return;
  if (state && next.game === state.game) {
    // An answer can arrive after newer live updates: the board never goes back in time;
    // and the same version again (a reconnection) changes nothing on it.
    if (next.version <= state.version) return;
  }
  const before = state;
  state = next;
  clockOffset = state.now - Date.now();
  const sameChoices = before && JSON.stringify(before.moves) === JSON.stringify(state.moves);
  if (!sameChoices) ui = fresh();
  render();
}

function render() {
  // What the page shows, for anyone (and any test) looking at it.
  document.body.dataset.version = state.version;
  document.body.dataset.mode = busy ? "busy" : ui.mode;
  renderTop();
  renderSeats();
  renderBoard();
  renderPanel();
  renderHand();
  renderNews();
  renderLegend();
  if (legendOpen) telegram.backButton(() => showLegend(false));
  else telegram.backButton(ui.mode !== "root" ? () => { ui = fresh(); render(); } : null);
}

// What the icons mean: the chat's "?" screen, over the board until tapped (or Back).
function showLegend(open) {
  legendOpen = open && Boolean(legend);
  if (state) render();
  else renderLegend();
}

function renderLegend() {
  const box = $("legend");
  $("legend-open").textContent = t("legend.button");
  $("legend-open").hidden = !legend;
  box.hidden = !legendOpen;
  if (!legendOpen) return;
  const lines = legend.lines.map((line) => el("p", {}, line));
  box.replaceChildren(el("h2", {}, legend.title), ...lines, el("button", { type: "button" }, t("turn.button_back")));
}

function seat(id) {
  return state.seats.find((s) => s.id === id);
}

function renderTop() {
  $("round").textContent = state.phase === "playing" || state.phase === "finished" ? t("miniapp.round", { round: state.round }) : "";
  $("pile").textContent = t("miniapp.draw_pile", { count: state.draw_pile });
  const mine = [];
  if (state.role) mine.push(`${icon("dwarf")} ${state.role}`);
  if (state.gold != null) mine.push(`${icon("gold")} ${state.gold}`);
  $("mine").textContent = mine.join(" · ");
  $("mine").title = state.role ? t("turn.your_role", { role: state.role }) : "";
  tick();
}

function tick() {
  if (!state) return;
  const pending = state.pending;
  const clock = $("clock");
  if (!pending || state.phase !== "playing") {
    clock.textContent = "";
    return;
  }
  const left = (pending.deadline - (Date.now() + clockOffset)) / 1000;
  clock.textContent = t("miniapp.deadline", { left: remaining(left) });
  clock.classList.toggle("urgent", left < 30);
}

function renderSeats() {
  const list = $("seats");
  list.replaceChildren();
  for (const s of state.seats) {
    const fronts = s.front.map((f) => f.kind);
    const tools = TOOLS.map((tool) => toolIcon(tool, fronts.includes(`broken_${tool}`))).join("");
    const extra = [];
    if (fronts.includes("trapped")) extra.push(icon("trapped"));
    if (fronts.includes("theft")) extra.push(icon("theft"));
    if (s.has_gold) extra.push(icon("gold"));
    if (s.away) extra.push(icon("away"));
    const chip = el(
      "div",
      { class: `seat${s.turn ? " turn" : ""}${s.id === state.me ? " me" : ""}`, "data-seat": s.id, title: s.front.map((f) => f.name).join(", ") },
      el("div", { class: "name" }, (s.turn ? `${icon("turn")} ` : "") + s.name),
      el("div", { class: "info", html: `<span>${icon("cards")}${s.hand}</span>${tools}<span>${extra.join("")}</span>` }),
    );
    if (s.inspected) chip.append(el("div", { class: "inspected" }, `${icon("inspection")} ${s.inspected}`));
    list.append(chip);
  }
  // Whoever is on turn is in view when the turn comes to them.
  const turn = list.querySelector(".seat.turn");
  const onTurn = state.pending?.player ?? null;
  if (turn && onTurn !== shownTurn) turn.scrollIntoView({ block: "nearest", inline: "nearest" });
  shownTurn = onTurn;
  seatCues();
}

let shownTurn = null;

// The seats that do not fit are a swipe away: an arrow at the strip's end says so (and
// a tap on it scrolls).
function seatCues() {
  const list = $("seats");
  const left = list.scrollLeft;
  const hidden = list.scrollWidth - list.clientWidth - left;
  $("seats-more").hidden = hidden <= 1;
  $("seats-back").hidden = left <= 1;
}

function scrollSeats(direction) {
  const list = $("seats");
  list.scrollBy({ left: direction * list.clientWidth * 0.7, behavior: "smooth" });
}

// The moves of the selected card, by kind.
function movesOf(card) {
  return state.moves.filter((m) => m.card === card && (m.type === "PlacePath" || m.type === "PlayAction"));
}

function renderBoard() {
  const extra = [];
  let marks = "";
  const focus = [];
  if (state.last) marks += frame(state.last[0], state.last[1], COLOR.mark, 5);
  if (ui.mode === "path") {
    // Every cell where the card fits lights up, with a ghost of it the way it fits there
    // (the way chosen, where both fit).
    const card = state.hand.find((c) => c.id === ui.card);
    const shape = state.shapes[card.kind];
    for (const [cell, ways] of placements(ui.card)) {
      const [x, y] = cell;
      const way = ways.includes(ui.rotated) ? ui.rotated : ways[0];
      extra.push(cell);
      focus.push(cell);
      const chosen = same(ui.cell, cell);
      const [px, py] = origin(x, y);
      marks += `<g class="ghost${chosen ? " chosen" : ""}" data-cell="${x},${y}" transform="translate(${px},${py})" opacity="${chosen ? 0.95 : 0.45}">${tile(card.kind, way, true, null, shape)}</g>`;
      marks += frame(x, y, COLOR.mark, chosen ? 6 : 3, chosen ? 'class="pulse"' : 'stroke-dasharray="10 6"');
    }
  } else if (ui.mode === "action") {
    for (const m of movesOf(ui.card)) {
      if (!m.target_cell) continue;
      const [x, y] = m.target_cell;
      focus.push(m.target_cell);
      const chosen = ui.cell && ui.cell[0] === x && ui.cell[1] === y;
      const [px, py] = origin(x, y);
      marks += frame(x, y, COLOR.mark, chosen ? 6 : 4, chosen ? 'class="pulse"' : "");
      marks += `<circle class="target" data-cell="${x},${y}" cx="${px + CELL / 2}" cy="${py + CELL / 2}" r="${chosen ? 16 : 11}" fill="${COLOR.mark}" stroke="#000" stroke-width="2" opacity="0.9"/>`;
    }
  }
  const box = bounds(state.board, extra.length ? extra : state.moves.filter((m) => m.type === "PlacePath").map((m) => m.cell));
  board.draw(box, boardMarkup(state, box), marks, focus);
}

function button(label, onclick, cls = "") {
  return el("button", { class: cls, onclick, disabled: busy }, label);
}

function renderPanel() {
  const prompt = $("prompt");
  const choices = $("choices");
  choices.replaceChildren();
  const me = state.me;
  const pending = state.pending;
  const mine = pending && pending.player === me;
  const comeBack = state.moves.find((m) => m.type === "ComeBack");
  let line = "";
  if (state.phase === "finished") {
    // The group's own lines: who won, and everyone's gold.
    line = state.finished?.lines?.join("\n") || t("miniapp.game_over");
  } else if (state.phase !== "playing") {
    line = t("error.not_started");
  } else if (me == null) {
    line = t("miniapp.spectator");
    if (pending) line += " " + t("turn.waiting", { name: seat(pending.player)?.name || "?" });
  } else if (!mine) {
    line = pending ? t("turn.waiting", { name: seat(pending.player)?.name || "?" }) : "";
  } else if (pending.kind === "gold_pick") {
    line = `${icon("gold")} ${t("miniapp.gold_pick", { values: state.offer.join(", ") })}`;
    for (const m of state.moves.filter((m) => m.type === "PickGold")) choices.append(button(m.label, () => send(m)));
  } else if (pending.kind === "theft") {
    line = `${icon("theft")} ${t("miniapp.theft")}`;
    for (const m of state.moves.filter((m) => m.type === "ChooseTheftVictim")) choices.append(button(m.label, () => send(m)));
  } else {
    line = turnPanel(choices);
  }
  if (comeBack) {
    if (ui.mode === "root") line = `${t("miniapp.away")} ${line}`.trim();
    choices.append(button(t("bot.button_come_back"), () => send(comeBack), "primary"));
  }
  prompt.textContent = line;
}

function cardName(id) {
  return state.hand.find((c) => c.id === id)?.name || "?";
}

function turnPanel(choices) {
  const back = () => button(t("turn.button_back"), () => { ui = fresh(); render(); });
  switch (ui.mode) {
    case "path": {
      // A choice of ways where both fit: at the chosen cell, else at some lit cell.
      const cells = placements(ui.card);
      const here = ui.cell ? cells.find(([cell]) => same(cell, ui.cell))?.[1] || [] : null;
      const somewhere = cells.some(([, ways]) => ways.length > 1) ? [false, true] : [];
      const ways = symmetric(ui.card) ? [] : here || somewhere;
      if (ways.length > 1) {
        for (const r of ways) {
          choices.append(button(t(r ? "miniapp.turned" : "miniapp.as_printed"), () => turn(r), ui.rotated === r ? "on" : ""));
        }
      }
      if (ui.cell) {
        const move = movesOf(ui.card).find((m) => m.rotated === ui.rotated && same(m.cell, ui.cell));
        choices.append(button(t("miniapp.place"), () => send(move), "primary"));
      }
      choices.append(back());
      return t("miniapp.choose_cell", { card: cardName(ui.card) });
    }
    case "action": {
      const moves = movesOf(ui.card);
      const kind = state.hand.find((c) => c.id === ui.card)?.kind;
      if (moves.some((m) => m.target_cell)) {
        if (ui.cell) {
          const move = moves.find((m) => same(m.target_cell, ui.cell));
          choices.append(button(t("miniapp.play"), () => send(move), "primary"));
        }
        choices.append(back());
        return t(kind === "map" ? "miniapp.choose_goal" : "miniapp.choose_rockfall");
      }
      if (ui.confirm) {
        // A card that breaks one's own tool: asked once more, never played by one tap.
        choices.append(button(t("turn.button_confirm"), () => send(ui.confirm), "primary"));
        choices.append(button(t("turn.button_back"), () => { ui.confirm = null; render(); }));
        return t("miniapp.self_harm", { card: cardName(ui.card) });
      }
      const pick = (m) => (m.harm ? () => { ui.confirm = m; telegram.haptic("select"); render(); } : () => send(m));
      if (moves.length === 1 && moves[0].self && !moves[0].harm) {
        // One target, oneself (a theft): the card is played with one button, as in the chat.
        const target = t("turn.yourself");
        choices.append(button(t("turn.play_on", { card: cardName(ui.card), target }), pick(moves[0]), "primary"));
        choices.append(back());
        return cardName(ui.card);
      }
      // Oneself first, named and marked as such; then the others in seating order.
      const ordered = [...moves.filter((m) => m.self), ...moves.filter((m) => !m.self)];
      for (const m of ordered) choices.append(button(m.label, pick(m), m.self ? "self" : ""));
      choices.append(back());
      return t("turn.choose_player", { card: cardName(ui.card) });
    }
    case "pass": {
      const chosen = [...ui.selected].sort((a, b) => a - b);
      const move = state.moves.find((m) => m.type === "Pass" && same(m.cards, chosen));
      if (move) choices.append(button(t("turn.button_confirm"), () => send(move), "primary"));
      choices.append(back());
      return t(state.edition === "base" ? "miniapp.choose_discard_one" : "miniapp.choose_discard_many");
    }
    case "remove": {
      const options = state.moves.filter((m) => m.type === "DiscardToRemove");
      if (!ui.removeKind) {
        const kinds = [...new Set(options.map((m) => m.removed))];
        const names = Object.fromEntries((seat(state.me)?.front || []).map((f) => [f.kind, f.name]));
        for (const kind of kinds) {
          choices.append(button(names[kind] || kind, () => { ui.removeKind = kind; ui.selected = []; render(); }));
        }
        choices.append(back());
        return t("miniapp.choose_remove");
      }
      const chosen = [...ui.selected].sort((a, b) => a - b);
      const move = options.find((m) => m.removed === ui.removeKind && same(m.cards, chosen));
      if (move) choices.append(button(t("turn.button_confirm"), () => send(move), "primary"));
      choices.append(back());
      return t("miniapp.choose_remove_cards");
    }
    default: {
      if (state.moves.some((m) => m.type === "Pass")) {
        choices.append(button(t("turn.button_pass"), () => { ui = { ...fresh(), mode: "pass" }; telegram.haptic("select"); render(); }));
      }
      const removable = [...new Set(state.moves.filter((m) => m.type === "DiscardToRemove").map((m) => m.removed))];
      if (removable.length) {
        // One card in front: nothing to ask, straight to the two cards to discard.
        const removeKind = removable.length === 1 ? removable[0] : null;
        choices.append(button(t("turn.button_discard_remove"), () => { ui = { ...fresh(), mode: "remove", removeKind }; telegram.haptic("select"); render(); }));
      }
      return t("miniapp.your_turn");
    }
  }
}

// A card that looks the same turned (a cross, a straight): no need to choose a way.
function symmetric(card) {
  const kind = state.hand.find((c) => c.id === card)?.kind;
  const [printed, turned] = state.shapes[kind]?.segments || [[], [1]];
  const sorted = (list) => [...list].sort((a, b) => a - b);
  return same(sorted(printed), sorted(turned));
}

function same(a, b) {
  return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => v === b[i]);
}

function turn(rotated) {
  ui.rotated = rotated;
  telegram.haptic("select");
  render();
}

// The cells where a path card fits, each with the ways it fits there ([false], [true] or
// both), from the legal moves.
function placements(card) {
  const found = new Map();
  for (const m of movesOf(card)) {
    const key = m.cell.join(",");
    if (!found.has(key)) found.set(key, [m.cell, []]);
    found.get(key)[1].push(m.rotated);
  }
  return [...found.values()];
}

function renderHand() {
  const hand = $("hand");
  hand.replaceChildren();
  hand.hidden = state.me == null || state.phase !== "playing";
  const mine = state.pending && state.pending.player === state.me && state.pending.kind === "turn";
  for (const c of state.hand) {
    const playable = movesOf(c.id).length > 0;
    const selecting = ui.mode === "pass" || (ui.mode === "remove" && ui.removeKind);
    const chosen = ui.card === c.id || ui.selected.includes(c.id);
    const picture = c.path ? tile(c.kind, ui.card === c.id && ui.rotated, true, null, state.shapes[c.kind]) : actionCard(c.kind);
    const node = el(
      "button",
      {
        class: `card${chosen ? " chosen" : ""}${mine && (playable || selecting) ? "" : " idle"}`,
        "data-card": c.id,
        disabled: busy || !mine,
        onclick: () => tapCard(c),
      },
      el("span", { class: "picture", html: `<svg viewBox="0 0 ${CELL} ${CELL}">${picture}</svg>` }),
      el("span", { class: "label" }, unbroken(c.name)),
    );
    hand.append(node);
  }
  for (const label of hand.querySelectorAll(".label")) fitLabel(label);
}

// A path card's shape ("curva ┌ + ╵") never breaks across lines: no-break spaces in it.
function unbroken(name) {
  return name.replace(/([\u2500-\u257f]) \+ (?=[\u2500-\u257f])/g, "$1\u00a0+\u00a0");
}

// A card's name fits its card: whole words, a size smaller if need be; a word longer
// than the card still is split, with a hyphen (a soft one at each letter).
function fitLabel(label) {
  for (let size = 10.5; size >= 8.5 && label.scrollWidth > label.clientWidth; size -= 0.5) {
    label.style.fontSize = `${size}px`;
  }
  if (label.scrollWidth > label.clientWidth) {
    label.textContent = label.textContent.replace(/\S{9,}/g, (word) => [...word].join("\u00ad"));
  }
}

function renderNews() {
  const news = $("news");
  news.replaceChildren();
  const lines = state.news || [];
  if (!lines.length) {
    news.hidden = true;
    return;
  }
  news.hidden = false;
  const summary = el("summary", {}, lines[lines.length - 1].split("\n")[0]);
  news.append(summary, ...lines.slice().reverse().map((line) => el("p", {}, line)));
}

// ------------------------------------------------------------------------ choosing

function tapCard(c) {
  if (busy) return;
  telegram.haptic("select");
  if (ui.mode === "pass" && state.edition === "base") {
    // The base game discards exactly one card: the tap is the choice, as in the chat.
    return send(state.moves.find((m) => m.type === "Pass" && same(m.cards, [c.id])));
  }
  if (ui.mode === "pass" || (ui.mode === "remove" && ui.removeKind)) {
    const most = ui.mode === "remove" ? 2 : state.edition === "base" ? 1 : 3;
    if (ui.selected.includes(c.id)) ui.selected = ui.selected.filter((id) => id !== c.id);
    else if (most === 1) ui.selected = [c.id];
    else if (ui.selected.length < most) ui.selected = [...ui.selected, c.id];
    return render();
  }
  if (ui.card === c.id) {
    ui = fresh();
    return render();
  }
  const moves = movesOf(c.id);
  if (!moves.length) {
    // A dimmed card says why it cannot be played, in the chat's words.
    if (c.why) toast(c.why, "why");
    return;
  }
  const path = moves[0].type === "PlacePath";
  ui = { ...fresh(), mode: path ? "path" : "action", card: c.id };
  if (path) ui.rotated = !symmetric(c.id) && !moves.some((m) => !m.rotated);
  render();
}

// A finger that lands just beside a lit cell means that cell (cells are small on a phone).
function nearest(cells, x, y, bx, by) {
  if (cells.some((c) => same(c, [x, y]))) return [x, y];
  let best = null, distance = CELL * 0.75;
  for (const c of cells) {
    const [px, py] = origin(c[0], c[1]);
    const d = Math.hypot(px + CELL / 2 - bx, py + CELL / 2 - by);
    if (d < distance) [best, distance] = [c, d];
  }
  return best;
}

function tapCell(x, y, bx, by) {
  if (busy || !state) return;
  if (ui.mode === "path") {
    const lit = placements(ui.card);
    const cell = nearest(lit.map(([c]) => c), x, y, bx, by);
    const ways = lit.find(([found]) => same(found, cell))?.[1];
    if (!ways) return;
    if (!ways.includes(ui.rotated)) ui.rotated = ways[0]; // only the other way fits there
    if (same(ui.cell, cell)) return send(movesOf(ui.card).find((m) => m.rotated === ui.rotated && same(m.cell, cell)));
    ui.cell = cell;
    telegram.haptic("select");
    return render();
  }
  if (ui.mode === "action") {
    const targets = movesOf(ui.card).filter((m) => m.target_cell).map((m) => m.target_cell);
    const cell = nearest(targets, x, y, bx, by);
    const move = movesOf(ui.card).find((m) => same(m.target_cell, cell));
    if (!move) return;
    if (same(ui.cell, cell)) return send(move);
    ui.cell = cell;
    telegram.haptic("select");
    return render();
  }
}

async function send(move) {
  if (busy || !move) return;
  busy = true;
  render();
  // The page's own words and marks (label, self, harm) are not sent back: the move goes
  // as the codec knows it (the server would drop them anyway).
  const { label, self: mine, harm, ...command } = move;
  const answer = await request("POST", `game/${encodeURIComponent(gameId)}/move`, {
    version: state.version,
    key: key(),
    move: command,
  });
  busy = false;
  telegram.haptic(answer.ok ? "success" : "error");
  if (answer.status === 401 || answer.status === 404) return cover(answer.body.error);
  if (!answer.ok) toast(answer.body.error || "?");
  ui = fresh();
  show(answer.body.state);
  render();
}

let toastTimer = 0;
function toast(message, kind = "refused") {
  const box = $("toast");
  box.textContent = message;
  box.className = kind;
  box.hidden = false;
  // A card's reason shows just above the panel, by the hand that was tapped; a refusal
  // at the top, over the board.
  box.style.top = "";
  if (kind === "why") box.style.top = `${Math.max(0, $("panel").getBoundingClientRect().top - box.offsetHeight - 8)}px`;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.hidden = true; }, 4000);
}

main().catch((error) => {
  console.error(error);
  cover(String(error));
});
