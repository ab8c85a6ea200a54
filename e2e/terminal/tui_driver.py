"""Drives a program in a detached tmux session of fixed size on a private socket (see TESTING.md)."""
import itertools
import os
import pathlib
import subprocess
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
EXAMPLES = ROOT / "Examples"
_counter = itertools.count()


def drilldown_bin() -> str:
    return os.environ.get("DRILLDOWN_BIN", str(ROOT / ".build" / "debug" / "drilldown"))


def clean_env(extra=None):
    """The environment without LINES/COLUMNS/TMUX, so tmux and the program see the window's real size."""
    env = {k: v for k, v in os.environ.items() if k not in ("LINES", "COLUMNS", "TMUX")}
    env.setdefault("TERM", "xterm-256color")
    env.update(extra or {})
    return env


class Tmux:
    """One tmux server with one session, `app`, running `command` in a `width`×`height` window."""

    def __init__(self, command, width=100, height=30, env=None, cwd=ROOT):
        self.socket = f"ddtui-{os.getpid()}-{next(_counter)}"
        self.env = clean_env(env)
        self.cwd = cwd
        self.tmux("new-session", "-d", "-s", "app", "-x", str(width), "-y", str(height), command)
        # Keep the pane after the program exits, so the final screen can still be read.
        self.tmux("set-option", "-t", "app", "remain-on-exit", "on")

    def tmux(self, *args, check=True):
        proc = subprocess.run(["tmux", "-L", self.socket, *args], env=self.env, cwd=self.cwd,
                              capture_output=True, text=True, timeout=20)
        if check and proc.returncode != 0:
            raise RuntimeError(f"tmux {' '.join(args)}: {proc.stderr}")
        return proc.stdout

    def send(self, *keys):
        """Sends tmux key names (Enter, BSpace, Up, End, ...) one by one, in order."""
        for key in keys:
            self.tmux("send-keys", "-t", "app", key)

    def type(self, text):
        self.tmux("send-keys", "-t", "app", "-l", text)

    def screen(self, escapes=False):
        args = ["capture-pane", "-p", "-t", "app"] + (["-e"] if escapes else [])
        return self.tmux(*args)

    def lines(self):
        return self.screen().split("\n")

    def wait_for(self, predicate, timeout=10.0, what=""):
        """Polls the screen until `predicate(screen)` (or `text in screen` for a string) holds; returns the screen."""
        check = (lambda s: predicate in s) if isinstance(predicate, str) else predicate
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if check(screen):
                return screen
            time.sleep(0.03)
        raise AssertionError(f"timed out waiting for {what or predicate!r}; screen was:\n{screen}")

    def pane_pid(self):
        return int(self.tmux("display-message", "-p", "-t", "app", "#{pane_pid}").strip())

    def pane_dead(self):
        return self.tmux("display-message", "-p", "-t", "app", "#{pane_dead}").strip() == "1"

    def resize(self, width, height):
        self.tmux("resize-window", "-t", "app", "-x", str(width), "-y", str(height))

    def kill(self):
        self.tmux("kill-server", check=False)


def settles(read, expected, timeout=5.0):
    """Whether `read()` comes to equal `expected` (else its last value): the browser's edits are
    written in the background."""
    deadline = time.monotonic() + timeout
    while True:
        value = read()
        if value == expected or time.monotonic() > deadline:
            return value == expected or value
        time.sleep(0.05)
