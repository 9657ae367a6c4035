"""The hub's database: the SQLite store and the database file before it is opened (checks,
backups).
"""
