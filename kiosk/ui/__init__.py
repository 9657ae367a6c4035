"""The table's touchscreen interface (pygame-ce; the only package of the product that imports pygame).

API used by the kiosk application
---------------------------------
``kiosk.ui.view.KioskView(size: tuple[int, int], lang: str = "en", flip: bool = False)``
    The screen at ``size`` pixels: layouts for 800×480 (Touch Display) and 1280×720 (Touch
    Display 2); other sizes scale the nearest one. Side A is the left half and B the right;
    ``flip=True`` swaps them. ``lang`` is the table's language (each player may choose their own
    for their half). The attributes ``lang`` and ``flip`` may be changed at any time.

``view.draw(surface, snap, local, now_wall_ms) -> list[pygame.Rect]``
    Draws the screen for the snapshot (``rulebook.snapshot.snapshot``; its clock values are as of
    ``snap["at"]``: pass a fresh one each frame) and returns the rectangles that changed since the
    previous draw (pass them to ``pygame.display.update``). ``now_wall_ms`` (epoch ms) drives the
    countdowns: start time, break, lateness. After a draw, ``view.last_layout`` lists every text
    drawn as ``TextPlacement(text, rect, box, size, requested, region)``.
    ``view.invalidate()`` forces a full repaint; ``view.next_frame_ms(snap, now_wall_ms)`` says
    in how many ms the screen next changes by itself (a clock digit, the delay bar, a countdown;
    20…1000), so the main loop can sleep until then or until an input arrives.

``view.hit(pos, snap, local) -> list[Intent]`` and ``view.key(key, mod, snap, local) -> list[Intent]``
    A touch at ``pos`` (pixels, from FINGERDOWN) or a key press (desktop key map, docs/screens.md).
    Intents, in the order to handle them:

    - ``{"ui": ...}``: screen navigation; the application passes it to ``local.apply(intent)``
      (``apply`` ignores any other intent and returns False for it, so calling it on every
      intent is fine). ``hit``/``key`` never change ``local`` themselves.
    - ``{"input": ...}``: a table input without ``at`` (``checkin``, ``opening_roll``, ``double``,
      ``take``, ``pass``, ``win``, ``break``, ``return``, ``undo``, ``call_td``, ``pause``,
      ``resume``, ``invalid_roll``, ``confirm``, ``press``), or ``{"input": "cmd", "type": ...}``
      for TD-menu actions (``pause``/``resume``/``set_time``/``impose_clock``/``resolve_flag``/
      ``td_ack``): the application adds ``id`` and ``at`` and journals it.
    - ``{"app": "set_language", "lang": code}``, ``{"app": "set_table_id", "table": id}``,
      ``{"app": "flip"}``: table settings chosen in the TD menu.

``kiosk.ui.view.LocalState``
    What the screen remembers besides the match: the open dialog, each player's language
    (``langs``), opening dice picked, the result being entered, PIN entry, TD-menu edits, a short
    notice. The application sets ``local.hub_online`` (hub connection indicator) and
    ``local.td_pin`` (from the configuration). A power-loss restore needs nothing from the
    application: the snapshot's ``clock.paused == "power_loss"`` shows its notice.

``kiosk.ui.screenshot.render_png(snap, size, lang, out, local=None, flip=False)`` and
``kiosk.ui.screenshot.main_screenshot(args)`` (``bgtable screenshot``) render to PNG headless.

``kiosk.ui.i18n.translator(lang)`` gives ``tr(msgid) -> str`` from ``kiosk/locale/*/kiosk.po``.
"""

import os as _os

# pygame prints a banner on import; the kiosk's output (logs, ``bgtable screenshot``) stays clean.
_os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
