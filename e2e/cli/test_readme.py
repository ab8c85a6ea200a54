"""The README is a front door, not the manual: at most 250 lines, and every relative link and image in
it, in the DocC articles (Sources/DrillDown/Documentation.docc) and in Docs/*.md resolves to a file of
the repository, so the links work when the files are read on a forge or in a checkout."""
import re
import urllib.parse

import pytest

from conftest import ROOT

README = ROOT / "README.md"
CATALOGUE = ROOT / "Sources" / "DrillDown" / "Documentation.docc"
MAX_README_LINES = 250

# [text](target) and ![alt](target), <img src="target">, <a href="target">; a target may carry a title.
MARKDOWN_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HTML_LINK = re.compile(r"<(?:img|a)\b[^>]*?\b(?:src|href)\s*=\s*\"([^\"]+)\"", re.IGNORECASE)
FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)


def documents():
    return [README, *sorted(CATALOGUE.glob("*.md")), *sorted((ROOT / "Docs").glob("*.md"))]


def relative_links(markdown: str):
    """The link and image targets outside code, without those that leave the repository
    (a scheme such as https: or mailto:, DocC's doc: links) or stay on the page (#anchor)."""
    text = INLINE_CODE.sub("", FENCE.sub("", markdown))
    targets = MARKDOWN_LINK.findall(text) + HTML_LINK.findall(text)
    for target in targets:
        if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith("#"):
            continue
        yield target


def test_relative_links_finds_links_and_images_outside_code():
    sample = """[a](Docs/a.md) ![b](img/b.png "title") <img src="c.png" height="3"> [web](https://x.org)
<doc:GettingStarted> [here](#top) `[not](code.md)`
```
[neither](fenced.md)
```
"""
    assert list(relative_links(sample)) == ["Docs/a.md", "img/b.png", "c.png"]


def test_readme_is_a_front_door():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_README_LINES, f"README.md has {len(lines)} lines; the manual belongs in {CATALOGUE.relative_to(ROOT)}"
    # The two commands come first.
    opening = "\n".join(lines[:20])
    assert "swift run drilldown serve" in opening and "Scripts/test.sh" in opening


def test_readme_links_every_article_of_the_catalogue():
    linked = {urllib.parse.unquote(t).split("#")[0] for t in relative_links(README.read_text(encoding="utf-8"))}
    articles = {f"{CATALOGUE.relative_to(ROOT)}/{p.name}" for p in CATALOGUE.glob("*.md")}
    assert "Docs/benchmarks.md" in linked
    core = {f"{CATALOGUE.relative_to(ROOT)}/{name}.md" for name in
            ["DrillDown", "GettingStarted", "DataSources", "Schema", "Editing", "WebApp", "TerminalUI", "PostgreSQL", "Security", "Performance"]}
    assert core <= articles, f"missing articles: {sorted(core - articles)}"
    assert core <= linked, f"articles the README does not link: {sorted(core - linked)}"


@pytest.mark.parametrize("document", documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(document):
    broken = []
    for target in relative_links(document.read_text(encoding="utf-8")):
        path = urllib.parse.unquote(target.split("#", 1)[0].split("?", 1)[0])
        if not path:
            continue
        resolved = (ROOT / path.lstrip("/")) if path.startswith("/") else (document.parent / path)
        if not resolved.exists():
            broken.append(target)
    assert not broken, f"{document.relative_to(ROOT)}: links to missing files: {broken}"
