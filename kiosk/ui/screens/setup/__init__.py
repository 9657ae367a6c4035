"""The device's own screens, outside any match: "Table not set up — code 4821" while it waits to
be enrolled, the flashing table number of *identify*, and the button test.

Their messages are the gettext domain ``setup`` (``kiosk/locale/<lang>/LC_MESSAGES/setup.po``):
they are shown before a table has a language of its own, and they concern the organiser and the
technician rather than the players.
"""
