// What an action will do, in a sentence naming the players: the text of every confirmation, and
// how a match ended. Pure functions of the data the dashboard holds.
import { h, hhmm, mmss } from "./dom.js";
import { otherSide, playerName } from "./state.js";

const HOW = {
  points: "on points",
  time: "on time",
  forfeit: "by forfeit",
  lateness: "by forfeit for lateness",
  td: "by the TD's decision",
  double_loss: "as a double loss (FFBG 10.3)",
};

export const pts = (n) => `${n} point${n === 1 ? "" : "s"}`;

export const REASONS = {
  late: "lateness",
  break_overrun: "break overrun",
  conduct: "conduct",
  slow_play: "slow play",
  premature_pickup: "dice picked up too early",
  td: "the TD's decision",
};
export const reasonText = (r) => REASONS[r] || r || "";

/** "Jon Dahl won 7–4 on points" / "Anna Berg won by forfeit (Jon Dahl forfeited)". */
export function outcome(players, winner, score, reason) {
  if (reason === "double_loss") return `Both players lost${score ? ` at ${score.A}–${score.B}` : ""}: a double loss (FFBG 10.3)`;
  if (winner !== "A" && winner !== "B") return "";
  const loser = otherSide(winner);
  const w = playerName(players, winner), l = playerName(players, loser);
  const s = score ? ` ${score[winner]}–${score[loser]}` : "";
  if (reason === "time") return `${w} won on time: ${l}'s time ran out`;
  if (reason === "forfeit") return `${w} won by forfeit: ${l} forfeited`;
  if (reason === "lateness") return `${w} won by forfeit: ${l} was too late`;
  return `${w} won${s} ${HOW[reason] || ""}`.trim();
}

/** The match as people say it: "r3-t12 (Anna Berg – Jon Dahl)". */
export function matchLabel(mid, players) {
  return `${mid || "the match"} (${playerName(players, "A")} – ${playerName(players, "B")})`;
}

/** Ctx: {table, match_id, players, score, length, clock, in_game}. */
export const say = {
  forfeit(c, against) {
    return `Forfeit: ${playerName(c.players, against)} loses ${c.match_id} to ${playerName(c.players, otherSide(against))}?`;
  },
  penalty(c, against, points, reason, existing) {
    const gainer = otherSide(against);
    const before = c.score[gainer];
    let text = `Penalty: ${pts(points)} against ${playerName(c.players, against)} (${reasonText(reason)}) — ` +
      `${playerName(c.players, gainer)} goes from ${before} to ${before + points} in ${c.match_id}?`;
    if (existing && existing.length) {
      const given = existing.map((p) => `${pts(p.points)} ${p.origin === "auto" ? "given automatically" : "given"}${p.wall ? " at " + hhmm(p.wall) : ""}`);
      text = `${playerName(c.players, against)} already has ${given.join(", ")} for lateness in this match. ` + text;
    }
    return text;
  },
  waive(c, p) {
    const gainer = otherSide(p.against);
    const before = c.score[gainer];
    const when = p.wall ? ` at ${hhmm(p.wall)}` : "";
    const by = p.origin === "auto" ? `given automatically${when}` : p.origin === "td" ? `given by ${p.actor || "the TD"}${when}` : `given at the table`;
    return `Waive ${pts(p.points)} for ${reasonText(p.reason)} against ${playerName(c.players, p.against)} (${by})? ` +
      `${playerName(c.players, gainer)} goes from ${before} to ${Math.max(0, before - p.points)}.`;
  },
  undoEnd(c, end) {
    const what = end.type === "forfeit" ? "the forfeit" : "the lateness point that ended the match";
    return `Undo ${what}: ${matchLabel(c.match_id, c.players)} reopens as it was, ${c.score.A}–${c.score.B}?`;
  },
  resolveFlag(c, winner) {
    return `Time flag at ${c.match_id}: ${playerName(c.players, winner)} wins, ${playerName(c.players, otherSide(winner))} loses on time?`;
  },
  setTime(c, reserves) {
    const part = (s) => {
      const now = c.reserves ? c.reserves[s] : null;
      const same = now !== null && Math.abs(now - reserves[s]) < 1000;
      return `${playerName(c.players, s)} ${same ? mmss(reserves[s]) + " (unchanged)" : (now === null ? "" : mmss(now) + " → ") + mmss(reserves[s])}`;
    };
    return `Set the time at ${c.match_id}: ${part("A")}, ${part("B")}?`;
  },
  imposeClock(c, mpp, delay) {
    const need = (s) => Math.max(0, c.length - c.score[s]);
    const each = mpp * (need("A") + need("B")) / 2;
    return `Impose a clock at ${matchLabel(c.match_id, c.players)}: ${mpp} min per point, ${delay} s delay — ` +
      `each player gets about ${Math.round(each)} min?`;
  },
  forbidDouble(c, side) {
    return `${playerName(c.players, side)} may not double for the rest of this game at ${c.match_id} (HU 7.9)?`;
  },
  forceDouble(c, side) {
    return `Enter ${playerName(c.players, side)}'s double at ${c.match_id} (FFBG 6.8)? ${playerName(c.players, otherSide(side))} then takes or passes.`;
  },
  crawfordDouble(c, choice) {
    return choice === "void"
      ? `Void the double made in the Crawford game at ${c.match_id}: the cube goes back to where it was (the leader's choice)?`
      : `Keep the double made in the Crawford game at ${c.match_id} (the leader's choice)?`;
  },
  doubleLoss(c) {
    return `Double loss at ${matchLabel(c.match_id, c.players)}: both players lose the match (FFBG 10.3)?`;
  },
  startClock(c, side) {
    return `Start ${playerName(c.players, side)}'s clock at ${c.match_id} (it runs until they arrive)?`;
  },
  setLength(c, length) {
    return `Match length of ${matchLabel(c.match_id, c.players)}: ${c.length} → ${length} points${c.in_game ? ", from the next game" : ""}?`;
  },
  correctScore(c, score) {
    const part = (s) => `${playerName(c.players, s)} ${c.score[s] === score[s] ? score[s] + " (unchanged)" : c.score[s] + " → " + score[s]}`;
    return `Correct the score of ${c.match_id}: ${part("A")}, ${part("B")}?`;
  },
  verify(r) {
    const players = { A: r.player_a, B: r.player_b };
    return `Verify ${r.match_id} at table ${r.table}: ${outcome(players, r.winner, r.score, r.end_reason) || `${r.score.A}–${r.score.B}`}?`;
  },
  correctResult(r, score, winner) {
    const players = { A: r.player_a, B: r.player_b };
    const w = winner ? `${playerName(players, winner)} wins` : "no winner";
    return `Correct the result of ${matchLabel(r.match_id, players)}: ${r.score.A}–${r.score.B} → ${score.A}–${score.B}, ${w}?`;
  },
  move(c, to, began) {
    return `Move ${matchLabel(c.match_id, c.players)} from table ${c.table} to table ${to}?` +
      (began ? ` Its score ${c.score.A}–${c.score.B}${c.reserves ? " and clocks" : ""} go with it; the players check in there, and lateness counts from now.` : "");
  },
  release(c) {
    return `Release table ${c.table}: ${matchLabel(c.match_id, c.players)} is set aside and the table takes its next scheduled match?`;
  },
  automation(table, suspend) {
    return suspend
      ? `Suspend automatic lateness at table ${table}? No automatic point or forfeit is given there until you resume it.`
      : `Resume automatic lateness at table ${table}? Points that fell due meanwhile are given at once.`;
  },
};

/** A game list (winner, points, cube, gammon, resignation) for a verification or a result row. */
export function gamesTable(games, players) {
  const rows = (games || []).map((g) => h("tr", {},
    h("td", { class: "num" }, g.game),
    h("td", {}, playerName(players, g.winner)),
    h("td", { class: "num" }, g.points),
    h("td", { class: "num" }, g.cube),
    h("td", {}, g.kind === "pass" ? "double passed" : g.kind),
    h("td", {}, g.resigned ? "resigned" : ""),
    h("td", { class: "nowrap" }, hhmm(g.wall))));
  return h("table", { class: "data games" },
    h("thead", {}, h("tr", {}, ["Game", "Winner", "Points", "Cube", "Kind", "Resign", "Time"].map((x) => h("th", {}, x)))),
    h("tbody", {}, rows.length ? rows : h("tr", {}, h("td", { colspan: 7, class: "muted" }, "No game finished yet."))));
}
