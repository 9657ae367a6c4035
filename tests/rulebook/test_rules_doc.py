"""docs/rules.md names the test of each article: every name it gives must exist (so the table of
articles cannot silently point at a test that was renamed or removed)."""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _tests_in(path: Path) -> list[str]:
    return re.findall(r"^def (test_\w+)", path.read_text(encoding="utf-8"), flags=re.M)


def test_every_test_named_in_the_rules_table_exists() -> None:
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    section = text[text.index("## Every article") :]
    current = None
    checked = 0
    for ref in re.findall(r"`((?:test_\w+)?::test_[\w*]+(?:\[[^\]]*\])?|test_\w+\.py)`", section):
        name = ref.split("[", 1)[0]
        if name.endswith(".py"):
            assert list(ROOT.glob(f"tests/**/{name}")), name
            continue
        if "::" in name:
            file, name = name.split("::")
            current = file if file else current
        assert current is not None, ref
        found = [p for p in ROOT.glob(f"tests/**/{current}.py")]
        assert found, current
        assert fnmatch.filter(_tests_in(found[0]), name), f"{current}::{name}"
        checked += 1
    assert checked > 60
