// The dice page: every tower's counts and the fairness tests, refreshed every ten seconds.
"use strict";

const VERDICT = { suspect: "Looks biased", fair: "Fair", too_few: "Too few rolls" };

function text(tag, value, cls) {
  const el = document.createElement(tag);
  el.textContent = value;
  if (cls) el.className = cls;
  return el;
}

function p(value) {
  if (value === null || value === undefined) return "–";
  return value < 0.001 ? value.toExponential(1) : value.toFixed(3);
}

function facesBar(faces) {
  const counts = [1, 2, 3, 4, 5, 6].map((f) => faces[String(f)] || 0);
  const top = Math.max(1, ...counts);
  const bar = document.createElement("span");
  bar.className = "faces";
  bar.title = counts.join(" · ");
  for (const n of counts) {
    const col = document.createElement("span");
    col.style.height = `${Math.max(2, Math.round((30 * n) / top))}px`;
    bar.append(col);
  }
  const wrap = document.createElement("span");
  wrap.append(bar, text("span", ` ${counts.join(" · ")}`));
  return wrap;
}

function cell(row, label, content) {
  const td = document.createElement("td");
  td.dataset.label = label;
  if (typeof content === "string") td.textContent = content;
  else td.append(content);
  row.append(td);
}

function render(data) {
  const t = data.thresholds;
  document.getElementById("dice-method").textContent =
    `χ² tests of the faces, the sums and the doubles against fair dice, after ${t.min_rolls} rolls; ` +
    `a tower looks biased when a test's p-value is below ${t.alpha}; more than ` +
    `${Math.round(t.max_misread_rate * 100)} % unreadable throws means it needs cleaning. Rolls entered by hand are not counted.`;
  const room = data.room;
  const suspect = data.towers.filter((r) => r.fairness.verdict === "suspect").length;
  const dirty = data.towers.filter((r) => r.fairness.misreads_high).length;
  const towers = data.towers.length;
  document.getElementById("dice-room").textContent =
    `Whole room: ${room.rolls} rolls and ${room.misreads} misreads from ${towers} tower${towers === 1 ? "" : "s"}; ` +
    `${suspect} look${suspect === 1 ? "s" : ""} biased, ${dirty} misread${dirty === 1 ? "s" : ""} too often.`;
  const body = document.getElementById("dice-rows");
  body.replaceChildren();
  for (const r of data.towers) {
    const row = document.createElement("tr");
    const f = r.fairness;
    if (f.verdict === "suspect") row.className = "suspect";
    else if (f.misreads_high) row.className = "misreads";
    cell(row, "Table", r.table);
    cell(row, "Tower", r.tower === `table ${r.table}` ? "–" : r.tower);
    const verdict = f.misreads_high && f.verdict !== "suspect" ? "Misreads" : VERDICT[f.verdict];
    cell(row, "Verdict", text("span", verdict, `verdict ${f.verdict}`));
    cell(row, "Rolls", String(r.rolls));
    cell(row, "Misreads", `${r.misreads} (${(f.misread_rate * 100).toFixed(1)} %)`);
    cell(row, "Faces 1–6", facesBar(r.faces));
    cell(row, "Doubles", `${r.doubles} (${r.rolls ? ((100 * r.doubles) / r.rolls).toFixed(1) : "0.0"} %)`);
    cell(row, "p", `${p(f.faces.p)} · ${p(f.sums.p)} · ${p(f.doubles.p)}`);
    body.append(row);
  }
  if (!data.towers.length) {
    const row = document.createElement("tr");
    const td = text("td", "No tower has sent a roll yet.");
    td.colSpan = 8;
    row.append(td);
    body.append(row);
  }
}

async function refresh() {
  const error = document.getElementById("dice-error");
  try {
    const r = await fetch("/api/dice", { credentials: "same-origin" });
    if (r.status === 401) {
      error.textContent = "Log in on the dashboard first.";
      error.hidden = false;
      return;
    }
    render(await r.json());
    error.hidden = true;
  } catch (e) {
    error.textContent = `The hub did not answer (${e.message}).`;
    error.hidden = false;
  }
}

refresh();
setInterval(refresh, 10000);
