"""Shared fixtures for the end-to-end tests: the real `drilldown` binary and the repo's paths."""
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "Examples"


def drilldown_bin() -> str:
    return os.environ.get("DRILLDOWN_BIN", str(ROOT / ".build" / "debug" / "drilldown"))


@pytest.fixture(scope="session")
def drilldown():
    """Runs the binary; returns CompletedProcess with text stdout/stderr."""
    binary = drilldown_bin()
    if not os.path.exists(binary):
        pytest.fail(f"{binary} is missing: build with `swift build --product drilldown`")

    def run(*args, check=None, timeout=60):
        proc = subprocess.run([binary, *map(str, args)], capture_output=True, text=True, timeout=timeout)
        if check is not None:
            assert proc.returncode == check, f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
        return proc

    return run
