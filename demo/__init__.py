"""The demonstration room: simulated tables, scripted players and ``bghub demo``.

Not part of the product that runs a tournament: nothing in ``hub``, ``kiosk``, ``drivers`` or
``rulebook`` imports it (tests/hub/test_layering.py). It plugs ``bghub demo`` into the hub's
command line through the ``bghub.commands`` entry point, and the tests and benchmarks use its
simulated tables (:mod:`demo.simtable`) as a room without kiosks. See ``docs/demo.md``.
"""
