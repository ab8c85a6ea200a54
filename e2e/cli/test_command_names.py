"""Every `drilldown` command names itself (`CommandConfiguration(commandName: …)`).

ArgumentParser derives a missing name from the type with `String(describing:)`, which makes the
Swift runtime scan this large binary's protocol conformances at every start: with five `user` and
`token` subcommands unnamed, `drilldown ls` of a ten-row file ran 54.4M instructions instead of
42.0M (callgrind). A source check, since the cost shows in no output."""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]


def call_arguments(text, start):
    """The text between the parenthesis at `start` and its match, string literals skipped."""
    depth, i = 0, start
    while i < len(text):
        if text.startswith('"""', i):
            i = text.index('"""', i + 3) + 3
            continue
        c = text[i]
        if c == '"':
            i += 1
            while text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return text[start + 1:i]
        i += 1
    raise AssertionError("unbalanced parentheses")


def test_every_command_configuration_names_its_command():
    files = sorted((ROOT / "Sources/drilldown").rglob("*.swift"))
    seen = 0
    for path in files:
        text = path.read_text()
        for match in re.finditer(r"CommandConfiguration\(", text):
            seen += 1
            arguments = call_arguments(text, match.end() - 1)
            line = text.count("\n", 0, match.start()) + 1
            assert "commandName:" in arguments, f"{path.relative_to(ROOT)}:{line}: a command without commandName:"
    assert seen >= 20, f"only {seen} command configurations found"
