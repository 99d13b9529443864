"""Placeholders and templates are no broken links (issue 24, rounds 5 and
6): a destination that is itself a placeholder, or a missing target of a
template, is one info line; a real broken link beside them stays an error,
and so does a link of a template written for the root (one of its links
resolves from there) that the root lacks too."""

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from icm.model.links import PLACEHOLDER_WORDS, is_template, placeholder
from tests.conftest import write

HB = "# Handbook\n"


def run(icm, repo: Path, *extra: str):
    return icm("check-links", "--root", str(repo), *extra)


def test_placeholders_and_templates_are_information(repo: Path, icm) -> None:
    write(repo, {
        "AGENTS.md": HB,
        ".spec-workflow/templates/product-template.md":
            "# Product\n\n- [Metric 1]: [Target]\n- [Metric 2]: [Target]\n",
        "docs/_templates/guide.md": "# Guide\n\n## Related\n\n"
                                    "- [Related Spec](../spec/related.md)\n",
        "docs/templates/agents_root_template.md":
            "# Root\n\n- [Spec](docs/templates/feature_spec_template.md)\n"
            "- [Arch](docs/ARCHITECTURE.md)\n",
        "docs/templates/feature_spec_template.md": "# Spec\n",
        "docs/format-guide.md": "# Links\n\n- Official: [Description](URL), "
                                "[page](<path>), [n](docs/{name}.md)\n"
                                "- [gone](gone.md)\n"})
    assert run(icm, repo) == (1, (
        "placeholder link: .spec-workflow/templates/product-template.md -> "
        "[Target] (a placeholder destination)\n"
        "placeholder link: .spec-workflow/templates/product-template.md -> "
        "[Target] (a placeholder destination)\n"
        "placeholder link: docs/_templates/guide.md -> ../spec/related.md "
        "(in a template, written for its copy)\n"
        "placeholder link: docs/format-guide.md -> URL (a placeholder "
        "destination)\n"
        "placeholder link: docs/format-guide.md -> path (a placeholder "
        "destination)\n"
        "placeholder link: docs/format-guide.md -> docs/{name}.md (a "
        "placeholder destination)\n"
        "broken link: docs/format-guide.md -> gone.md\n"
        "placeholder link: docs/templates/agents_root_template.md -> "
        "docs/templates/feature_spec_template.md (in a template, resolves "
        "from the root)\n"
        "broken link: docs/templates/agents_root_template.md -> "
        "docs/ARCHITECTURE.md (a template for the root: no such file there "
        "either)\n"
        "links: 2 problems (missing file 2)\n"), "")
    code, out, _ = run(icm, repo, "--format", "json")
    found = json.loads(out)["checks"][0]["findings"]
    assert [(f["code"], f["severity"]) for f in found].count(
        ("placeholder-link", "info")) == 7


def test_a_template_alone_passes(repo: Path, icm) -> None:
    write(repo, {"AGENTS.md": HB, "templates/README.md": "[l](LICENSE)\n"})
    assert run(icm, repo) == (0, (
        "placeholder link: templates/README.md -> LICENSE (in a template, "
        "written for its copy)\nlinks ok\n"), "")


def test_what_is_a_placeholder_or_a_template() -> None:
    for raw in ("URL", "url", "TODO", "<id>", "[Target]", "%5BTarget%5D",
                "docs/{name}.md", "...", "path/"):
        assert placeholder(raw), raw
    for raw in ("LICENSE", "docs/a.md", "a(b).md", "urls.md", ""):
        assert not placeholder(raw), raw
    assert is_template("docs/_templates/guide.md")
    assert is_template("x/product-template.md")
    assert not is_template("docs/templating/guide.md")


@given(st.text(alphabet=st.characters(blacklist_characters="[]{}<>%"),
               max_size=40))
def test_a_bracketed_token_is_a_placeholder_and_a_word_only_if_listed(
        raw: str) -> None:
    assert placeholder(f"[{raw}]") and placeholder(f"a/{{{raw}}}.md")
    assert placeholder(raw) == (raw.strip().casefold().rstrip("/")
                                in PLACEHOLDER_WORDS)
