"""A player's page address as a QR code on the table's screen (the waiting screen of a match of
the draw, docs/screens.md), drawn with pygame rectangles from ``qrcode``'s module matrix.

The matrix carries its quiet zone (4 modules, as the standard asks: the code stands on a dark
panel), dark modules black on white. Every module is the same whole number of pixels, so a phone
reads it at 90 px as well as at 150; a surface is made once per address and size (a waiting
screen is drawn every frame).
"""

from __future__ import annotations

import functools

import pygame
import qrcode
import qrcode.constants

#: the standard's quiet zone, in modules
QUIET = 4
BLACK = (0, 0, 0)
WHITE = (255, 255, 255)


@functools.lru_cache(maxsize=16)
def matrix(text: str) -> tuple[tuple[bool, ...], ...]:
    """``text``'s QR modules (True: dark), quiet zone included; medium error correction, as the
    draw sheet's (a finger-marked screen still reads)."""
    q = qrcode.QRCode(border=QUIET, error_correction=qrcode.constants.ERROR_CORRECT_M)
    q.add_data(text)
    q.make(fit=True)
    return tuple(tuple(bool(v) for v in row) for row in q.get_matrix())


def module_px(text: str, side: int) -> int:
    """The pixels of one module when the code is drawn within ``side`` pixels (at least 1)."""
    return max(1, side // len(matrix(text)))


@functools.lru_cache(maxsize=16)
def surface(text: str, side: int) -> pygame.Surface:
    """The code of ``text`` at the largest whole module size that fits ``side`` pixels."""
    grid = matrix(text)
    mod = module_px(text, side)
    out = pygame.Surface((mod * len(grid), mod * len(grid)))
    out.fill(WHITE)
    for y, row in enumerate(grid):
        for x, dark in enumerate(row):
            if dark:
                out.fill(BLACK, (x * mod, y * mod, mod, mod))
    return out
