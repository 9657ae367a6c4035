"""The event's plan and its outcome, as data: the schedule (CSV), the player registry and
names across alphabets, the current match of each table, an import's preview, the results files,
the custom profiles. Pure of the live room: nothing here holds state across calls.
"""
