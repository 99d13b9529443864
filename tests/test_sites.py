"""Links that name a site's pages, not files (issue 24's adoption trial):
Fumadocs' and Nuxt Content's ``content/`` folders, whose links name the
site's pages and its ``public/`` files, and GitHub's own pages."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from icm.model.sites import Sites, docusaurus_folders, folders_with_pages, route
from tests.conftest import commit

D1 = "2026-10-01T12:00:00+00:00"

PAGE = ("# Shapes\n\n[setup](/guide/setup) [logo](/logo.png) [line](line2#props)\n"
        "[gltf](../loaders/use-gltf.md) [gone](/guide/gone)\n"
        "[real](../../../../AGENTS.md) [html](/guide/setup.html)\n")
SITE = {
    "AGENTS.md": "# H\n\nSee [setup](/guide/setup).\n",
    "docs/content.config.ts": "export default {}\n",
    "docs/content/index.md": "# Home\n",
    "docs/content/1.guide/2.setup.md": "# Setup\n",
    "docs/content/2.api/5.shapes/curve.md": PAGE,
    "docs/content/2.api/5.shapes/line2.md": "# Line2\n",
    "docs/content/2.api/3.loaders/1.use-gltf.md": "# useGLTF\n",
    "docs/public/logo.png": "png\n",
}


def test_a_site_page_links_by_route(repo: Path, icm) -> None:
    """Without ``site_content`` every route is a missing file (bunli: 130 of
    152 findings); with it only the routes no page or public file answers,
    and a link outside the site's pages is judged as a file still."""
    commit(repo, SITE, D1)
    shape = "docs/content/2.api/5.shapes/curve.md"
    routes = [f"broken link: {shape} -> {h}" for h in (
        "/guide/setup", "/logo.png", "line2#props", "../loaders/use-gltf.md",
        "/guide/gone", "/guide/setup.html")]
    assert icm("check-links", "--root", str(repo)) == (1, "\n".join([
        "broken link: AGENTS.md -> /guide/setup", *routes,
        "links: 7 problems (missing file 7)"]) + "\n", "")
    (repo / "icm.toml").write_text('site_content = ["docs/content"]\n')
    assert icm("check-links", "--root", str(repo)) == (1, (
        "broken link: AGENTS.md -> /guide/setup\n"
        f"broken link: {shape} -> /guide/gone\n"
        f"broken link: {shape} -> /guide/setup.html\n"
        "links: 3 problems (missing file 3)\n"), "")



def test_sites_cost_no_pass_over_the_files_per_site() -> None:
    """A pull request's ``icm.toml`` may list any number of ``site_content``
    folders: each read every file of the tree (and each link's page asked
    every folder), so 2,000 folders on 20,000 files took 3.6 s and 100,000
    on a large tree hours. Twice the folders, files and links cost twice
    the work, not four times."""
    from tests.conftest import python_lines

    def work(n: int) -> int:
        files = frozenset(f"d{i}/p.md" for i in range(n)) | {"s0/a.md"}
        sites = Sites([f"s{i}" for i in range(n)], files)
        return python_lines(lambda: [sites.resolves(f"d{i}/p.md", "a") or
                                     sites.resolves("s0/a.md", "a")
                                     for i in range(n)]) + python_lines(
            lambda: Sites([f"s{i}" for i in range(n)], files))

    assert work(800) < 3 * work(400)
    assert Sites(["s0", "s0/x"], {"s0/a.md", "s0/x/b.md"}).resolves("s0/x/b.md", "/b")

def test_init_finds_a_docs_site(repo: Path, icm) -> None:
    commit(repo, SITE, D1)
    assert icm("init", "--root", str(repo))[1].splitlines()[1] == (
        'site_content = ["docs/content"]: 1 docs site found: links in their '
        "pages are the site's routes")
    assert icm("check-links", "--root", str(repo))[1].splitlines()[1:] == [
        "broken link: docs/content/2.api/5.shapes/curve.md -> /guide/gone",
        "broken link: docs/content/2.api/5.shapes/curve.md -> /guide/setup.html",
        "links: 3 problems (missing file 3)"]


def test_what_init_takes_for_a_site() -> None:
    assert folders_with_pages([
        "content.config.ts", "content/a.md",  # a site at the root
        "web/source.config.mts", "web/content/docs/a.mdx",  # Fumadocs
        "blog/content.config.ts", "blog/content/data.json",  # no pages
        "app/content/a.md",  # no content layer's config
        "app/content.config.ts.bak", "lib/source.config.py"]) == (
        "content", "web/content")



def test_init_finds_a_docusaurus_sites_docs(repo: Path, icm) -> None:
    """embedded-react-sdk (round 9's fresh trees): TypeDoc writes reference
    pages into `docs/` for the Docusaurus site in `docs-site/` (its docs
    plugin's `path: '../docs'`), linking pages by route
    (`company/onboarding/blocks#x`): 158 of 176 broken links. init takes
    the docs folder the config names as a site's pages."""
    commit(repo, {
        "AGENTS.md": "# H\n",
        "docs-site/docusaurus.config.ts": (
            "export default {\n  presets: [['classic', {\n    docs: {\n"
            "      path: '../docs',\n      sidebarPath: './sidebars.ts',\n"
            "    },\n  }]],\n}\n"),
        "docs/reference/blocks.md": "# Blocks\n\n[a](company/onboarding/blocks#a)"
                                    " [b](company/gone)\n",
        "docs/reference/company/onboarding/blocks.md": "# Onboarding\n"}, D1)
    assert icm("init", "--root", str(repo))[1].splitlines()[1] == (
        'site_content = ["docs"]: 1 docs site found: links in their pages are '
        "the site's routes")
    assert icm("check-links", "--root", str(repo))[1] == (
        "broken link: docs/reference/blocks.md -> company/gone\n"
        "links: 1 problem (missing file 1)\n")



def test_init_leaves_out_a_site_folder_no_config_can_name(repo: Path, icm) -> None:
    """A docs folder named with a backslash (a Docusaurus config's path) or
    a line break (a Nuxt site's) is a name the config refuses: init wrote
    it into `site_content`, refused its own `icm.toml` and stopped, exit 2,
    nothing set up. It sets up the rest."""
    commit(repo, {
        "AGENTS.md": "# H\n",
        "site/docusaurus.config.js": "module.exports = {docs: {path: '../x\\y'}}\n",
        "x\\y/a.md": "# A\n",
        "c\nd/content.config.ts": "export default {}\n", "c\nd/content/a.md": "# A\n",
        "docs/content.config.ts": "export default {}\n", "docs/content/a.md": "# A\n",
    }, D1)
    code, out, err = icm("init", "--root", str(repo))
    assert (code, err) == (0, "")
    assert 'site_content = ["docs/content"]: 1 docs site found: links in their ' \
        "pages are the site's routes" in out.splitlines()

def test_what_init_takes_for_a_docusaurus_site() -> None:
    configs = {
        "site/docusaurus.config.js": b"module.exports = {presets: [['classic', "
                                     b"{docs: {routeBasePath: '/', path: 'guides'}}]]}",
        "docusaurus.config.ts": b"export default {title: 'x'}",  # docs/ by default
        "far/docusaurus.config.mjs": b"docs: { path: '../../outside' }",
        "empty/docusaurus.config.js": b"docs: {path: 'nothing'}",
    }
    files = [*configs, "site/guides/a.md", "docs/intro.mdx", "outside/a.md",
             "empty/nothing/data.json", "web/docusaurus.config.py"]
    assert docusaurus_folders(files, configs.__getitem__) == ("docs", "site/guides")



def test_init_finds_docusaurus_sites_in_one_pass() -> None:
    """Each docs folder was matched against every folder holding a page:
    4,000 configs beside 4,000 pages took init 1.6 s, 40,000 minutes.
    Twice both cost twice the work."""
    from tests.conftest import python_lines

    def work(n: int) -> int:
        files = [f"s{i}/docusaurus.config.js" for i in range(n)] + [
            f"p{i}/a.md" for i in range(n)] + ["s0/docs/x/a.md"]
        return python_lines(lambda: docusaurus_folders(files, lambda _: b""))

    assert work(400) < 3 * work(200)

def test_a_docusaurus_page_is_served_without_its_number_prefix(repo: Path,
                                                              icm) -> None:
    """Docusaurus serves `docs/02-guide/01-setup.md` at `guide/setup` (its
    default number prefixes), a date's or version's lead kept; a link by
    route to the served name is no broken link."""
    commit(repo, {
        "AGENTS.md": "# H\n", "docusaurus.config.js": "module.exports = {}\n",
        "docs/01-intro.md": "# Intro\n\n[s](guide/setup) [n](/2021-01-31-notes)"
                            " [d](/notes) [g](guide/gone)\n",
        "docs/02-guide/01-setup.md": "# Setup\n\n[i](../intro#x) [r](run)\n",
        "docs/02-guide/2 - run.md": "# Run\n",
        "docs/2021-01-31-notes.md": "# Notes\n"}, D1)
    (repo / "icm.toml").write_text('site_content = ["docs"]\n')
    assert icm("check-links", "--root", str(repo)) == (1, (
        "broken link: docs/01-intro.md -> /notes\n"
        "broken link: docs/01-intro.md -> guide/gone\n"
        "links: 2 problems (missing file 2)\n"), "")


@pytest.mark.parametrize("config,base", [
    ("module.exports = {}\n", "/docs"),  # the docs plugin's default
    ("export default {presets: [['classic', {docs: {routeBasePath: 'guide'}}]]}\n",
     "/guide"),
    ("export default {presets: [['classic', {docs: {routeBasePath: '/'}}]]}\n", ""),
])
def test_a_docusaurus_site_links_under_its_route_base_to_heading_ids(
        repo: Path, icm, config: str, base: str) -> None:
    """EVVM-org/documentation-website (a new user's trial): its pages link
    `/docs/Contracts/.../Overview` (the docs plugin's `routeBasePath`) and
    `./05-Getters.md#getnonce` for `### getNonce {#getnonce}`; 26 of its
    36 findings were those. A heading's own id is an anchor only in a
    site's pages (GitHub shows the braces as text)."""
    commit(repo, {
        "AGENTS.md": "# H\n\n## Setup {#install}\n\n[x](#install)\n",
        "docusaurus.config.js": config,
        "docs/01-intro.md": f"# Intro\n\n[o]({base}/Contracts/Overview) "
                            f"[g](./02-Contracts/05-Getters.md#getnonce) "
                            f"[n]({base}/npm-libraries/js)\n",
        "docs/02-Contracts/01-Overview.md": "# Overview\n",
        "docs/02-Contracts/05-Getters.md": "# Getters\n\n### getNonce {#getnonce}\n"},
        D1)
    (repo / "icm.toml").write_text('site_content = ["docs"]\n')
    assert icm("check-links", "--root", str(repo)) == (1, (
        "broken link: AGENTS.md -> #install (no heading or anchor #install)\n"
        f"broken link: docs/01-intro.md -> {base}/npm-libraries/js\n"
        "links: 2 problems (missing file 1, missing anchor 1)\n"), "")


def test_a_site_config_out_of_the_root_is_never_read(repo: Path, icm,
                                                     tmp_path: Path) -> None:
    """The check reads a Docusaurus config through the root's confinement:
    one linked out of the root is not read (no site there: its base would
    have been `/elsewhere`), and a config that is a folder or not UTF-8
    is no crash."""
    outside = tmp_path / "evil.js"
    outside.write_text("docs: {routeBasePath: 'elsewhere'}\n")
    commit(repo, {"AGENTS.md": "# H\n",
                  "docs/a.md": "# A\n\n[b](/docs/b) [c](/elsewhere/b)\n",
                  "docs/b.md": "# B\n", "web/docusaurus.config.js/x": "x\n",
                  "api/docusaurus.config.ts": b"\xff\xfe docs: {\n"}, D1)
    (repo / "docusaurus.config.js").symlink_to(outside)
    (repo / "icm.toml").write_text('site_content = ["docs"]\n')
    assert icm("check-links", "--root", str(repo)) == (1, (
        "broken link: docs/a.md -> /docs/b\n"
        "broken link: docs/a.md -> /elsewhere/b\n"
        "links: 2 problems (missing file 2)\n"), "")


_SEGMENT = st.tuples(st.sampled_from(["", "1.", "20.", "01-", "3_", "2 - "]),
                     st.from_regex(r"[a-z][a-z0-9-]{0,6}", fullmatch=True))
_PAGE = st.lists(_SEGMENT, min_size=1, max_size=4).map(
    lambda parts: "/".join(p + name for p, name in parts) + ".md")


@given(st.lists(_PAGE, min_size=1, max_size=6), st.data())
def test_every_page_is_reached_by_its_route_from_every_page(pages, data) -> None:
    files = frozenset(f"site/content/{p}" for p in pages)
    sites = Sites(["site/content"], files)
    source = data.draw(st.sampled_from(sorted(files)))
    for page in pages:
        assert sites.resolves(source, "/" + route(page) + "#part")
        assert sites.resolves(source, "/" + route(page, numbered=True))
    assert not sites.resolves("site/other.md", "/" + route(pages[0]))


def test_a_link_to_githubs_own_page_is_no_finding(repo: Path, icm) -> None:
    """``../../security`` in a root SECURITY.md is the repository's Security
    tab on GitHub (Portarium's two outside-root findings); a link climbing
    further, or to no page of GitHub's, still leaves the root."""
    commit(repo, {"SECURITY.md": "[tab](../../security) [new](../../issues/new)\n"
                                 "[x](../../secret) [y](../../../security)\n",
                  "docs/a.md": "[discuss](../../../discussions)\n"}, D1)
    assert icm("check-links", "--root", str(repo)) == (1, (
        "broken link: SECURITY.md -> ../../secret (outside the repository root)\n"
        "broken link: SECURITY.md -> ../../../security (outside the repository "
        "root)\n"
        "links: 2 problems (outside the root 2)\n"), "")


def test_what_init_takes_for_mkdocs_and_zensical_sites() -> None:
    from icm.model.sites import mkdocs_folders

    configs = {
        "mkdocs.yml": b"site_name: x\ndocs_dir: 'site-src'  # pages\n",
        "py/mkdocs.yaml": b"site_name: y\n",  # docs/ by default
        "zensical.toml": b'[project]\nsite_name = "z"\ndocs_dir = "docs"\n',
        "far/mkdocs.yml": b"docs_dir: ../../outside\n",
        "empty/mkdocs.yml": b"docs_dir: nothing\n",
        "nested/mkdocs.yml": b"theme:\n  docs_dir: not-this\n",  # not top level
    }
    files = [*configs, "site-src/a.md", "py/docs/x/b.md", "docs/c.md",
             "outside/a.md", "empty/nothing/data.json", "nested/docs/d.md"]
    assert mkdocs_folders(files, configs.__getitem__) == (
        "docs", "nested/docs", "py/docs", "site-src")


def test_a_raw_image_written_for_an_mkdocs_pages_url(repo: Path, icm) -> None:
    """Round 13's burrito (a Zensical site): a raw ``<img>`` in
    ``docs/operator-manual/architecture.md`` is written for the built page,
    ``/operator-manual/architecture/``, so ``../../assets/x.png`` is the
    site's ``docs/assets/x.png``: 7 broken links, all noise. init takes the
    docs folder as a site's; a page's links then resolve from its directory
    URL too, and to the folder's own files; a target the site lacks stays
    broken."""
    commit(repo, {
        "AGENTS.md": "# H\n",
        "zensical.toml": '[project]\nsite_name = "B"\ndocs_dir = "docs"\n',
        "docs/index.md": "# Home\n",
        "docs/assets/design/arch.png": "png\n",
        "docs/operator-manual/architecture.md": (
            '# Arch\n\n<p><img src="../../assets/design/arch.png" /></p>\n'
            '<img src="../../assets/design/gone.png" />\n'
            "[md](../assets/design/arch.png)\n")}, D1)
    code, out, _ = icm("check-links", "--root", str(repo))
    assert code == 1 and out.count("broken link") == 2
    assert icm("init", "--root", str(repo))[1].splitlines()[1] == (
        'site_content = ["docs"]: 1 docs site found: links in their pages are '
        "the site's routes")
    assert icm("check-links", "--root", str(repo))[1] == (
        "broken link: docs/operator-manual/architecture.md -> "
        "../../assets/design/gone.png\n"
        "links: 1 problem (missing file 1)\n")
