// The TD dashboard: room grid, alert feed, table detail with TD actions, schedule, results, log.
// Plain JS, no build step. All text from the hub goes through textContent (never innerHTML).
"use strict";

const S = {
  session: null,          // {logged_in, csrf, public, event}
  tables: new Map(),      // table id -> tile
  alerts: [],
  offset: 0,              // hub time - browser time (ms)
  ws: null,
  wsRetry: 500,
  view: "room",
  detailTable: null,
  detailTimer: null,
  seenCritical: new Set(),
  audio: null,
};

// -- small helpers -------------------------------------------------------------------------------

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}
const $ = (id) => document.getElementById(id);
const hubNow = () => Date.now() + S.offset;
const naturalKey = (t) => (/^\d+$/.test(t) ? [Number(t), ""] : [1e9, t]);
function byNatural(a, b) {
  const ka = naturalKey(a), kb = naturalKey(b);
  return ka[0] - kb[0] || (ka[1] < kb[1] ? -1 : ka[1] > kb[1] ? 1 : 0);
}
function hhmm(wall) {
  if (!wall) return "";
  return new Date(wall).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}
function hhmmss(wall) {
  if (!wall) return "";
  return new Date(wall).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}
function mmss(ms) {
  if (ms === null || ms === undefined) return "–";
  const neg = ms < 0;
  const total = Math.floor(Math.abs(ms) / 1000);
  const m = Math.floor(total / 60), s = total % 60;
  return (neg ? "-" : "") + m + ":" + String(s).padStart(2, "0");
}
function parseMmss(text) {
  const m = /^\s*(\d+)(?::(\d{1,2}))?\s*$/.exec(text);
  if (!m) return null;
  return (Number(m[1]) * 60 + Number(m[2] || 0)) * 1000;
}
function toast(text, bad) {
  const t = $("toast");
  t.textContent = text;
  t.classList.toggle("bad", !!bad);
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.hidden = true; }, bad ? 6000 : 3000);
}
const isTD = () => !!(S.session && S.session.logged_in);

async function api(method, path, body, isForm) {
  const headers = { "X-CSRF-Token": S.session ? S.session.csrf : "" };
  let payload = body;
  if (body !== undefined && !isForm) {
    headers["Content-Type"] = "application/json";
    payload = JSON.stringify(body);
  }
  const res = await fetch(path, { method, headers, body: payload, credentials: "same-origin" });
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (!res.ok) {
    const err = new Error((data && data.error) || res.statusText);
    err.status = res.status;
    err.data = data;
    throw err;
  }
  return data;
}

// -- session -------------------------------------------------------------------------------------

async function loadSession() {
  S.session = await api("GET", "/api/session");
  $("event-name").textContent = S.session.event;
  document.title = `TD hub — ${S.session.event}`;
  $("login-button").hidden = isTD();
  $("logout-button").hidden = !isTD();
  document.body.classList.toggle("is-td", isTD());
}

async function login(ev) {
  ev.preventDefault();
  $("login-error").textContent = "";
  try {
    const data = await api("POST", "/api/login", { password: $("password").value });
    S.session.logged_in = true;
    S.session.csrf = data.csrf;
    $("password").value = "";
    await loadSession();
    connect(true);
    route();
  } catch (e) {
    $("login-error").textContent = e.message;
  }
}

async function logout() {
  try { await api("POST", "/api/logout"); } catch (e) { /* already gone */ }
  location.hash = "#/";
  location.reload();
}

// -- live updates --------------------------------------------------------------------------------

function setLive(state) {
  const el = $("live");
  el.classList.toggle("on", state === "on");
  el.classList.toggle("off", state === "off");
  el.textContent = state === "on" ? "● live" : state === "off" ? "● disconnected" : "● connecting";
}

function connect(restart) {
  if (S.ws && restart) { S.ws.onclose = null; S.ws.close(); S.ws = null; }
  if (S.ws) return;
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${proto}://${location.host}/api/ws`);
  S.ws = ws;
  setLive("connecting");
  ws.onopen = () => { S.wsRetry = 500; setLive("on"); };
  ws.onmessage = (m) => onMessage(JSON.parse(m.data));
  ws.onclose = () => {
    S.ws = null;
    setLive("off");
    setTimeout(() => connect(false), S.wsRetry);
    S.wsRetry = Math.min(S.wsRetry * 2, 10000);
  };
}

function onMessage(msg) {
  if (msg.now_wall) S.offset = msg.now_wall - Date.now();
  if (msg.type === "hello") {
    S.tables = new Map(msg.tables.map((t) => [t.table, t]));
    setAlerts(msg.alerts || []);
    renderGrid();
  } else if (msg.type === "tiles") {
    for (const t of msg.tiles) {
      S.tables.set(t.table, t);
      updateTile(t);
      if (S.view === "table" && S.detailTable === t.table) scheduleDetailReload();
    }
    renderSummary();
  } else if (msg.type === "alerts") {
    setAlerts(msg.alerts);
    if (S.view === "table") scheduleDetailReload();
  } else if (msg.type === "schedule" && S.view === "schedule") {
    loadSchedule();
  } else if (msg.type === "results" && S.view === "results") {
    loadResults();
  }
}

// -- room grid -----------------------------------------------------------------------------------

function runningReserve(t, side) {
  const c = t.clock;
  if (!c || !c.enabled || !c.reserve_ms) return null;
  let reserve = c.reserve_ms[side];
  if (c.running === side && !c.paused && t.phase === "playing" && t.state_wall) {
    const elapsed = Math.max(0, hubNow() - t.state_wall);
    const delay = (c.delay_ms && c.delay_ms[side]) || 0;
    reserve -= Math.max(0, elapsed - delay);
  }
  return Math.max(0, reserve);
}

function tileEl(t) {
  const running = t.clock && t.clock.enabled && t.phase === "playing" ? t.clock.running : null;
  const cls = ["tile", `st-${t.status}`];
  if (t.urgency === "critical") cls.push("urgent-critical");
  const player = (side) => {
    const name = t.players[side] || "—";
    const pc = ["player"];
    if (t.phase === "waiting" && !t.present[side]) pc.push("absent");
    if (running === side) pc.push("running");
    const label = t.phase === "waiting" && !t.present[side] ? `${name} (not here)` : name;
    return [h("span", { class: pc.join(" "), title: name }, label), h("span", { class: "pts" }, t.score[side])];
  };
  const foot = [];
  if (t.length) foot.push(h("span", {}, `to ${t.length}`));
  if (t.crawford) foot.push(h("span", { class: "badge crawford", title: "Crawford game: no doubling" }, "CRAWFORD"));
  else if (t.post_crawford) foot.push(h("span", { class: "badge postcrawford" }, "post-Crawford"));
  if (t.cube && t.cube.value > 1) foot.push(h("span", {}, `cube ${t.cube.value}${t.cube.owner ? " " + t.cube.owner : ""}`));
  if (t.clock && t.clock.enabled) {
    foot.push(h("span", { class: "clock", dataset: { clock: "1" } },
      h("span", { class: running === "A" ? "on" : "" }, mmss(runningReserve(t, "A"))),
      " | ",
      h("span", { class: running === "B" ? "on" : "" }, mmss(runningReserve(t, "B")))));
  }
  if (t.penalties && (t.penalties.A || t.penalties.B)) foot.push(h("span", {}, `pen ${t.penalties.A}/${t.penalties.B}`));
  if (t.automation_suspended) foot.push(h("span", { class: "auto-off", title: "Automatic lateness suspended" }, "⊘ auto off"));
  const sub = t.round ? `R${t.round}` : "";
  return h("a", { class: cls.join(" "), href: `#/table/${encodeURIComponent(t.table)}`, dataset: { table: t.table },
                  "aria-label": `Table ${t.table}: ${t.status_label}` },
    h("div", { class: "tile-head" },
      h("span", { class: "tile-no" }, t.table, sub ? h("small", {}, sub) : null),
      h("span", { class: "badge status" }, h("span", { "aria-hidden": "true" }, t.status_icon), t.status_label)),
    h("div", { class: "players" }, ...player("A"), ...player("B")),
    h("div", { class: "tile-foot" }, ...foot),
    t.alerts ? h("span", { class: "alert-dot" }, t.alerts === 1 ? "1 alert" : `${t.alerts} alerts`) : null);
}

function renderGrid() {
  const grid = $("grid");
  const ids = [...S.tables.keys()].sort(byNatural);
  grid.replaceChildren(...ids.map((id) => tileEl(S.tables.get(id))));
  if (!ids.length) grid.append(h("p", { class: "empty" }, "No tables yet: import a schedule, or wait for tables to connect."));
  renderSummary();
}

function updateTile(t) {
  const grid = $("grid");
  const old = grid.querySelector(`[data-table="${CSS.escape(t.table)}"]`);
  const el = tileEl(t);
  if (old) old.replaceWith(el);
  else renderGrid();
}

function renderSummary() {
  const counts = {};
  for (const t of S.tables.values()) counts[t.status_label] = (counts[t.status_label] || 0) + 1;
  const parts = Object.entries(counts).sort().map(([k, v]) => h("span", {}, `${k}: ${v}`));
  $("room-summary").replaceChildren(h("span", {}, `${S.tables.size} tables`), ...parts);
}

function tickClocks() {
  $("hub-clock").textContent = hhmmss(hubNow());
  if (S.view === "table" && S.detailTable && S.tables.has(S.detailTable)) {
    const t = S.tables.get(S.detailTable);
    for (const el of document.querySelectorAll("[data-dclock]")) el.textContent = mmss(runningReserve(t, el.dataset.dclock));
  }
  if (S.view !== "room") return;
  for (const t of S.tables.values()) {
    if (!(t.clock && t.clock.enabled && t.clock.running && t.phase === "playing")) continue;
    const el = document.querySelector(`[data-table="${CSS.escape(t.table)}"] [data-clock]`);
    if (!el) continue;
    const spans = el.querySelectorAll("span");
    spans[0].textContent = mmss(runningReserve(t, "A"));
    spans[1].textContent = mmss(runningReserve(t, "B"));
  }
}

// -- alerts --------------------------------------------------------------------------------------

const URGENCY_ICON = { critical: "‼", high: "!", medium: "•", low: "i" };

function setAlerts(alerts) {
  S.alerts = alerts;
  const open = alerts.filter((a) => !a.acked_wall).length;
  const count = $("alert-count");
  count.hidden = open === 0;
  count.textContent = open;
  for (const a of alerts) {
    if (a.urgency === "critical" && !a.acked_wall && !S.seenCritical.has(a.key)) {
      S.seenCritical.add(a.key);
      beep();
    }
  }
  $("feed").replaceChildren(...alertItems(alerts));
  if (S.view === "alerts") $("alerts-full").replaceChildren(...alertItems(alerts));
}

function alertItems(alerts) {
  if (!alerts.length) return [h("li", { class: "empty" }, "Nothing needs you right now.")];
  return alerts.map((a) => h("li", { class: `alert u-${a.urgency}${a.acked_wall ? " acked" : ""}`, dataset: { alert: a.id } },
    h("div", { class: "row" },
      h("span", { class: "badge" }, h("span", { "aria-hidden": "true" }, URGENCY_ICON[a.urgency] || "•"), a.urgency.toUpperCase()),
      h("span", { class: "meta" }, hhmm(a.raised_wall)),
    ),
    h("div", { class: "msg" }, a.message),
    h("div", { class: "row" },
      a.table ? h("a", { href: `#/table/${encodeURIComponent(a.table)}` }, `Table ${a.table}`) : h("span"),
      a.acked_wall
        ? h("span", { class: "meta" }, `✓ acknowledged ${a.acked_by ? "by " + a.acked_by + " " : ""}${hhmm(a.acked_wall)}`)
        : isTD() ? h("button", { type: "button", class: "small", onclick: () => ack(a.id) }, "Acknowledge") : null)));
}

async function ack(id) {
  try {
    await api("POST", `/api/alerts/${id}/ack`);
  } catch (e) { toast(e.message, true); }
}

function beep() {
  try {
    S.audio = S.audio || new AudioContext();
    const ctx = S.audio;
    for (let i = 0; i < 3; i++) {
      const o = ctx.createOscillator(), g = ctx.createGain();
      o.frequency.value = 880;
      g.gain.value = 0.2;
      o.connect(g).connect(ctx.destination);
      o.start(ctx.currentTime + i * 0.3);
      o.stop(ctx.currentTime + i * 0.3 + 0.18);
    }
  } catch (e) { /* no audio: the pulsing tile and the feed remain */ }
}

// -- table detail --------------------------------------------------------------------------------

function scheduleDetailReload() {
  clearTimeout(S.detailTimer);
  S.detailTimer = setTimeout(loadDetail, 250);
}

async function loadDetail() {
  const table = S.detailTable;
  if (!table) return;
  try {
    const d = await api("GET", `/api/tables/${encodeURIComponent(table)}`);
    if (S.detailTable === table && S.view === "table") renderDetail(d);
  } catch (e) {
    $("table-view").replaceChildren(h("p", { class: "error" }, `Table ${table}: ${e.message}`));
  }
}

function renderDetail(d) {
  const t = d.tile, st = d.state || {};
  const clock = st.clock || {};
  const running = clock.enabled && st.phase === "playing" ? clock.running : null;
  const side = (s) => h("div", {},
    h("div", { class: "name" }, t.players[s] || "—", st.present && !st.present[s] ? " (not here)" : ""),
    h("div", { class: "big" }, t.score[s]),
    clock.enabled ? h("div", { class: `clk${running === s ? " on" : ""}` },
      running === s ? "▶ " : "", h("span", { dataset: { dclock: s } }, mmss(runningReserve(t, s))),
      h("span", { class: "muted" }, ` +${Math.round(((clock.delay_ms && clock.delay_ms[s]) || 0) / 1000)}s`)) : null);
  const facts = [
    `Match ${t.match_id || "—"}`, t.round ? `round ${t.round}` : null, `to ${t.length || "—"}`, `game ${t.game || 0}`,
    t.start_wall ? `start ${hhmm(t.start_wall)}` : null, st.profile ? `rules ${st.profile}` : null,
    st.cube ? `cube ${st.cube.value}${st.cube.owner ? " (" + st.cube.owner + ")" : ""}` : null,
    st.penalties ? `penalty points A ${st.penalties.A} · B ${st.penalties.B}` : null,
    clock.paused ? `paused: ${clock.paused}` : null, clock.flagged ? `flagged: ${clock.flagged}` : null,
    st.breaks ? `breaks A ${st.breaks.A.used}/${st.breaks.A.allowed} · B ${st.breaks.B.used}/${st.breaks.B.allowed}` : null,
    d.automation_suspended ? "automatic lateness suspended" : null,
    d.status ? (d.status.online ? "online" : "offline") : "never connected",
  ].filter(Boolean);

  const games = (st.games || []).map((g) => h("tr", {},
    h("td", { class: "num" }, g.game), h("td", {}, `${g.winner} (${t.players[g.winner] || ""})`), h("td", {}, g.kind + (g.resigned ? " (resigned)" : "")),
    h("td", { class: "num" }, g.cube), h("td", { class: "num" }, g.points), h("td", {}, hhmm(g.wall))));
  const gamesTable = h("table", { class: "data" },
    h("thead", {}, h("tr", {}, ["Game", "Winner", "Kind", "Cube", "Points", "Time"].map((x) => h("th", {}, x)))),
    h("tbody", {}, games.length ? games : h("tr", {}, h("td", { colspan: 6, class: "muted" }, "No game finished yet."))));
  const penalties = (st.penalty_log || []).map((p) => h("tr", {},
    h("td", {}, p.id), h("td", {}, p.against), h("td", { class: "num" }, p.points), h("td", {}, p.reason), h("td", {}, p.waived ? "waived" : "")));
  const events = (d.events || []).slice().reverse().slice(0, 150).map((e) => h("tr", { class: e.rejected ? "rejected" : "" },
    h("td", { class: "num" }, e.seq), h("td", { class: "nowrap" }, hhmmss(e.wall || e.received_wall)), h("td", {}, e.type), h("td", {}, describe(e))));
  const commands = (d.commands || []).map((c) => h("tr", {},
    h("td", { class: "nowrap" }, hhmmss(c.created_wall)), h("td", {}, c.type), h("td", {}, c.id), h("td", {}, c.origin),
    h("td", {}, c.done_ok === null ? "sent" : c.done_ok ? "✓ done" : `✗ ${c.done_error || "refused"}`)));

  const view = $("table-view");
  view.replaceChildren(
    h("div", { class: "detail-head" },
      h("a", { class: "back", href: "#/" }, "← Room"),
      h("h1", {}, `Table ${t.table}`),
      h("span", { class: `badge status`, title: "status" }, h("span", { "aria-hidden": "true" }, t.status_icon), t.status_label),
      t.crawford ? h("span", { class: "badge crawford" }, "CRAWFORD") : null),
    h("div", { class: "detail" },
      h("div", {},
        h("div", { class: "card" },
          h("div", { class: "scoreboard" }, side("A"), h("div", { class: "mid" }, "to", h("div", { class: "big" }, t.length || "–")), side("B")),
          h("div", { class: "facts" }, ...facts.map((f) => h("span", {}, f)))),
        h("div", { class: "panel" }, h("h2", {}, "Alerts"), h("ol", { class: "alerts" }, ...alertItems(d.alerts || []))),
        h("div", { class: "panel" }, h("h2", {}, "Games"), h("div", { class: "table-scroll" }, gamesTable)),
        penalties.length ? h("div", { class: "panel" }, h("h2", {}, "Penalties"), h("div", { class: "table-scroll" },
          h("table", { class: "data" }, h("thead", {}, h("tr", {}, ["Id", "Against", "Points", "Reason", ""].map((x) => h("th", {}, x)))), h("tbody", {}, penalties)))) : null,
        h("div", { class: "panel" }, h("h2", {}, "Commands"), h("div", { class: "table-scroll" },
          h("table", { class: "data" }, h("thead", {}, h("tr", {}, ["Time", "Type", "Id", "By", "Answer"].map((x) => h("th", {}, x)))),
            h("tbody", {}, commands.length ? commands : h("tr", {}, h("td", { colspan: 5, class: "muted" }, "None")))))),
        h("div", { class: "panel" }, h("h2", {}, "Event log"), h("div", { class: "table-scroll" },
          h("table", { class: "data" }, h("thead", {}, h("tr", {}, ["Seq", "Time", "Event", "Details"].map((x) => h("th", {}, x)))),
            h("tbody", {}, events))))),
      h("div", {}, actionsPanel(d))));
}

function describe(e) {
  const skip = new Set(["seq", "match_id", "type", "wall", "at", "received_wall"]);
  return Object.entries(e).filter(([k]) => !skip.has(k)).map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : v}`).join(" ");
}

function sideSelect(name) {
  return h("select", { name, "aria-label": name }, h("option", { value: "A" }, "A"), h("option", { value: "B" }, "B"));
}

function actionsPanel(d) {
  if (!isTD()) return h("div", { class: "card" }, h("p", { class: "td-only-note" }, "Log in as TD for actions."));
  const table = d.tile.table;
  const st = d.state || {};
  const send = (type, fields) => api("POST", `/api/tables/${encodeURIComponent(table)}/commands`, { type, ...fields })
    .then((c) => toast(`Sent ${type} (${c.id})`)).catch((e) => toast(e.message, true));
  const form = (title, fields, build, label, cls) => h("div", { class: "action" }, h("h3", {}, title),
    h("form", { onsubmit: (ev) => { ev.preventDefault(); const f = ev.target; const r = build(f); if (r) send(r[0], r[1]); } },
      ...fields, h("button", { type: "submit", class: cls || "" }, label)));
  const num = (name, value, min, max, label) => h("input", { type: "number", name, value, min, max, required: true, "aria-label": label || name });
  const waivable = (st.penalty_log || []).filter((p) => !p.waived);
  const clock = st.clock || {};
  return h("div", { class: "card actions" },
    h("h2", {}, "TD actions"),
    form("Penalty point(s)", [sideSelect("against"), num("points", 1, 1, 99, "points"),
      h("input", { name: "reason", value: "conduct", "aria-label": "reason", class: "note" })],
      (f) => ["penalty", { against: f.against.value, points: Number(f.points.value), reason: f.reason.value }], "Give penalty"),
    form("Waive a penalty", [h("select", { name: "penalty_id", "aria-label": "penalty" },
      ...(waivable.length ? waivable.map((p) => h("option", { value: p.id }, `${p.id} (${p.against}, ${p.points})`)) : [h("option", { value: "" }, "no penalty")]))],
      (f) => (f.penalty_id.value ? ["waive", { penalty_id: f.penalty_id.value }] : null), "Waive"),
    h("div", { class: "action" }, h("h3", {}, "Clock"),
      h("div", { class: "inline" },
        h("button", { type: "button", onclick: () => send("pause", {}) }, "‖ Pause"),
        h("button", { type: "button", onclick: () => send("resume", {}) }, "▶ Resume"),
        h("button", { type: "button", class: "ghost", onclick: () => send("td_ack", {}) }, "Acknowledge call"))),
    form("Set time (m:ss)", [h("span", {}, "A"), h("input", { name: "a", class: "mmss", value: mmss(clock.reserve_ms && clock.reserve_ms.A), "aria-label": "A time" }),
      h("span", {}, "B"), h("input", { name: "b", class: "mmss", value: mmss(clock.reserve_ms && clock.reserve_ms.B), "aria-label": "B time" })],
      (f) => { const a = parseMmss(f.a.value), b = parseMmss(f.b.value); if (a === null || b === null) { toast("Times as m:ss", true); return null; } return ["set_time", { reserve_ms: { A: a, B: b } }]; }, "Set time"),
    form("Impose a clock", [num("mpp", 2, 0.1, 60, "minutes per point"), h("span", {}, "min/pt"), num("delay", 12, 0, 120, "delay seconds"), h("span", {}, "s delay")],
      (f) => ["impose_clock", { minutes_per_point: Number(f.mpp.value), delay_s: Number(f.delay.value) }], "Impose"),
    form("Start a late player's clock", [sideSelect("side")], (f) => ["start_clock", { side: f.side.value }], "Start clock"),
    form("Set match length", [num("length", d.tile.length || 7, 1, 99, "length")], (f) => ["set_length", { length: Number(f.length.value) }], "Set length"),
    form("Correct the score", [h("span", {}, "A"), num("a", d.tile.score.A, 0, 990, "score A"), h("span", {}, "B"), num("b", d.tile.score.B, 0, 990, "score B"),
      h("input", { name: "note", placeholder: "reason", class: "note", "aria-label": "note" })],
      (f) => ["correct_score", { score: { A: Number(f.a.value), B: Number(f.b.value) }, note: f.note.value }], "Correct"),
    form("Resolve a time flag: winner", [sideSelect("winner")], (f) => ["resolve_flag", { winner: f.winner.value }], "Resolve"),
    form("Forfeit", [sideSelect("against"), h("span", {}, "loses")], (f) => ["forfeit", { against: f.against.value, reason: "td" }], "Forfeit", "danger"),
    h("div", { class: "action" }, h("h3", {}, "Automation and schedule"),
      h("div", { class: "inline" },
        h("button", { type: "button", class: "ghost", onclick: () => api("POST", `/api/tables/${encodeURIComponent(table)}/automation`, { suspended: !d.automation_suspended })
          .then(() => { toast(d.automation_suspended ? "Automation resumed" : "Automation suspended"); loadDetail(); }).catch((e) => toast(e.message, true)) },
          d.automation_suspended ? "Resume automatic lateness" : "Suspend automatic lateness"),
        h("button", { type: "button", class: "ghost", onclick: () => { if (confirm(`Move table ${table} on to its next scheduled match?`))
          api("POST", `/api/tables/${encodeURIComponent(table)}/release`).then((r) => toast(`Released ${r.released}`)).catch((e) => toast(e.message, true)); } },
          "Release to next match"))));
}

// -- schedule, results, audit --------------------------------------------------------------------

async function loadSchedule() {
  const rows = await api("GET", "/api/schedule");
  const head = ["Round", "Table", "Match", "A", "B", "Length", "Start", "Clock", "Rules", "State"];
  $("schedule-table").replaceChildren(
    h("thead", {}, h("tr", {}, head.map((x) => h("th", {}, x)))),
    h("tbody", {}, rows.length ? rows.map((m) => h("tr", {},
      h("td", {}, m.round), h("td", {}, m.table), h("td", {}, m.match_id), h("td", {}, m.player_a), h("td", {}, m.player_b),
      h("td", { class: "num" }, m.length), h("td", {}, new Date(m.start_wall).toLocaleString()), h("td", {}, m.clock ? "yes" : "no"),
      h("td", {}, m.profile), h("td", {}, m.result ? "finished" : m.released ? "released" : m.assigned ? "assigned" : "")))
      : h("tr", {}, h("td", { colspan: head.length, class: "muted" }, "No schedule imported yet."))));
}

async function importSchedule(ev) {
  ev.preventDefault();
  const out = $("import-result");
  const file = $("import-file").files[0];
  if (!file) return;
  const fd = new FormData();
  fd.append("file", file);
  out.replaceChildren();
  try {
    const r = await api("POST", "/api/schedule", fd, true);
    out.replaceChildren(h("p", { class: "ok-text" }, `Imported ${r.matches} match(es): ${r.added} new, ${r.updated} updated.`));
    loadSchedule();
  } catch (e) {
    const errors = (e.data && e.data.errors) || [];
    out.replaceChildren(h("p", { class: "error" }, e.message),
      h("ul", { class: "import-errors" }, ...errors.map((x) => h("li", {}, `line ${x.line}: ${x.message}`))));
  }
}

async function loadResults() {
  const rows = await api("GET", "/api/results");
  const head = ["Round", "Table", "Match", "A", "Score", "B", "Winner", "How", "Verified", ""];
  $("results-table").replaceChildren(
    h("thead", {}, h("tr", {}, head.map((x) => h("th", {}, x)))),
    h("tbody", {}, rows.length ? rows.map(resultRow) : h("tr", {}, h("td", { colspan: head.length, class: "muted" }, "No result yet."))));
}

function resultRow(r) {
  const winner = r.winner === "A" ? r.player_a : r.winner === "B" ? r.player_b : "";
  const actions = [];
  if (isTD()) {
    if (!r.verified) actions.push(h("button", { type: "button", class: "small", onclick: () => api("POST", `/api/results/${encodeURIComponent(r.match_id)}/verify`).then(loadResults).catch((e) => toast(e.message, true)) }, "Verify"));
    actions.push(h("button", { type: "button", class: "small ghost", onclick: (ev) => correctForm(ev.target, r) }, "Correct"));
  }
  return h("tr", { dataset: { match: r.match_id } },
    h("td", {}, r.round), h("td", {}, r.table), h("td", {}, r.match_id), h("td", {}, r.player_a),
    h("td", { class: "num" }, `${r.score.A} – ${r.score.B}`), h("td", {}, r.player_b), h("td", {}, winner),
    h("td", {}, (r.end_reason || "") + (r.corrected ? " (corrected)" : "")),
    h("td", {}, r.verified ? `✓ ${r.verified_by || ""}` : "✗ not yet"), h("td", {}, ...actions));
}

function correctForm(button, r) {
  const cell = button.parentElement;
  cell.replaceChildren(h("form", { class: "inline", onsubmit: (ev) => {
    ev.preventDefault();
    const f = ev.target;
    api("POST", `/api/results/${encodeURIComponent(r.match_id)}/correct`,
      { score: { A: Number(f.a.value), B: Number(f.b.value) }, winner: f.winner.value || null, note: f.note.value })
      .then(() => { toast("Result corrected"); loadResults(); }).catch((e) => toast(e.message, true));
  } },
  h("input", { type: "number", name: "a", value: r.score.A, min: 0, max: 990, "aria-label": "score A", class: "w-score" }),
  h("input", { type: "number", name: "b", value: r.score.B, min: 0, max: 990, "aria-label": "score B", class: "w-score" }),
  h("select", { name: "winner", "aria-label": "winner" }, h("option", { value: "A" }, r.player_a), h("option", { value: "B" }, r.player_b), h("option", { value: "" }, "none")),
  h("input", { name: "note", placeholder: "reason", "aria-label": "note" }),
  h("button", { type: "submit", class: "small" }, "Save")));
}

async function loadAudit() {
  const rows = await api("GET", "/api/audit");
  const head = ["Time", "Who", "Action", "Table", "Match", "Details"];
  $("audit-table").replaceChildren(
    h("thead", {}, h("tr", {}, head.map((x) => h("th", {}, x)))),
    h("tbody", {}, rows.map((a) => h("tr", {}, h("td", {}, hhmmss(a.wall)), h("td", {}, a.actor), h("td", {}, a.action),
      h("td", {}, a.table || ""), h("td", {}, a.match_id || ""), h("td", {}, JSON.stringify(a.detail))))));
}

// -- routing -------------------------------------------------------------------------------------

const VIEWS = ["login", "room", "alerts", "table", "schedule", "results", "audit"];

function show(view) {
  S.view = view;
  for (const v of VIEWS) $(`${v}-view`).hidden = v !== view;
  for (const a of document.querySelectorAll(".tabs a")) a.classList.toggle("active", a.dataset.view === view);
  for (const el of document.querySelectorAll("[data-td]")) el.hidden = !isTD();
}

function route() {
  const needLogin = !isTD() && !(S.session && S.session.public);
  if (needLogin || location.hash === "#/login") {
    show("login");
    return;
  }
  connect(false);
  const hash = location.hash || "#/";
  const m = /^#\/table\/(.+)$/.exec(hash);
  if (m) {
    S.detailTable = decodeURIComponent(m[1]);
    show("table");
    $("table-view").replaceChildren(h("p", { class: "muted" }, "Loading…"));
    loadDetail();
  } else if (hash === "#/alerts") {
    show("alerts");
    $("alerts-full").replaceChildren(...alertItems(S.alerts));
  } else if (hash === "#/schedule") {
    show("schedule");
    loadSchedule().catch((e) => toast(e.message, true));
  } else if (hash === "#/results") {
    show("results");
    loadResults().catch((e) => toast(e.message, true));
  } else if (hash === "#/audit") {
    show("audit");
    loadAudit().catch((e) => toast(e.message, true));
  } else {
    show("room");
    renderGrid();
  }
}

async function init() {
  $("login-form").addEventListener("submit", login);
  $("logout-button").addEventListener("click", logout);
  $("login-button").addEventListener("click", () => { location.hash = "#/login"; route(); });
  $("import-form").addEventListener("submit", importSchedule);
  window.addEventListener("hashchange", route);
  await loadSession();
  route();
  setInterval(tickClocks, 1000);
}

document.addEventListener("DOMContentLoaded", init);
