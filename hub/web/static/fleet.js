// The Tables page: devices waiting to be enrolled (their codes), the enrolled tables' health, and
// the fleet's actions. Plain JS, no build step; text from the hub only through textContent.
import { confirmAction } from "./confirm.js";
import { keepingTyped } from "./dom.js";

const F = { session: null, rows: new Map(), offset: 0, ws: null, retry: 500 };

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
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
const loggedIn = () => !!(F.session && F.session.logged_in);
const can = (permission) => loggedIn() && (F.session.permissions || []).includes(permission);
const isTD = () => can("fleet-control");
const naturalKey = (t) => (/^\d+$/.test(t || "") ? [Number(t), ""] : [1e9, t || ""]);
function byTable(a, b) {
  const ka = naturalKey(a.table), kb = naturalKey(b.table);
  return ka[0] - kb[0] || (ka[1] < kb[1] ? -1 : ka[1] > kb[1] ? 1 : 0);
}
function ago(wall) {
  if (!wall) return "never";
  const s = Math.max(0, Math.round((Date.now() - wall) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  return `${Math.floor(s / 3600)} h ago`;
}
function duration(s) {
  if (s === null || s === undefined) return "–";
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
}
function toast(text, bad) {
  const t = $("toast");
  t.textContent = text;
  t.classList.toggle("bad", !!bad);
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.hidden = true; }, bad ? 6000 : 3000);
}

async function api(method, path, body) {
  const headers = { "X-CSRF-Token": F.session ? F.session.csrf : "" };
  let payload;
  if (body !== undefined) { headers["Content-Type"] = "application/json"; payload = JSON.stringify(body); }
  const res = await fetch(path, { method, headers, body: payload, credentials: "same-origin" });
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (!res.ok) {
    const err = new Error((data && data.error) || res.statusText);
    err.status = res.status;
    err.data = data || {};
    throw err;
  }
  return data;
}

// A table playing a match is enrolled or retired only when the TD names the match and its score:
// the hub refuses with code "match_in_progress" and what the table plays; the TD confirms that
// sentence (the dashboard's confirmation: Cancel is the default) and the request goes again with
// the override.
function playing(d) {
  const p = d.players || {};
  return `${d.match_id} (${p.A || "A"} – ${p.B || "B"}, ${d.score.A}–${d.score.B})`;
}
async function withOverride(method, path, body, sentence, okLabel) {
  try {
    return await api(method, path, body);
  } catch (e) {
    if (e.status !== 409 || e.data.code !== "match_in_progress") throw e;
    if (!await confirmAction(sentence(e.data), { okLabel, danger: true })) {
      const no = new Error("Not done: the table keeps its match.");
      no.cancelled = true;
      throw no;
    }
    return api(method, path, { ...body, override: { match_id: e.data.match_id, score: e.data.score } });
  }
}

// -- actions ---------------------------------------------------------------------------------------

async function enroll(device, table, code) {
  const row = await withOverride("POST", `/api/fleet/${encodeURIComponent(device)}/enroll`, { table, code },
    (d) => `Table ${d.table} is playing ${playing(d)}. Enroll this device as table ${d.table} anyway? ` +
      `Its old device stops at once; the new one takes the match at ${d.score.A}–${d.score.B}.`, "Enroll anyway");
  F.rows.set(row.key, row);
  render();
  toast(`Device ${device} is now table ${row.table}`);
}

async function action(row, what, label) {
  const table = row.table ? `table ${row.table}` : "this device";
  if (what === "retire" && row.state === "enrolled" && !confirm(`Retire ${table}? Its credential stops working at once and the table shows “not set up”.`)) return;
  if (what === "restart" && row.in_match && !confirm(`Restart ${table} during its match? Its clock comes back paused.`)) return;
  try {
    const res = await withOverride("POST", `/api/fleet/${encodeURIComponent(row.device)}/${what}`, {},
      (d) => `Table ${d.table} is playing ${playing(d)}. Retire its device anyway? ` +
        `The match waits for a new device, which takes it at ${d.score.A}–${d.score.B}.`, "Retire anyway");
    if (res && res.state) { F.rows.set(res.key, res); render(); }
    toast(`${label}: ${table}`);
  } catch (e) {
    toast(e.cancelled ? e.message : `${label} ${table}: ${e.message}`, true);
  }
}

// -- rendering -------------------------------------------------------------------------------------

// Codes and device ids reach only the roles that enroll (the hub leaves them out for the others):
// a row is known by its key.
function pendingCard(row) {
  const input = h("input", { "aria-label": `Table number for code ${row.code}`, maxlength: 32, required: true, autocomplete: "off" });
  const form = h("form", { onsubmit: async (ev) => {
    ev.preventDefault();
    try { await enroll(row.device, input.value.trim(), row.code); } catch (e) { toast(e.message, true); }
  } }, input, h("button", { type: "submit" }, "Enroll"));
  const dismiss = h("button", { type: "button", class: "small ghost", onclick: () => action(row, "retire", "Dismissed") }, "Dismiss");
  return h("div", { class: "card", "data-key": row.key, "data-keep": row.key, "data-device": row.device },
    h("div", { class: "code", "aria-label": row.code ? `code ${row.code}` : "a device is waiting" }, row.code || (row.device ? "expired" : "waiting")),
    row.device ? h("div", { class: "dim" }, `${row.device} · ${row.ip || "?"} · ${row.hostname || ""}`) : null,
    h("div", { class: "dim" }, `software ${row.version}${row.update_due ? " (differs from the hub)" : ""} · seen ${ago(row.last_seen_wall)}`),
    can("fleet-setup") && row.code ? form : null,
    can("fleet-setup") && row.device ? dismiss : null);
}

function cellOnline(row) {
  return row.online ? h("span", { class: "ok" }, "● online") : h("span", { class: "bad" }, "○ offline");
}
function cellVersion(row) {
  const u = row.update || {};
  const parts = [h("span", {}, row.version || "?")];
  if (row.slot && row.slot !== "factory") parts.push(h("span", { class: "dim" }, ` (slot ${row.slot})`));
  if (u.state && u.state !== "idle") parts.push(h("div", { class: u.state === "failed" ? "bad" : "warn" }, `${u.state}: ${u.detail}`));
  else if (row.update_due) parts.push(h("div", { class: "warn" }, "update due (between matches)"));
  return parts;
}
function cellTemp(row) {
  const t = row.cpu_temp_c;
  if (t === null || t === undefined) return "–";
  return h("span", { class: t >= 80 ? "bad" : t >= 70 ? "warn" : "" }, `${t} °C`);
}
function cellDisk(row) {
  if (row.disk_free_mb === null || row.disk_free_mb === undefined) return "–";
  return h("span", { class: row.disk_free_mb < 200 ? "bad" : "" }, `${row.disk_free_mb} MB free`);
}
function cellJournal(row) {
  const j = row.journal;
  if (!j) return "–";
  return h("span", { class: j.ok ? "ok" : "bad", title: j.detail }, j.ok ? `✓ ${j.detail}` : `✗ ${j.detail}`);
}
function cellDice(row) {
  const d = row.dice;
  if (!d) return "–";
  if (!d.configured) return h("span", { class: "dim" }, "none");
  return d.seen ? h("span", { class: "ok" }, `✓ ${d.last_wall ? "last roll " + ago(d.last_wall) : "connected"}`) : h("span", { class: "warn" }, "not seen yet");
}
function cellButtons(row) {
  const b = row.buttons;
  if (!b) return "–";
  if (!b.configured) return h("span", { class: "dim" }, "none");
  const names = { A: "A", B: "B", pause: "pause", td: "TD" };
  return Object.entries(b.seen).map(([k, v]) => h("span", { class: v ? "ok" : "dim", title: v ? `pressed ${ago(v)}` : "not pressed since start" }, `${v ? "✓" : "·"}${names[k]} `));
}
function cellTest(row) {
  const t = row.button_test;
  if (!t || t.state === "idle") return h("span", { class: "dim" }, "not run");
  const label = { running: "running…", passed: "✓ all buttons work", stopped: "stopped", refused: "refused (in a match)" }[t.state] || t.state;
  const cls = t.state === "passed" ? "ok" : t.state === "running" ? "warn" : "bad";
  return h("span", { class: cls }, label, t.state !== "passed" && t.pressed.length ? ` (${t.pressed.join(", ")})` : "");
}
// The hardware check (docs/td-guide.md): when the hub heard of it (the hub's time, not the table's),
// the verdict in a few words, and the checklist behind it.
const CHECK_STEPS = { button_left: "left button", button_right: "right button", dice: "dice tower", touch: "touch",
  display: "display", temperature: "temperature", throttling: "power" };
const CHECK_REASONS = { timeout: "no answer in time", wrong_button: "the other button answered", not_as_shown: "not as shown",
  unreadable: "dice unreadable", no_tower: "no tower connected", no_buttons: "buttons not connected", too_hot: "too hot",
  under_voltage: "under-voltage", throttled: "CPU slowed down" };
const CHECK_FINE = ["pass", "not_fitted", "not_available"];
function checkVerdict(c) {
  const named = (o) => c.steps.filter((s) => s.outcome === o).map((s) => CHECK_STEPS[s.step] || s.step);
  const failed = named("fail"), skipped = named("skipped");
  if (failed.length) return { cls: "bad", text: `${failed.join(", ")} failed` };
  if (skipped.length) return { cls: "warn", text: `${skipped.join(", ")} skipped` };
  return { cls: "ok", text: "all pass" };
}
function checkReady(row) {
  const c = row.hardware_check;
  return c ? c.steps.every((s) => CHECK_FINE.includes(s.outcome)) : null;
}
function clockTime(wall) {
  return new Date(wall).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", hour12: false });
}
function cellCheck(row) {
  const c = row.hardware_check;
  if (row.screen === "hardware_check") return h("span", { class: "warn" }, "checking…");
  if (!c) return h("span", { class: "dim" }, "not checked");
  const v = checkVerdict(c);
  const when = row.hardware_check_wall ? `checked ${clockTime(row.hardware_check_wall)}` : "checked";
  const mark = { pass: "✓", fail: "✗" };
  const items = c.steps.map((s) => {
    const why = s.reason ? ` — ${CHECK_REASONS[s.reason] || s.reason}` : s.outcome === "pass" ? "" : ` — ${s.outcome.replace("_", " ")}`;
    const detail = s.detail ? ` (${s.detail})` : "";
    const cls = s.outcome === "pass" ? "ok" : s.outcome === "fail" ? "bad" : s.outcome === "skipped" ? "warn" : "dim";
    return h("li", { class: cls, "data-step": s.step }, `${mark[s.outcome] || "–"} ${CHECK_STEPS[s.step] || s.step}${why}${detail}`);
  });
  return h("details", { class: "hw-check" },
    h("summary", { class: v.cls, title: `started ${{ hub: "from the Tables page", command: "from the command line", first_boot: "at the table's first start" }[c.origin] || "from the table's TD menu"}` }, `${when} — ${v.text}`),
    h("ul", { class: "checklist" }, items));
}
function cellOffset(row) {
  const o = row.clock_offset_ms;
  if (o === null || o === undefined) return "–";
  const cls = Math.abs(o) > 2000 ? "bad" : Math.abs(o) > 500 ? "warn" : "";
  return h("span", { class: cls, title: "the table's clock minus the hub's (network delay included)" }, `${o > 0 ? "+" : ""}${o} ms`);
}

function enrolledRow(row) {
  const actions = isTD() ? h("div", { class: "actions" },
    h("button", { type: "button", class: "small", onclick: () => action(row, "identify", "Identify") }, "Identify"),
    h("button", { type: "button", class: "small ghost", onclick: () => action(row, "button-test", "Button test") }, "Button test"),
    h("button", { type: "button", class: "small ghost", onclick: () => action(row, "hardware-check", "Hardware check") }, "Hardware check"),
    can("fleet-setup") ? h("button", { type: "button", class: "small ghost", onclick: () => action(row, "update", "Update") }, "Update") : null,
    h("button", { type: "button", class: "small ghost", onclick: () => action(row, "restart", "Restart") }, "Restart"),
    can("fleet-setup") ? h("button", { type: "button", class: "small danger", onclick: () => action(row, "retire", "Retire") }, "Retire") : null) : null;
  return h("tr", { "data-key": row.key, "data-device": row.device },
    h("td", { class: "table-no" }, row.table),
    h("td", {}, cellOnline(row), row.screen && row.screen !== "idle" && row.screen !== "match" ? h("div", { class: "warn" }, row.screen.replace("_", " ")) : null),
    h("td", {}, cellVersion(row)),
    h("td", {}, row.ip || "–", row.device ? h("div", { class: "dim" }, row.device) : null),
    h("td", {}, duration(row.uptime_s)),
    h("td", {}, cellTemp(row)),
    h("td", {}, cellDisk(row)),
    h("td", {}, cellJournal(row)),
    h("td", {}, cellDice(row)),
    h("td", {}, cellButtons(row)),
    h("td", {}, cellTest(row)),
    h("td", { class: "hw" }, cellCheck(row)),
    h("td", {}, cellOffset(row)),
    h("td", {}, ago(row.last_seen_wall)),
    h("td", {}, actions));
}

const HEAD = ["Table", "Online", "Software", "IP / device", "Up", "CPU", "Disk", "Journal", "Dice", "Buttons", "Button test", "Hardware check", "Clock", "Last seen", ""];

function render() {
  const rows = [...F.rows.values()];
  const pending = rows.filter((r) => r.state === "pending").sort((a, b) => b.first_seen_wall - a.first_seen_wall);
  const enrolled = rows.filter((r) => r.state === "enrolled").sort(byTable);
  const retired = rows.filter((r) => r.state === "retired").sort((a, b) => (b.retired_wall || 0) - (a.retired_wall || 0));
  // drawn again on every push (a device's hello, any table's health report): a table number the TD
  // is typing into a waiting device's card, and the focus, survive it
  keepingTyped($("pending"), () =>
    $("pending").replaceChildren(...(pending.length ? pending.map(pendingCard) : [h("p", { class: "empty" }, "No device is waiting.")])));
  const online = enrolled.filter((r) => r.online).length;
  const due = enrolled.filter((r) => r.update_due).length;
  const checked = enrolled.map(checkReady);
  const ready = checked.filter((r) => r === true).length, notReady = checked.filter((r) => r === false).length;
  const hw = checked.some((r) => r !== null) ? ` · hardware check: ${ready} ready, ${notReady} not ready, ${checked.length - ready - notReady} not checked` : "";
  $("summary").textContent = `${enrolled.length} tables, ${online} online` + (due ? `, ${due} to update` : "") + hw;
  $("enrolled").replaceChildren(
    h("thead", {}, h("tr", {}, HEAD.map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, enrolled.length ? enrolled.map(enrolledRow) : [h("tr", {}, h("td", { colspan: HEAD.length, class: "empty" }, "No table enrolled yet."))]));
  $("retired-count").textContent = `(${retired.length})`;
  $("retired").replaceChildren(
    h("thead", {}, h("tr", {}, ["Device", "Was table", "Retired", "Why"].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, retired.map((r) => h("tr", { "data-key": r.key, "data-device": r.device }, h("td", {}, r.device || "–"), h("td", {}, r.table || "–"), h("td", {}, ago(r.retired_wall)), h("td", {}, r.retired_why)))));
}

// -- data ------------------------------------------------------------------------------------------

async function load() {
  const rows = await api("GET", "/api/fleet");
  F.rows = new Map(rows.map((r) => [r.key, r]));
  render();
  // the fingerprint each table shows on its set-up screen must be this one
  const hub = await api("GET", "/api/fleet/hub");
  $("hub-key").textContent = `Hub key ${hub.fingerprint} · tables are given the hub ${hub.url} and the broker ${hub.broker}${hub.tls ? " (TLS)" : ""}`;
}

function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${proto}://${location.host}/api/ws`);
  F.ws = ws;
  ws.onopen = () => { F.retry = 500; $("live").textContent = "● live"; $("live").className = "live on"; load(); };
  ws.onmessage = (m) => {
    const msg = JSON.parse(m.data);
    if (msg.type !== "fleet") return;
    for (const row of msg.rows || []) F.rows.set(row.key, row);
    for (const id of msg.removed || []) F.rows.delete(id);
    render();
  };
  ws.onclose = () => {
    $("live").textContent = "● disconnected"; $("live").className = "live off";
    setTimeout(connect, F.retry);
    F.retry = Math.min(F.retry * 2, 10000);
  };
}

async function start() {
  F.session = await api("GET", "/api/session");
  $("event-name").textContent = F.session.event;
  document.title = `Tables — ${F.session.event}`;
  if (!loggedIn() && !F.session.public) { $("login-needed").hidden = false; return; }
  $("fleet").hidden = false;
  $("quick").hidden = !can("fleet-setup");
  $("quick").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const code = $("quick-code").value.trim(), table = $("quick-table").value.trim();
    const row = [...F.rows.values()].find((r) => r.state === "pending" && r.code === code);
    if (!row) { $("quick-result").textContent = `No device shows code ${code}.`; return; }
    try {
      await enroll(row.device, table, code);
      $("quick-result").textContent = `Code ${code} → table ${table}`;
      $("quick-code").value = ""; $("quick-table").value = "";
      $("quick-code").focus();
    } catch (e) {
      $("quick-result").textContent = e.message;
    }
  });
  await load();
  connect();
  setInterval(render, 10000);  // the "… ago" times
}

start().catch((e) => toast(e.message, true));
