// The room: one tile (or one list row) per table, found by player name, filtered and sorted.
//
// Every tile is drawn inside its own guard: a table whose data cannot be shown becomes a tile
// that says so, and the rest of the room is drawn as usual.
import { $, byNatural, countdown, duration, fold, h, hhmm, mmss, nameMatches } from "./dom.js";
import { S, hubNow, playerName, runningReserve, runningSide } from "./state.js";
import { inRoom, renderRoomTabs } from "./rooms.js";

const PREFS_KEY = "bg.room.prefs";
export const prefs = Object.assign({ q: "", filter: "all", sort: "table", layout: "tiles", room: "" },
  JSON.parse(localStorage.getItem(PREFS_KEY) || "{}"));

const NEEDS_ME = new Set(["flag", "td_call", "late", "offline", "verify", "no_table"]);
const FILTERS = {
  all: () => true,
  needs: (t) => !!t.urgency || NEEDS_ME.has(t.status),
  playing: (t) => ["playing", "between_games", "opening", "paused", "break"].includes(t.status),
  waiting: (t) => ["waiting", "late", "opening"].includes(t.status),
  finished: (t) => ["finished", "verify"].includes(t.status),
  offline: (t) => ["offline", "reconnecting", "no_table", "room_offline", "room_catching_up"].includes(t.status),
  clock: (t) => !!(t.clock && t.clock.enabled),
};
const URGENCY_RANK = { critical: 0, high: 1, medium: 2, low: 3 };
const STATUS_RANK = ["flag", "td_call", "offline", "room_offline", "late", "verify", "reconnecting", "room_catching_up",
  "break", "paused", "playing",
  "between_games", "opening", "waiting", "no_table", "finished", "idle"];

function timeLeft(t) {
  if (!t.clock || !t.clock.enabled || !t.clock.reserve_ms) return Infinity;
  return Math.min(runningReserve(t, "A"), runningReserve(t, "B"));
}

const SORTS = {
  table: (a, b) => byNatural(a.table, b.table),
  urgency: (a, b) => (URGENCY_RANK[a.urgency] ?? 9) - (URGENCY_RANK[b.urgency] ?? 9)
    || STATUS_RANK.indexOf(a.status) - STATUS_RANK.indexOf(b.status) || byNatural(a.table, b.table),
  status: (a, b) => STATUS_RANK.indexOf(a.status) - STATUS_RANK.indexOf(b.status) || byNatural(a.table, b.table),
  time: (a, b) => timeLeft(a) - timeLeft(b) || byNatural(a.table, b.table),
};

/** Tiles as received; anything that is not an object with a table id is left out. */
export function acceptTiles(list) {
  return (Array.isArray(list) ? list : []).filter((t) => t && typeof t === "object" && (typeof t.table === "string" || typeof t.table === "number"));
}

/** A tile's player's search words, as the hub sent them (hub/names.py), if it did. */
function searchWords(t, side) {
  const s = t.search && typeof t.search === "object" ? t.search[side] : null;
  return Array.isArray(s) ? s : undefined;
}

export function matchesQuery(t, q) {
  if (!q) return true;
  const players = t.players && typeof t.players === "object" ? t.players : {};
  return String(t.table) === q.trim()
    || nameMatches(String(players.A || ""), q, searchWords(t, "A")) || nameMatches(String(players.B || ""), q, searchWords(t, "B"))
    || fold(String(t.match_id || "")) === fold(q);
}

function visible() {
  const filter = FILTERS[prefs.filter] || FILTERS.all;
  const out = [];
  for (const t of S.tables.values()) {
    try {
      if (filter(t) && inRoom(t, prefs.room) && matchesQuery(t, prefs.q)) out.push(t);
    } catch (e) { out.push(t); }
  }
  try { out.sort(SORTS[prefs.sort] || SORTS.table); } catch (e) { /* keep the order received */ }
  return out;
}

// -- a tile ----------------------------------------------------------------------------------

function text(v) { return v === null || v === undefined ? "" : typeof v === "object" ? "?" : String(v); }

function clockText(t) {
  const c = t.clock;
  if (!c || !c.enabled || !c.reserve_ms) return null;
  const run = runningSide(t);
  const a = runningReserve(t, "A"), b = runningReserve(t, "B");
  if (!run && Math.abs(a - b) < 1000) return h("span", { class: "clock", dataset: { clock: "1" }, title: "time left on each clock" }, `clock ${duration(a)} each`);
  return h("span", { class: "clock", dataset: { clock: "1" }, title: "time left on each clock" }, "clock ",
    h("span", { class: run === "A" ? "on" : "" }, mmss(a)), " · ", h("span", { class: run === "B" ? "on" : "" }, mmss(b)), " left");
}

function tileEl(t) {
  const running = runningSide(t);
  const cls = ["tile", `st-${text(t.status)}`];
  if (t.urgency === "critical") cls.push("urgent-critical");
  const waiting = t.phase === "waiting" || t.status === "waiting" || t.status === "late" || t.status === "no_table";
  const present = t.present && typeof t.present === "object" ? t.present : {};
  const score = t.score && typeof t.score === "object" ? t.score : {};
  const late = t.lateness && typeof t.lateness === "object" ? t.lateness : {};
  const player = (side) => {
    const name = text(playerName(t.players, side)) || "—";
    const pc = ["player"];
    const absent = waiting && t.phase === "waiting" && !present[side];
    if (absent) pc.push("absent");
    if (running === side) pc.push("running");
    const l = late[side] && typeof late[side] === "object" ? late[side] : null;
    const note = !absent ? null : l && l.elsewhere ? ` (still playing ${text(l.elsewhere.match_id)}, table ${text(l.elsewhere.table)})`
      : l && typeof l.late_ms === "number" && l.late_ms >= 60000 ? ` (${Math.floor(l.late_ms / 60000)} min late)` : " (not here)";
    return [h("span", { class: pc.join(" "), title: name + (note || "") }, name, note ? h("span", { class: "absent-note" }, note) : null),
      h("span", { class: "pts" }, text(score[side]))];
  };
  const foot = [];
  if (waiting && t.start_wall) {
    foot.push(h("span", { class: "start", dataset: { start: t.start_wall } }, `${hhmm(t.start_wall)} · ${countdown(t.start_wall, hubNow())}`));
  }
  if (t.length) foot.push(h("span", {}, `to ${text(t.length)}`));
  if (t.crawford) foot.push(h("span", { class: "badge crawford", title: "Crawford game: no doubling" }, "CRAWFORD"));
  else if (t.post_crawford) foot.push(h("span", { class: "badge postcrawford" }, "post-Crawford"));
  if (t.cube && t.cube.value > 1) foot.push(h("span", {}, `cube ${text(t.cube.value)}`));
  const clock = clockText(t);
  if (clock) foot.push(clock);
  if (t.penalties && (t.penalties.A || t.penalties.B)) foot.push(h("span", {}, `penalties ${text(t.penalties.A)}/${text(t.penalties.B)}`));
  if (t.rules) foot.push(h("span", { class: "badge rules", title: `Rules: ${text(t.rules)} (not the room's default)` }, text(t.rules)));
  if (t.automation_suspended) foot.push(h("span", { class: "auto-off", title: "Automatic lateness suspended" }, "⊘ auto off"));
  return h("a", { class: cls.join(" "), href: `#/table/${encodeURIComponent(text(t.table))}`, dataset: { table: text(t.table) },
                  "aria-label": `Table ${text(t.table)}: ${text(t.status_label)}` },
    h("div", { class: "tile-head" },
      h("span", { class: "tile-no" }, text(t.table), t.round ? h("small", {}, `R${text(t.round)}`) : null),
      h("span", { class: "badge status" }, h("span", { "aria-hidden": "true" }, text(t.status_icon)), text(t.status_label))),
    h("div", { class: "players" }, ...player("A"), ...player("B")),
    h("div", { class: "tile-foot" }, ...foot),
    t.alerts ? h("span", { class: "alert-dot" }, t.alerts === 1 ? "1 alert" : `${text(t.alerts)} alerts`) : null);
}

function rowEl(t) {
  const score = t.score && typeof t.score === "object" ? t.score : {};
  return h("tr", { class: `row-tile st-${text(t.status)}`, dataset: { table: text(t.table) } },
    h("td", { class: "num" }, h("a", { href: `#/table/${encodeURIComponent(text(t.table))}` }, text(t.table))),
    h("td", {}, h("span", { class: "badge status" }, h("span", { "aria-hidden": "true" }, text(t.status_icon)), text(t.status_label))),
    h("td", {}, text(playerName(t.players, "A"))),
    h("td", { class: "num" }, `${text(score.A)}–${text(score.B)}`),
    h("td", {}, text(playerName(t.players, "B"))),
    h("td", {}, t.length ? `to ${text(t.length)}` : ""),
    h("td", { class: "nowrap" }, clockText(t) || (t.start_wall && t.phase === "waiting" ? countdown(t.start_wall, hubNow()) : "")),
    h("td", {}, t.alerts ? `${text(t.alerts)} alert${t.alerts === 1 ? "" : "s"}` : ""));
}

/** The tile, or if this table's data cannot be shown, a tile saying so (the room carries on). */
export function guarded(make, t) {
  try {
    return make(t);
  } catch (e) {
    const id = (() => { try { return String(t.table); } catch (x) { return "?"; } })();
    const broken = make === rowEl ? h("tr", { class: "row-tile broken", dataset: { table: id } }, h("td", { colspan: 8 }, `Table ${id}: its data cannot be shown`))
      : h("div", { class: "tile broken", dataset: { table: id } }, h("div", { class: "tile-head" }, h("span", { class: "tile-no" }, id)),
        h("p", {}, "This table's data cannot be shown; the hub log says why."));
    return broken;
  }
}

// -- the grid --------------------------------------------------------------------------------

export function renderGrid() {
  const started = performance.now();
  const grid = $("grid");
  const list = $("room-list");
  const tiles = visible();
  const asList = prefs.layout === "list";
  grid.hidden = asList;
  list.hidden = !asList;
  const make = asList ? rowEl : tileEl;
  const els = tiles.map((t) => guarded(make, t));
  shown.clear();
  for (const el of els) shown.set(el.dataset.table, el);
  if (asList) list.querySelector("tbody").replaceChildren(...els);
  else grid.replaceChildren(...els);
  const empty = $("room-empty");
  empty.hidden = tiles.length > 0;
  empty.textContent = S.tables.size
    ? `No table matches${prefs.q ? ` “${prefs.q}”` : ""} with this filter.`
    : "No tables yet: import a schedule, or wait for tables to connect.";
  renderSummary();
  renderFound(tiles);
  // for bench/bench_dashboard.py: the DOM built, and the next frame (style and layout done)
  const detail = { tiles: tiles.length };
  performance.measure("grid-render", { start: started, detail });
  requestAnimationFrame(() => performance.measure("grid-frame", { start: started, detail }));
}

/** table -> its element in the grid or the list (found without searching the page) */
const shown = new Map();

// Live tiles are applied once per frame: a busy room sends many updates a second, often several
// for the same table; the page draws each table at most once a frame, and the summary once.
const pending = new Map();
let frame = 0;

export function queueTile(t) {
  pending.set(String(t.table), t);
  if (!frame) frame = requestAnimationFrame(flushTiles);
}

function flushTiles() {
  frame = 0;
  const tiles = [...pending.values()];
  pending.clear();
  if (S.view === "room") for (const t of tiles) updateTile(t);
  renderSummary();
}

/** One table changed: replace its tile where it is, or redraw if its place may change. */
export function updateTile(t) {
  if (prefs.sort !== "table" || prefs.filter !== "all" || prefs.q || prefs.room) { scheduleGrid(); return; }
  const old = shown.get(String(t.table));
  if (old && old.isConnected) {
    const el = guarded(prefs.layout === "list" ? rowEl : tileEl, t);
    old.replaceWith(el);
    shown.set(String(t.table), el);
  } else {
    scheduleGrid();
  }
}

let gridTimer = null;
function scheduleGrid() {
  if (gridTimer) return;
  gridTimer = setTimeout(() => { gridTimer = null; renderGrid(); }, 150);
}

export function renderSummary() {
  const counts = {};
  for (const t of S.tables.values()) counts[text(t.status_label)] = (counts[text(t.status_label)] || 0) + 1;
  const parts = Object.entries(counts).sort().map(([k, v]) => h("span", {}, `${k}: ${v}`));
  $("room-summary").replaceChildren(h("span", {}, `${S.tables.size} tables`), ...parts);
  renderRoomTabs(prefs.room, chooseRoom);
}

/** A room's tab chosen: the view shows that room's tables only ("" for every room). */
function chooseRoom(room) {
  prefs.room = room;
  savePrefs();
  renderGrid();
}

/** For a name search: "Anna Berg → table 12" lines, so the TD can send a player on. */
function renderFound(tiles) {
  const out = $("room-found");
  if (!prefs.q || /^\s*$/.test(prefs.q)) { out.replaceChildren(); out.hidden = true; return; }
  const lines = [];
  for (const t of tiles) {
    for (const side of ["A", "B"]) {
      const name = t.players && t.players[side];
      if (name && nameMatches(String(name), prefs.q, searchWords(t, side))) {
        lines.push(h("li", {}, h("a", { href: `#/table/${encodeURIComponent(String(t.table))}` }, `${name} → table ${t.table}`),
          ` (${text(t.status_label).toLowerCase()}, ${text(t.match_id)})`));
      }
    }
  }
  out.hidden = false;
  out.replaceChildren(...(lines.length ? lines : [h("li", { class: "muted" }, "No player of the current matches has that name.")]));
}

export function tickTiles() {
  if (S.view !== "room") return;
  for (const t of S.tables.values()) {
    let el;
    const tileEl = shown.get(String(t.table));
    if (!tileEl) continue;
    if (runningSide(t)) {
      el = tileEl.querySelector("[data-clock]");
      if (el && el.children.length === 2) {
        el.children[0].textContent = mmss(runningReserve(t, "A"));
        el.children[1].textContent = mmss(runningReserve(t, "B"));
      }
    }
    if (t.phase === "waiting" && t.start_wall) {
      el = tileEl.querySelector("[data-start]");
      if (el) el.textContent = `${hhmm(t.start_wall)} · ${countdown(t.start_wall, hubNow())}`;
    }
  }
}

function savePrefs() { localStorage.setItem(PREFS_KEY, JSON.stringify(prefs)); }

export function initRoomControls() {
  const q = $("room-search"), filter = $("room-filter"), sort = $("room-sort");
  q.value = prefs.q;
  filter.value = prefs.filter;
  sort.value = prefs.sort;
  q.addEventListener("input", () => { prefs.q = q.value; savePrefs(); renderGrid(); });
  q.addEventListener("keydown", (ev) => {
    if (ev.key !== "Enter") return;
    const found = visible();
    if (found.length === 1) location.hash = `#/table/${encodeURIComponent(String(found[0].table))}`;
  });
  filter.addEventListener("change", () => { prefs.filter = filter.value; savePrefs(); renderGrid(); });
  sort.addEventListener("change", () => { prefs.sort = sort.value; savePrefs(); renderGrid(); });
  for (const b of document.querySelectorAll("[data-layout]")) {
    b.setAttribute("aria-pressed", String(b.dataset.layout === prefs.layout));
    b.addEventListener("click", () => {
      prefs.layout = b.dataset.layout;
      savePrefs();
      for (const x of document.querySelectorAll("[data-layout]")) x.setAttribute("aria-pressed", String(x.dataset.layout === prefs.layout));
      renderGrid();
    });
  }
}
