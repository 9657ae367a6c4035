"""The room's live model and its jobs: ``RoomState`` (in memory), ``Hub`` (the wiring and the
tick), and the jobs it wires: ingest, automation, alerts, actions, round control, views, commands.
"""
