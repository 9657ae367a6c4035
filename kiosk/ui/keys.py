"""The desktop key map: keys stand for touches, by position on the screen.

Left-hand keys act for the player on the left of the screen and right-hand keys for the player on
the right (whichever side that is when the screen is flipped). Each button the screen shows names
the keys that press it, so a key does exactly what touching the visible button would do.
``docs/screens.md`` lists the map.
"""

from __future__ import annotations

import pygame

#: per position: the main action (check in, double, take, break, I'm back, confirm), a second one
#: (pass), calling the TD, the player's language, and the clock button
MAIN = {"left": (pygame.K_q,), "right": (pygame.K_p,)}
SECOND = {"left": (pygame.K_w,), "right": (pygame.K_o,)}
CALL_TD = {"left": (pygame.K_e,), "right": (pygame.K_i,)}
#: entering a roll by hand (a table without a dice tower)
ROLL = {"left": (pygame.K_d,), "right": (pygame.K_k,)}
LANG = {"left": (pygame.K_a,), "right": (pygame.K_l,)}
PRESS = {"left": (pygame.K_z, pygame.K_LSHIFT), "right": (pygame.K_m, pygame.K_RSHIFT)}

RESULT = (pygame.K_r,)
UNDO = (pygame.K_u,)
PAUSE = (pygame.K_SPACE,)
RESUME = (pygame.K_SPACE,)
NEXT_GAME = (pygame.K_n,)
TD_MENU = (pygame.K_t,)
BACK = (pygame.K_ESCAPE, pygame.K_BACKSPACE)
OK = (pygame.K_RETURN, pygame.K_KP_ENTER)
CLEAR = (pygame.K_DELETE, pygame.K_c)
KINDS = {"single": (pygame.K_s,), "gammon": (pygame.K_g,), "backgammon": (pygame.K_b,)}

_DIGITS = {pygame.K_0 + i: str(i) for i in range(10)}
_DIGITS.update({getattr(pygame, f"K_KP{i}"): str(i) for i in range(10)})


def digit_keys(digit: int | str) -> tuple[int, ...]:
    d = str(digit)
    return tuple(k for k, v in _DIGITS.items() if v == d)


def pos(is_left: bool) -> str:
    return "left" if is_left else "right"
