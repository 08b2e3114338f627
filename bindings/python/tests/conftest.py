"""Shared test setup: where the external TOON suite and the CLI binary are."""

from __future__ import annotations

import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]


def _required() -> bool:
    return os.environ.get("TOOLWIRE_REQUIRE_EXTERNAL") == "1"


def toon_spec_fixtures() -> pathlib.Path | None:
    """`$TOOLWIRE_TOON_SPEC/tests/fixtures` (default `<repo>/../shared/toon-spec`), or None."""
    root = pathlib.Path(os.environ.get("TOOLWIRE_TOON_SPEC", REPO.parent / "shared" / "toon-spec"))
    fixtures = root / "tests" / "fixtures"
    if fixtures.is_dir():
        return fixtures
    if _required():
        raise RuntimeError(
            f"external suite TOOLWIRE_TOON_SPEC not found at {root} "
            "(required by TOOLWIRE_REQUIRE_EXTERNAL=1)"
        )
    return None


def pytest_report_header(config: pytest.Config) -> list[str]:
    if toon_spec_fixtures() is None:
        return [
            "NOTE: external suite TOOLWIRE_TOON_SPEC not found; "
            "the TOON fixture tests DID NOT RUN (set TOOLWIRE_TOON_SPEC)"
        ]
    return [f"TOON fixtures: {toon_spec_fixtures()}"]


def pytest_terminal_summary(terminalreporter, exitstatus, config):  # type: ignore[no-untyped-def]
    if toon_spec_fixtures() is None:
        terminalreporter.write_line(
            "NOTE: the external TOON 4.4 suite was not found: its 564 fixtures DID NOT RUN",
            yellow=True,
        )


@pytest.fixture(scope="session")
def cli() -> pathlib.Path:
    """The repo's `toolwire` binary (`$TOOLWIRE_CLI`, else built with cargo if missing)."""
    env = os.environ.get("TOOLWIRE_CLI")
    if env:
        return pathlib.Path(env)
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    for profile in ("release", "debug"):
        exe = target / profile / "toolwire"
        if exe.exists():
            return exe
    subprocess.run(
        ["cargo", "build", "--release", "-p", "toolwire-cli"], cwd=REPO, check=True
    )
    return target / "release" / "toolwire"
