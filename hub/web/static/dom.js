// Small helpers shared by the dashboard's modules: building elements, formatting times and
// durations, natural sort, and folding names for an accent-insensitive search.
// All text from the hub goes through text nodes (never innerHTML).

export function h(tag, attrs, ...children) {
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

export const $ = (id) => document.getElementById(id);

const naturalKey = (t) => (/^\d+$/.test(t) ? [Number(t), ""] : [1e9, String(t)]);
export function byNatural(a, b) {
  const ka = naturalKey(a), kb = naturalKey(b);
  return ka[0] - kb[0] || (ka[1] < kb[1] ? -1 : ka[1] > kb[1] ? 1 : 0);
}

export function hhmm(wall) {
  if (!wall) return "";
  return new Date(wall).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

export function hhmmss(wall) {
  if (!wall) return "";
  return new Date(wall).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}

export function dayTime(wall) {
  if (!wall) return "";
  return new Date(wall).toLocaleString([], { weekday: "short", hour: "2-digit", minute: "2-digit" });
}

/** A clock reserve as m:ss (what the table shows). */
export function mmss(ms) {
  if (ms === null || ms === undefined) return "–";
  const neg = ms < 0;
  const total = Math.floor(Math.abs(ms) / 1000);
  const m = Math.floor(total / 60), s = total % 60;
  return (neg ? "-" : "") + m + ":" + String(s).padStart(2, "0");
}

/** A duration in words, so that a reserve never reads as a time of day: "14 min", "1 h 05 min". */
export function duration(ms) {
  if (ms === null || ms === undefined) return "–";
  const total = Math.max(0, Math.round(ms / 1000));
  if (total < 60) return `${total} s`;
  const minutes = Math.floor(total / 60);
  if (minutes < 60) {
    const s = total % 60;
    return minutes < 10 && s ? `${minutes} min ${String(s).padStart(2, "0")} s` : `${minutes} min`;
  }
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, "0")} min`;
}

/** A countdown to a moment: "in 4 min", "started 2 min ago". */
export function countdown(wall, now) {
  const diff = wall - now;
  const min = Math.round(Math.abs(diff) / 60000);
  if (Math.abs(diff) < 30000) return "starting now";
  return diff > 0 ? `starts in ${duration(diff)}` : `started ${min} min ago`;
}

export function parseMmss(text) {
  const m = /^\s*(\d+)(?::(\d{1,2}))?\s*$/.exec(text);
  if (!m || Number(m[2] || 0) > 59) return null;
  return (Number(m[1]) * 60 + Number(m[2] || 0)) * 1000;
}

/** A text folded as the hub folds a query (hub/names.py, native_fold): no accents or tonos, lower
 * case, final sigma as sigma, its words (letters and digits) separated by one space: "Ζωή" is
 * "ζωη", "Kovács-Ödön" "kovacs odon". Transliteration ("ivanov" finds "Иванов") is the hub's:
 * every tile carries its players' search words, worked out there with the anyascii library. */
export function fold(text) {
  return (String(text || "").normalize("NFD").replace(/\p{M}/gu, "").toLowerCase().replace(/ς/g, "σ")
    .match(/[\p{L}\p{N}]+/gu) || []).join(" ");
}

/** Whether every word of the query begins one of a name's search words (hub/names.py,
 * words_match): "ann b" finds "Anna Berg". ``words``: the hub's for that name; without them the
 * name's own words (its alphabet only). */
export function nameMatches(name, query, words) {
  const own = Array.isArray(words) ? words.map(String) : fold(name).split(" ");
  return fold(query).split(" ").filter(Boolean).every((q) => own.some((w) => w.startsWith(q)));
}

/** Draw ``root`` again (``redraw``) keeping what the TD typed or chose in its forms, and the focus.
 * The pages are drawn again on live pushes, often every second or two; a push between the TD's
 * choice and the click must not wipe the choice, or the action does nothing, or not what the TD
 * chose (a TD's action does what the TD chose). A field is known again by the ``data-keep`` of the
 * element around it (a device's card, a form) and its name. A choice the new page no longer offers
 * (the call has gone, the table is now the match's own) is not kept: its list shows what is. */
export function keepingTyped(root, redraw) {
  const fieldKey = (el) => {
    const holder = el.closest("[data-keep]");
    return holder && root.contains(holder) ? `${holder.dataset.keep}\n${el.name || ""}` : null;
  };
  const fields = () => root.querySelectorAll("[data-keep] input, [data-keep] select, [data-keep] textarea");
  const typed = new Map();
  for (const el of fields()) {
    const key = fieldKey(el);
    if (key !== null && el.type !== "checkbox" && el.type !== "radio") typed.set(key, el.value);
  }
  const active = document.activeElement;
  const focused = active && root.contains(active) ? fieldKey(active) : null;
  redraw();
  for (const el of fields()) {
    const key = fieldKey(el);
    if (key === null) continue;
    if (typed.has(key)) {
      const v = typed.get(key);
      const offered = el.tagName !== "SELECT" || [...el.options].some((o) => o.value === v);
      if (offered) el.value = v;
    }
    if (key === focused) el.focus({ preventScroll: true }); // the TD may have scrolled away from it
  }
}

/** Forget what the TD chose in the forms known by ``keep`` (``data-keep``): once the action is
 * done, its form starts again empty at the next drawing rather than offering the same choice. */
export function forgetTyped(keep) {
  for (const el of document.querySelectorAll("[data-keep]")) if (el.dataset.keep === keep && el.tagName === "FORM") el.reset();
}
