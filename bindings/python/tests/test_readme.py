"""The README's Python quick start, run as it is written, so the README cannot drift from
the binding (its own assertions fail the test). Also a script: CI runs it with the wheel
installed in a fresh venv (`python test_readme.py`, outside the checkout)."""

import sys
from pathlib import Path

README = Path(__file__).resolve().parents[3] / "README.md"


def quick_start() -> str:
    """Every ```python block of the section, in order (they share one namespace)."""
    text = README.read_text(encoding="utf-8")
    section = text.index("## Quick start: Python")
    end = text.index("\n## ", section + 1)
    blocks, at = [], section
    while (start := text.find("```python\n", at, end)) != -1:
        start += len("```python\n")
        at = text.index("```", start)
        blocks.append(text[start:at])
    return "\n".join(blocks)


def test_the_readme_quick_start_runs():
    code = quick_start()
    for used in ("toolwire.present", "Presenter(", "toolwire.fastmcp.tool"):
        assert used in code
    exec(compile(code, str(README), "exec"), {})


if __name__ == "__main__":
    import toolwire

    # The package under test is the installed one, not a source tree.
    assert Path(toolwire.__file__).resolve().is_relative_to(Path(sys.prefix).resolve())
    test_the_readme_quick_start_runs()
    print(f"README quick start: ok (toolwire from {Path(toolwire.__file__).parent}, {sys.prefix})")
