// Schedule and Results: tables on a wide screen, cards under 600 px (each cell carries its
// label). A result row opens to its games; Verify and Correct are apart, and both confirm.
import { $, dayTime, h, hhmm } from "./dom.js";
import { confirmAction } from "./confirm.js";
import { gamesTable, outcome, say } from "./sentences.js";
import { S, api, can, toast } from "./state.js";
import { verifyResult } from "./table.js";

const cell = (label, content, cls) => h("td", { "data-label": label, class: cls || null }, content);

// -- schedule --------------------------------------------------------------------------------

/** The round chosen on a page (for reading and for printing its sheet), and the round choices. */
function roundFilter(selectId, titleId, all) {
  const select = $(selectId);
  const rounds = [...new Set(all.map((r) => String(r.round)))];
  const chosen = select.value;
  select.replaceChildren(h("option", { value: "" }, "All rounds"), ...rounds.map((r) => h("option", { value: r }, `Round ${r}`)));
  select.value = rounds.includes(chosen) ? chosen : "";
  $(titleId).textContent = select.value ? ` — round ${select.value}` : "";
  for (const el of document.querySelectorAll(".print-event")) el.textContent = S.session ? `${S.session.event}: ` : "";
  return select.value ? all.filter((r) => String(r.round) === select.value) : all;
}

export function initLists() {
  $("schedule-round").addEventListener("change", () => loadSchedule());
  $("results-round").addEventListener("change", () => loadResults());
  $("print-schedule").addEventListener("click", () => window.print());
  $("print-results").addEventListener("click", () => window.print());
}

export async function loadSchedule() {
  const rows = roundFilter("schedule-round", "schedule-title-round", await api("GET", "/api/schedule"));
  const head = ["Round", "Table", "Match", "Player A", "Player B", "Length", "Start", "Clock", "Rules", "State"];
  $("schedule-table").replaceChildren(
    h("thead", {}, h("tr", {}, head.map((x) => h("th", { class: ["Rules", "State"].includes(x) ? "no-print" : null }, x)))),
    h("tbody", {}, rows.length ? rows.map((m) => h("tr", { dataset: { match: m.match_id } },
      cell("Round", m.round), cell("Table", m.table), cell("Match", m.match_id),
      cell("Player A", [m.player_a, m.player_a_id ? h("small", { class: "muted" }, ` ${m.player_a_id}`) : null]),
      cell("Player B", [m.player_b, m.player_b_id ? h("small", { class: "muted" }, ` ${m.player_b_id}`) : null]),
      cell("Length", m.length, "num"), cell("Start", dayTime(m.start_wall)), cell("Clock", m.clock ? "yes" : "no"),
      cell("Rules", [m.profile, m.profile_base ? h("small", { class: "muted" }, ` custom, over ${m.profile_base}`) : null], "no-print"), cell("State", m.result ? "finished" : m.released ? "released" : m.assigned ? "at its table" : "", "no-print")))
      : h("tr", {}, h("td", { colspan: head.length, class: "muted" }, "No schedule imported yet."))));
}

// The import goes in two steps: the hub first says what the file would change (new, changed,
// moved and removed matches, a warning for every match in progress it touches, and the players
// it cannot identify by itself); the TD chooses who each of those is, then imports it, or not.
export async function importSchedule(ev) {
  ev.preventDefault();
  const out = $("import-result");
  const file = $("import-file").files[0];
  if (!file) return;
  out.replaceChildren(h("p", { class: "muted" }, "Reading the file…"));
  await showPreview(file, {});
}

function upload(file, choices) {
  const fd = new FormData();
  fd.append("file", file);
  if (Object.keys(choices).length) fd.append("choices", JSON.stringify(choices));
  return fd;
}

async function showPreview(file, choices) {
  const out = $("import-result");
  try {
    const pv = await api("POST", "/api/schedule/preview", upload(file, choices), true);
    out.replaceChildren(previewEl(pv, file, choices));
  } catch (e) {
    showRefusal(out, e);
  }
}

function showRefusal(out, e) {
  const errors = (e.data && e.data.errors) || [];
  out.replaceChildren(h("p", { class: "error" }, e.message),
    h("ul", { class: "import-errors" }, ...errors.map((x) => h("li", {}, x.line ? `line ${x.line}: ${x.message}` : x.message))));
}

/** The players the hub cannot identify by itself: one choice each (radio buttons), none made for
 * the TD. ``choices`` (conflict id -> choice) fills as the TD chooses. */
function conflictsEl(pv, choices, onChange) {
  const list = pv.conflicts || [];
  if (!list.length) return [];
  return [h("h3", { class: "error" }, `Players to identify (${list.length})`),
    h("p", { class: "muted" }, "The hub does not guess who a player is: choose for each one, then import."),
    h("ul", { class: "import-conflicts", id: "import-conflicts" }, ...list.map((c) => h("li", { dataset: { conflict: c.id } },
      h("p", {}, c.message),
      h("div", { class: "choices", role: "radiogroup", "aria-label": `Who is ${c.name} in ${c.match_id}?` },
        ...c.options.map((o) => h("label", {},
          h("input", { type: "radio", name: `conflict-${c.id}`, value: o.value, checked: choices[c.id] === o.value,
            onchange: () => { choices[c.id] = o.value; onChange(); } }),
          ` ${o.label}`))))))];
}

function previewEl(pv, file, choices = {}) {
  const who = (m) => `${m.match_id}: ${m.player_a} – ${m.player_b}`;
  const changes = (m) => Object.entries(m.changes || {}).map(([k, [a, b]]) => `${k.replace("_wall", "")} ${k === "start_wall" ? dayTime(a) : a} → ${k === "start_wall" ? dayTime(b) : b}`).join(", ");
  const section = (title, items, line) => items.length ? [h("h3", {}, `${title} (${items.length})`),
    h("ul", { class: "preview-list" }, ...items.slice(0, 200).map((m) => h("li", { class: m.in_progress ? "in-progress" : "" }, line(m))))] : [];
  const conflicts = pv.conflicts || [];
  const unchosen = () => conflicts.filter((c) => !choices[c.id]).length;
  const players = pv.players || {};
  const summary = `${pv.matches} match${pv.matches === 1 ? "" : "es"} in the file: ${pv.added.length} new, ${pv.updated.length} changed, ` +
    `${pv.moved.length} moved, ${pv.removed.length} leaving the schedule, ${pv.unchanged} unchanged.` +
    (players.new !== undefined ? ` Players: ${players.known} known, ${players.new} new${conflicts.length ? `, ${conflicts.length} to identify` : ""}.` : "");
  const button = h("button", { type: "button", id: "import-confirm", onclick: () => doImport(file, pv, choices) }, "Import…");
  const update = () => { button.disabled = pv.errors.length > 0 || unchosen() > 0; };
  update();
  return h("div", { class: "import-preview", id: "import-preview" },
    h("p", { class: "preview-summary" }, summary),
    ...(pv.errors.length ? [h("h3", { class: "error" }, "Refused"), h("ul", { class: "import-errors" }, ...pv.errors.map((x) => h("li", {}, x)))] : []),
    ...conflictsEl(pv, choices, update),
    ...(pv.warnings.length ? [h("h3", {}, "Matches in progress"), h("ul", { class: "preview-warnings", role: "alert" }, ...pv.warnings.map((x) => h("li", {}, x)))] : []),
    ...section("Moved", pv.moved, (m) => `${who(m)} — table ${m.from_table} → ${m.table}`),
    ...section("New", pv.added, (m) => `${who(m)} — round ${m.round}, table ${m.table}`),
    ...section("Changed", pv.updated, (m) => `${who(m)} — ${changes(m)}`),
    ...section("Leaving the schedule", pv.removed, (m) => `${who(m)} — table ${m.table}`),
    h("div", { class: "inline" },
      button,
      h("button", { type: "button", class: "ghost", onclick: () => $("import-result").replaceChildren() }, "Cancel")));
}

async function doImport(file, pv, choices) {
  const n = pv.warnings.length;
  const chosen = Object.keys(choices).length;
  const sentence = `Import ${file.name}: ${pv.added.length} new, ${pv.updated.length} changed, ${pv.moved.length} moved, ${pv.removed.length} leaving the schedule` +
    (chosen ? `, with your choice for ${chosen} player${chosen === 1 ? "" : "s"}` : "") +
    (n ? `, touching ${n} match${n === 1 ? "" : "es"} in progress?` : "?");
  if (!await confirmAction(sentence, { okLabel: "Import" })) return;
  const out = $("import-result");
  try {
    const r = await api("POST", "/api/schedule", upload(file, choices), true);
    out.replaceChildren(h("p", { class: "ok-text" }, `Imported ${r.matches} match(es): ${r.added} new, ${r.updated} updated${r.moved ? `, ${r.moved} moved` : ""}` +
      `${r.players_new ? `, ${r.players_new} new player${r.players_new === 1 ? "" : "s"}` : ""}.`));
    loadSchedule();
  } catch (e) {
    // players the choices so far did not settle (a choice can make another conflict): ask again
    if (e.data && Array.isArray(e.data.conflicts) && e.data.conflicts.length) await showPreview(file, choices);
    else showRefusal(out, e);
  }
}

// -- results ---------------------------------------------------------------------------------

const open = new Set();   // match ids whose games are shown

export async function loadResults() {
  const rows = roundFilter("results-round", "results-title-round", await api("GET", "/api/results"));
  const head = ["Round", "Table", "Match", "Player A", "Score", "Player B", "Result", "Verified", "", ""];
  $("results-table").replaceChildren(
    h("thead", {}, h("tr", {}, head.map((x) => h("th", {}, x)))),
    ...(rows.length ? rows.map(resultBody) : [h("tbody", {}, h("tr", {}, h("td", { colspan: head.length, class: "muted" }, "No result yet.")))]));
}

function resultBody(r) {
  const players = { A: r.player_a, B: r.player_b };
  const shown = open.has(r.match_id);
  const games = h("tr", { class: "games-row", hidden: !shown },
    h("td", { colspan: 10 }, h("div", { class: "table-scroll" }, gamesTable(r.games, players)),
      ...(r.corrections || []).map((c) => h("p", { class: "muted correction" },
        `Corrected ${c.where === "hub" ? "at the hub" : "at the table"} by ${c.by}, ${hhmm(c.wall)}: ${c.before} → ${c.after}${c.note ? ` (${c.note})` : ""}`)),
      h("a", { href: `/transcript/${encodeURIComponent(r.match_id)}`, target: "_blank", rel: "noopener" }, "Transcript of the match")));
  const toggle = h("button", { type: "button", class: "small ghost expand", "aria-expanded": String(shown),
    onclick: () => {
      const now = games.hidden;
      games.hidden = !now;
      toggle.setAttribute("aria-expanded", String(now));
      toggle.textContent = now ? "▾ Games" : "▸ Games";
      if (now) open.add(r.match_id); else open.delete(r.match_id);
    } }, shown ? "▾ Games" : "▸ Games");
  const verify = can("results") && !r.verified
    ? h("button", { type: "button", class: "small verify", onclick: async () => { if (await verifyResult(r)) loadResults(); } }, "Verify…") : null;
  const correct = can("results") ? h("button", { type: "button", class: "small ghost correct", onclick: (ev) => correctForm(ev.target, r) }, "Correct…") : null;
  return h("tbody", { dataset: { match: r.match_id } },
    h("tr", { class: "result-row", dataset: { match: r.match_id } },
      cell("Round", r.round), cell("Table", r.table), cell("Match", r.match_id), cell("Player A", r.player_a),
      cell("Score", `${r.score.A} – ${r.score.B}`, "num"), cell("Player B", r.player_b),
      cell("Result", `${outcome(players, r.winner, null, r.end_reason) || "no winner"}${r.corrected ? " (corrected)" : ""}`),
      cell("Verified", r.verified ? `✓ ${r.verified_by || ""} ${hhmm(r.verified_wall)}` : "✗ not yet"),
      cell("", [toggle, verify], "row-actions"),
      cell("", correct, "row-actions apart")),
    games);
}

function correctForm(button, r) {
  const players = { A: r.player_a, B: r.player_b };
  const where = button.parentElement;
  const form = h("form", { class: "inline correct-form", onsubmit: async (ev) => {
    ev.preventDefault();
    const f = ev.target;
    const score = { A: Number(f.a.value), B: Number(f.b.value) };
    if (![score.A, score.B].every((x) => Number.isInteger(x) && x >= 0 && x <= 990)) { toast("Scores: whole numbers", true); return; }
    if (f.winner.value === "") { toast("Choose the winner (or no winner)", true); return; }
    const winner = f.winner.value === "none" ? null : f.winner.value;
    if (!await confirmAction(say.correctResult(r, score, winner), { okLabel: "Correct the result", danger: true })) return;
    try {
      await api("POST", `/api/results/${encodeURIComponent(r.match_id)}/correct`, { score, winner, note: f.note.value });
      toast("Result corrected");
      loadResults();
    } catch (e) { toast(e.message, true); }
  } },
  h("label", {}, `${r.player_a} `, h("input", { type: "number", name: "a", value: r.score.A, min: 0, max: 990, "aria-label": `score ${r.player_a}`, class: "w-score" })),
  h("label", {}, `${r.player_b} `, h("input", { type: "number", name: "b", value: r.score.B, min: 0, max: 990, "aria-label": `score ${r.player_b}`, class: "w-score" })),
  h("select", { name: "winner", "aria-label": "winner" }, h("option", { value: "" }, "— winner —"),
    h("option", { value: "A" }, players.A), h("option", { value: "B" }, players.B), h("option", { value: "none" }, "no winner")),
  h("input", { name: "note", placeholder: "why (required)", "aria-label": "note", required: true }),
  h("button", { type: "submit", class: "small danger" }, "Save…"),
  h("button", { type: "button", class: "small ghost", onclick: () => loadResults() }, "Cancel"));
  where.replaceChildren(form);
}
