"""Pure functions over the tables' views and the schedule: one table's view, its durations in hub
time, where each player is, when lateness counts, why automation is held, which alerts a table
deserves, the rounds at a glance, the timeline's sentences. No state, no I/O, no clock.
"""
