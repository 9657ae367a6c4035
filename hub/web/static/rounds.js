// The Rounds page: room-wide control (pause every clock, suspend the room's automation) and, per
// round, where it stands (with "verify the round's confirmed results"): not started / playing / finished /
// verified, each match's projected finish, the match holding the round up, the round's end; with
// "start now" and "delay by N minutes".
import { $, dayTime, h, hhmm } from "./dom.js";
import { confirmAction } from "./confirm.js";
import { S, api, can, toast } from "./state.js";

const STATUS = { not_started: "not started", playing: "playing", finished: "finished", verified: "verified" };
let timer = null;

export async function loadRounds() {
  const data = await api("GET", "/api/rounds");
  S.automation = data.automation;
  $("rounds-control").replaceChildren(...(can("room") ? roomControl(data) : []));
  $("rounds-list").replaceChildren(...(data.rounds.length ? data.rounds.map(roundCard)
    : [h("p", { class: "muted" }, "No schedule imported yet.")]));
}

/** Reload at most every two seconds while the page is open (a busy room changes constantly). */
export function scheduleRounds() {
  if (timer || S.view !== "rounds") return;
  timer = setTimeout(() => { timer = null; if (S.view === "rounds") loadRounds().catch(() => {}); }, 2000);
}

function tilesWhere(pred) { return [...S.tables.values()].filter(pred); }

async function act(sentence, okLabel, method, path, body, done) {
  if (!await confirmAction(sentence, { okLabel })) return;
  try {
    const r = await api(method, path, body);
    toast(done(r));
    loadRounds();
  } catch (e) { toast(e.message, true); }
}

function roomControl(data) {
  const running = tilesWhere((t) => t.clock && t.clock.enabled && ["playing", "between_games", "opening", "break"].includes(t.phase)).length;
  const paused = tilesWhere((t) => t.phase === "paused" && t.clock && t.clock.paused === "td").length;
  const suspended = data.automation === "suspended";
  return [h("div", { class: "card room-control" },
    h("h2", {}, "The whole room"),
    h("p", { class: "muted" }, `Automatic lateness: ${data.automation === "on" ? "on at every table" : suspended ? "suspended at every table" : "suspended at some tables"}.`),
    h("div", { class: "inline" },
      h("button", { type: "button", id: "pause-all", onclick: () => act(
        `Pause every running clock in the room (${running} table${running === 1 ? "" : "s"})? Play stops until you resume.`,
        "Pause all", "POST", "/api/room/pause", undefined, (r) => `Paused ${r.tables.length} tables`) }, "‖ Pause all clocks…"),
      h("button", { type: "button", id: "resume-all", onclick: () => act(
        `Resume every clock the TD paused (${paused} table${paused === 1 ? "" : "s"})?`,
        "Resume all", "POST", "/api/room/resume", undefined, (r) => `Resumed ${r.tables.length} tables`) }, "▶ Resume all clocks…"),
      h("button", { type: "button", id: "room-automation", class: "ghost", onclick: () => act(
        suspended ? "Resume automatic lateness at every table? Points that fell due meanwhile are given at once."
          : "Suspend automatic lateness at every table of the room? No automatic point or forfeit is given until you resume it.",
        suspended ? "Resume" : "Suspend", "POST", "/api/room/automation", { suspended: !suspended },
        (r) => r.automation_suspended ? "Automatic lateness suspended for the room" : "Automatic lateness resumed for the room") },
      suspended ? "Resume automation for the room…" : "Suspend automation for the room…")))];
}

/** One part of a round's progress bar (sized through the CSSOM: the page's policy forbids inline styles). */
function bar(kind, n) {
  const el = h("span", { class: `bar c-${kind}` });
  el.style.flexGrow = String(n);
  return el;
}

function roundCard(r) {
  const total = r.matches.length;
  const c = r.counts;
  const holding = r.matches.find((m) => m.match_id === r.holding);
  const end = r.done ? `ended ${hhmm(r.projected_end_wall)}` : r.projected_end_wall ? `projected end ${hhmm(r.projected_end_wall)}` : "end not known yet";
  const waiting = c.not_started;
  const n = r.to_verify || 0;
  const plural = (k) => `${k} result${k === 1 ? "" : "s"}`;
  // one round at a time: the confirmation and the answer name the round and the count
  const verify = can("results") && n ? h("div", { class: "inline round-actions" }, h("button", { type: "button", class: "small ghost", dataset: { roundVerify: r.round }, onclick: () => act(
    `Verify the ${plural(n)} of round ${r.round} that both players confirmed at their table? Results of other rounds are not touched.`,
    `Verify ${plural(n)}`, "POST", "/api/results/verify-confirmed", { round: r.round },
    (x) => `Round ${x.round}: ${plural(x.count)} verified`) }, `✓ Verify ${plural(n)} confirmed in round ${r.round}…`)) : null;
  const controls = can("room") && waiting ? h("div", { class: "inline round-actions" },
    h("button", { type: "button", class: "small", dataset: { roundStart: r.round }, onclick: () => act(
      `Start round ${r.round} now: at its ${waiting} waiting table${waiting === 1 ? "" : "s"} lateness counts from ${hhmm(Date.now() + S.offset)}?`,
      "Start now", "POST", `/api/rounds/${encodeURIComponent(r.round)}/start`, undefined, (x) => `Round ${r.round} started at ${hhmm(x.start_wall)}`) }, "Start now…"),
    h("form", { class: "inline delay-form", onsubmit: (ev) => {
      ev.preventDefault();
      const minutes = Number(ev.target.minutes.value);
      if (!Number.isInteger(minutes) || minutes < 1 || minutes > 240) { toast("Minutes: 1 to 240", true); return; }
      const from = Math.min(...r.matches.filter((m) => m.status === "not_started").map((m) => m.start_wall));
      act(`Delay round ${r.round} by ${minutes} min: its ${waiting} waiting table${waiting === 1 ? "" : "s"} start at ${hhmm(from + minutes * 60000)} and lateness counts from then?`,
        "Delay", "POST", `/api/rounds/${encodeURIComponent(r.round)}/delay`, { minutes }, (x) => `Round ${r.round} now starts at ${hhmm(x.start_wall)}`);
    } },
    h("label", {}, "Delay by ", h("input", { type: "number", name: "minutes", min: 1, max: 240, value: 10, class: "w-score", "aria-label": `minutes to delay round ${r.round}` }), " min"),
    h("button", { type: "submit", class: "small ghost" }, "Delay…"))) : null;
  return h("section", { class: "card round-card", dataset: { round: r.round } },
    h("div", { class: "round-head" },
      h("h2", {}, `Round ${r.round}`),
      h("span", { class: "muted" }, `start ${dayTime(r.start_wall)}`),
      h("span", { class: "round-end" }, end),
      r.next_start_wall ? h("span", { class: "muted" }, `next round ${hhmm(r.next_start_wall)}`) : null),
    h("div", { class: "round-counts" },
      ...["not_started", "playing", "finished", "verified"].map((k) => h("span", { class: `count-chip c-${k}` }, `${c[k]} ${STATUS[k]}`)),
      h("span", { class: "muted" }, `of ${total}`)),
    h("div", { class: "progress", role: "img", "aria-label": `${c.finished + c.verified} of ${total} finished` },
      ...["verified", "finished", "playing", "not_started"].map((k) => bar(k, c[k]))),
    r.straggler ? h("p", { class: "straggler", role: "alert" },
      `Table ${r.straggler.table} (${r.straggler.match_id}) will end about ${r.straggler.minutes_after_rest} min after every other match of the round.`) : null,
    holding && !r.done ? h("p", { class: "holding" }, `Holding the round up: table ${holding.table}, ${holding.player_a} – ${holding.player_b} (${holding.score.A}–${holding.score.B} to ${holding.length}), projected ${hhmm(holding.finish_wall)}`) : null,
    controls,
    verify,
    h("details", { class: "round-matches" }, h("summary", {}, "Matches"),
      h("div", { class: "table-scroll" }, h("table", { class: "data compact cards" },
        h("thead", {}, h("tr", {}, ["Table", "Players", "Score", "Status", "Finish"].map((x) => h("th", {}, x)))),
        h("tbody", {}, ...r.matches.slice().sort((a, b) => (b.finish_wall || 0) - (a.finish_wall || 0) || 0).map((m) => h("tr", { class: m.match_id === r.holding && !r.done ? "holding-row" : "" },
          h("td", { "data-label": "Table" }, h("a", { href: `#/table/${encodeURIComponent(m.table)}` }, m.table)),
          h("td", { "data-label": "Players" }, `${m.player_a} – ${m.player_b}`),
          h("td", { "data-label": "Score", class: "num" }, `${m.score.A}–${m.score.B} / ${m.length}`),
          h("td", { "data-label": "Status" }, STATUS[m.status]),
          h("td", { "data-label": "Finish" }, m.finish_wall ? `${m.projected ? "≈ " : ""}${hhmm(m.finish_wall)}` : "–"))))))));
}
