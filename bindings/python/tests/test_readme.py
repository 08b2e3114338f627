"""The README's Python quick start, run as it is written, so the README cannot drift from
the binding (its own assertions fail the test)."""

from pathlib import Path

README = Path(__file__).resolve().parents[3] / "README.md"


def quick_start() -> str:
    text = README.read_text(encoding="utf-8")
    section = text.index("## Quick start: Python")
    start = text.index("```python\n", section) + len("```python\n")
    end = text.index("```", start)
    return text[start:end]


def test_the_readme_quick_start_runs():
    code = quick_start()
    assert "toolwire.present" in code
    exec(compile(code, str(README), "exec"), {})
