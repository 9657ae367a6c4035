// The draw sheet (/draw-sheet): every entry of the draw with their page's short address and its
// QR code (GET /api/draw/sheet; the codes are SVGs the hub makes, GET /api/players/<code>/qr.svg),
// to print and pin up or hand out (docs/td-guide.md, "The draw sheet"). A TD's page: its data
// needs the dashboard's login, unless the hub runs with --public.
import { $, h } from "./dom.js";

async function load() {
  const res = await fetch("/api/draw/sheet", { credentials: "same-origin" });
  const data = await res.json().catch(() => null);
  if (res.status === 401) {
    $("sheet-players").replaceChildren(h("p", {}, "Log in on the ", h("a", { href: "/" }, "dashboard"), " first, then open this page again."));
    return;
  }
  if (!res.ok || !data) {
    $("sheet-players").replaceChildren(h("p", {}, (data && data.error) || `The hub answered ${res.status}.`));
    return;
  }
  document.title = `${data.event} — draw sheet`;
  $("sheet-title").textContent = `${data.event}: draw sheet`;
  $("sheet-players").replaceChildren(...data.players.map((p) => h("article", { class: "sheet-player", dataset: { code: p.code } },
    h("img", { class: "sheet-qr", src: p.qr, alt: `QR code of ${p.url}`, width: "120", height: "120" }),
    h("div", { class: "sheet-text" },
      h("strong", { class: "sheet-name" }, p.name),
      p.flight ? h("span", { class: "muted" }, p.flight) : null,
      h("span", { class: "sheet-url" }, p.url)))));
}

document.addEventListener("DOMContentLoaded", () => {
  $("sheet-print").addEventListener("click", () => window.print());
  load().catch((e) => $("sheet-players").replaceChildren(h("p", {}, String(e))));
});
