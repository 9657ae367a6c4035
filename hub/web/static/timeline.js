// The Timeline page: every automatic action of the hub and every action of the TD in one list,
// newest first, filterable by table, kind and person, with Waive / Undo / Resume where the table
// still allows it.
import { $, h, hhmmss } from "./dom.js";
import { confirmAction } from "./confirm.js";
import { S, api, isTD, toast } from "./state.js";

const GROUPS = [
  ["", "Everything"], ["penalties", "Penalties and forfeits"], ["clock", "Clocks"], ["score", "Score and length"],
  ["results", "Results"], ["alerts", "Alerts and calls"], ["rounds", "Rounds and room"], ["schedule", "Schedule and moves"],
  ["automation", "Automation"], ["session", "Logins"],
];
let timer = null;

export function initTimeline() {
  $("tl-group").replaceChildren(...GROUPS.map(([v, label]) => h("option", { value: v }, label)));
  for (const id of ["tl-table", "tl-person"]) $(id).addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(loadTimeline, 250); });
  for (const id of ["tl-group", "tl-who"]) $(id).addEventListener("change", loadTimeline);
}

export function scheduleTimeline() {
  if (timer || S.view !== "timeline") return;
  timer = setTimeout(() => { timer = null; if (S.view === "timeline") loadTimeline().catch(() => {}); }, 2000);
}

export async function loadTimeline() {
  const q = new URLSearchParams();
  const table = $("tl-table").value.trim(), person = $("tl-person").value.trim(), group = $("tl-group").value, who = $("tl-who").value;
  if (table) q.set("table", table);
  if (person) q.set("person", person);
  if (group) q.set("group", group);
  if (who) q.set("auto", who);
  q.set("limit", "500");
  const items = await api("GET", `/api/timeline?${q}`);
  $("timeline-list").replaceChildren(...(items.length ? items.map(row) : [h("li", { class: "empty" }, "Nothing yet with these filters.")]));
}

function row(it) {
  const answer = it.answer === null ? null : it.answer.done_ok === null ? "sent" : it.answer.done_ok ? "✓ done" : `✗ refused: ${it.answer.done_error || ""}`;
  return h("li", { class: `tl-item${it.automatic ? " auto" : ""}`, dataset: { action: it.action, group: it.group } },
    h("span", { class: "tl-time" }, hhmmss(it.wall)),
    h("span", { class: `tl-who badge ${it.automatic ? "who-hub" : "who-td"}` }, it.automatic ? "hub" : it.actor),
    h("span", { class: "tl-where" }, it.table ? h("a", { href: `#/table/${encodeURIComponent(it.table)}` }, `Table ${it.table}`) : "Room",
      it.match_id ? h("small", { class: "muted" }, ` ${it.match_id}`) : null),
    h("span", { class: "tl-text" }, it.text, answer ? h("small", { class: answer.startsWith("✗") ? "error" : "muted" }, ` — ${answer}`) : null),
    it.undo && isTD() ? h("button", { type: "button", class: "small ghost tl-undo", onclick: () => undo(it) }, `${it.undo.label}…`) : h("span"));
}

async function undo(it) {
  const u = it.undo;
  const who = it.players && (it.players.A || it.players.B) ? ` (${it.players.A} – ${it.players.B})` : "";
  let sentence;
  if (u.type === "automation") sentence = `Resume automatic lateness at table ${it.table}? Points that fell due meanwhile are given at once.`;
  else if (u.label === "Undo") sentence = `Undo: reopen ${it.match_id}${who} at table ${it.table} as it was before “${it.text}”?`;
  else sentence = `Waive: take back “${it.text}” at table ${it.table} (${it.match_id})?`;
  if (!await confirmAction(sentence, { okLabel: u.label })) return;
  try {
    if (u.type === "automation") await api("POST", `/api/tables/${encodeURIComponent(it.table)}/automation`, { suspended: false });
    else await api("POST", `/api/tables/${encodeURIComponent(it.table)}/commands`, { type: "waive", penalty_id: u.penalty_id });
    toast(`${u.label}: sent to table ${it.table}`);
    setTimeout(loadTimeline, 500);
  } catch (e) { toast(e.message, true); }
}
