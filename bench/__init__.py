"""Benchmarks: scripts that print measured figures (never pass/fail timing assertions).

Run them all with ``python -m bench`` (``make bench``); each ``bench/bench_*.py`` module has a
``main()`` that prints its own figures.
"""
