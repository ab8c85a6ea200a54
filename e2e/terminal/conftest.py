"""Fixtures shared by the terminal UI's end-to-end tests."""
import os

import pytest

from tui_driver import Tmux, drilldown_bin


@pytest.fixture
def tmux_factory():
    """Starts a command in a private tmux server (`Tmux(command, width=, height=, env=)`, 100×30
    by default) and kills every one it started when the test ends."""
    sessions = []

    def start(command, **kwargs):
        if not os.path.exists(drilldown_bin()):
            pytest.fail(f"{drilldown_bin()} is missing: build with `swift build --product drilldown`")
        t = Tmux(command, **kwargs)
        sessions.append(t)
        return t

    yield start
    for t in sessions:
        t.kill()
