"""One exception hierarchy for the rulebook (as gpiozero's ``exc.py``)."""


class RuleError(Exception):
    """An input the rules forbid. The reducer turns it into a rejected event, never a crash."""


class ProfileError(ValueError):
    """A rules profile (built-in or loaded from TOML) is unknown or invalid; names the key."""
