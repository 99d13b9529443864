"""A file whose relative links nearly all miss is one finding: a page saved
from a site, or a file moved away from what it links (issue 24's round 5:
25 broken-link lines from one saved page)."""

import json
from pathlib import Path

from tests.conftest import write

HB = "# Handbook\n"


def page(missing: int, present: int = 1) -> str:
    return ("# Router\n\n"
            + "".join(f"- [item {i}](struct.Item{i}.html)\n" for i in range(missing))
            + "".join("[home](../../AGENTS.md)\n" for _ in range(present))
            + "[top](#router) and [site](https://example.com/x)\n")


def run(icm, repo: Path, *extra: str):
    return icm("check-links", "--root", str(repo), *extra)


def test_a_file_of_broken_links_is_one_finding(repo: Path, icm) -> None:
    write(repo, {"AGENTS.md": HB, "docs/saved/ROUTER.md": page(12)})
    assert run(icm, repo) == (1, (
        "broken links: docs/saved/ROUTER.md -> 12 of its 13 relative links "
        "name no file (no file in the tree has their names: written for "
        "another place? first: struct.Item0.html)\n"
        "links: 1 problem (file of broken links 1)\n"), "")
    code, out, _ = run(icm, repo, "--format", "json")
    [f] = json.loads(out)["checks"][0]["findings"]
    assert (f["code"], f["severity"], f["line"]) == ("misplaced-file", "error", 3)
    assert f["links"][:2] == [{"line": 3, "target": "struct.Item0.html"},
                              {"line": 4, "target": "struct.Item1.html"}]
    assert len(f["links"]) == 12


def test_a_few_broken_links_are_each_their_own_line(repo: Path, icm) -> None:
    """Under eight broken, or under four in five of the file's relative
    links: each link is the seed's line, as before."""
    write(repo, {"AGENTS.md": HB, "docs/a.md": page(7, 0), "docs/b/c.md": page(8, 3)})
    code, out, _ = run(icm, repo)
    assert code == 1
    assert out.count("broken link: docs/a.md -> struct.Item") == 7
    assert out.count("broken link: docs/b/c.md -> struct.Item") == 8
    assert out.endswith("links: 15 problems (missing file 15)\n")
    write(repo, {"docs/b/c.md": page(8, 2)})  # 8 of 10: one finding
    assert "broken links: docs/b/c.md -> 8 of its 10 relative" in run(icm, repo)[1]


def test_renamed_targets_are_named_where_they_are_now(repo: Path, icm) -> None:
    """A migration renamed the targets (``docs/NODE_SPEC.md`` is
    ``docs/spec/node-spec.md``): the hint names where one is now, not a
    guess that the file moved (round 6's cogni ROADMAP.md)."""
    old = [f"docs/SPEC_{i}.md" for i in range(9)]
    write(repo, {"AGENTS.md": HB,
                 "ROADMAP.md": "# Map\n\n" + "".join(f"- [s]({t})\n" for t in old),
                 **{f"docs/spec/spec-{i}.md": "# S\n" for i in range(3)}})
    assert run(icm, repo) == (1, (
        "broken links: ROADMAP.md -> 9 of its 9 relative links name no file "
        "(3 name a file found elsewhere, e.g. docs/spec/spec-0.md: this file "
        "or its targets moved or renamed? first: docs/SPEC_0.md)\n"
        "links: 1 problem (file of broken links 1)\n"), "")


def test_a_landing_page_of_the_same_name_tells_nothing(repo: Path, icm) -> None:
    """A saved docs.rs page links each module's ``index.html``; the tree's
    own ``index.html`` is no sign the targets moved (round 5's calendsync)."""
    write(repo, {"AGENTS.md": HB, "web/index.html": "<p>app</p>\n",
                 "docs/AXUM.md": "# Axum\n\n" + "".join(
                     f"- [m](mod{i}/index.html)\n" for i in range(8))})
    assert run(icm, repo)[1].startswith(
        "broken links: docs/AXUM.md -> 8 of its 8 relative links name no file "
        "(no file in the tree has their names: written for another place? "
        "first: mod0/index.html)\n")
