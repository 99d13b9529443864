"""Docs sites: pages whose links are the site's routes, not files; and
GitHub's own pages, which a link may climb to from the repository.

A folder listed in ``site_content`` holds the Markdown pages of a docs site
(Nuxt Content's or Fumadocs' ``content/``, a Docusaurus site's docs). The
site serves each page at its route: the path below the folder with the
extension, ordering prefixes (Nuxt's ``N.``, Docusaurus's ``01-``) and a
last ``index`` dropped (``content/1.guide/2.setup.md`` is
``/guide/setup``), and the files of the ``public/`` folder beside it at the
site's root. A link in such a page names a route: ``/guide/setup`` from the
root, or relative to the page's own URL, as a browser reads it. The link
check asks ``Sites.resolves`` only for a link that names no file, so a link
to a real file is judged as everywhere else.
"""

from __future__ import annotations

import posixpath
import re
from bisect import bisect_left
from typing import (
    AbstractSet,
    Callable,
    Dict,
    FrozenSet,
    Iterable,
    Optional,
    Sequence,
    Tuple,
)
from urllib.parse import unquote

from icm.context import MARKDOWN_SUFFIXES, Context, Unreadable

_ORDER = re.compile(r"[0-9]+\.")  # Nuxt Content's ordering prefix
# Docusaurus's default number prefix (``01-intro`` and ``2 - setup`` are
# served as ``intro`` and ``setup``), never a date's or a version's lead
# (``2021-01-31-notes``, ``8.0-notes``), as its docs plugin reads a name.
_NUMBER_PREFIX = re.compile(r"[0-9]+\s*[-_.]+\s*")
_DATE_OR_VERSION = re.compile(r"(?:[0-9]{2}|[0-9]{4})[-_.][0-9]{2}|[0-9]+[-_.][0-9]+")


def _unnumbered(part: str) -> str:
    m = None if _DATE_OR_VERSION.match(part) else _NUMBER_PREFIX.match(part)
    return part[m.end():] if m and m.end() < len(part) else part


def route(page: str, numbered: bool = False) -> str:
    """The route of ``page``, a path below a content folder, without the
    leading slash ("" for the site's root page); ``numbered``: with
    Docusaurus's number prefixes dropped too."""
    stem = page
    if stem.lower().endswith(MARKDOWN_SUFFIXES):
        stem = stem.rsplit(".", 1)[0]
    parts = [_unnumbered(part) if numbered else
             _ORDER.sub("", part, count=1) if _ORDER.match(part) else part
             for part in stem.strip("/").split("/") if part]
    if parts and parts[-1] == "index":
        parts.pop()
    return "/".join(parts)


def routes(page: str) -> FrozenSet[str]:
    """Where a site may serve ``page``: a folder in ``site_content`` says
    no generator, so a page is found by Nuxt's reading and Docusaurus's."""
    return frozenset((route(page), route(page, numbered=True)))


class Sites:
    """The routes of every configured site, computed once per run."""

    def __init__(self, folders: Iterable[str], files: AbstractSet[str],
                 bases: Optional[Dict[str, str]] = None) -> None:
        self.files = files
        self.bases = bases or {}  # a folder's route base (Docusaurus's /docs)
        self.pages: Dict[str, FrozenSet[str]] = {}
        # one sorted pass: a folder's pages are a slice (a pass over the
        # files per folder, and per link, let a config of 100,000 folders
        # hang a run)
        pages = sorted(f for f in files if f.lower().endswith(MARKDOWN_SUFFIXES))
        for folder in sorted({f.strip("/") for f in folders}):
            prefix = folder + "/"  # every path below it sorts before folder + "0"
            start = bisect_left(pages, prefix)
            self.pages[folder] = frozenset().union(*(
                routes(f[len(prefix):]) for f in
                pages[start:bisect_left(pages, folder + "0", start)]))

    def site_of(self, source: str) -> Optional[str]:
        """The innermost site holding ``source``: its folders, deepest first."""
        folder = posixpath.dirname(source)
        while folder:
            if folder in self.pages:
                return folder
            folder = posixpath.dirname(folder)
        return None

    def resolves(self, source: str, href: str) -> bool:
        """Whether ``href``, written in ``source``, is a page or a public
        file of the site ``source`` belongs to (False outside every site)."""
        folder = self.site_of(source)
        if folder is None:
            return False
        path = unquote(href.partition("#")[0].split("?", 1)[0])
        if not path:
            return False
        if path.startswith("/"):
            urls = {posixpath.normpath(path).lstrip("/")}
            base = self.bases.get(folder)
            if base:  # under the route base the site serves its pages at
                urls = {u[len(base) + 1:] for u in urls if u.startswith(base + "/")} \
                    | {"" for u in urls if u == base} | urls
        else:  # from the page's URL, as a browser does, with the trailing
            # slash of a directory URL (MkDocs' ``/a/b/``) or without
            urls = {posixpath.normpath(posixpath.join(
                posixpath.dirname("/" + here) if slash == "" else "/" + here,
                path)).lstrip("/")
                for here in routes(source[len(folder) + 1:]) for slash in ("", "/")}
        pages = self.pages[folder]
        for url in urls:
            if url.startswith(".."):
                continue
            public = posixpath.join(posixpath.dirname(folder), "public", url)
            # a file of the folder itself, served at its path (MkDocs')
            if route(url) in pages or public in self.files or \
                    posixpath.join(folder, url) in self.files:
                return True
        return False


# GitHub serves a file at /OWNER/REPO/blob/BRANCH/PATH, so a link climbing
# two folders past the root lands on the repository's own pages:
# "../../issues" in a root SECURITY.md is its Issues tab, a common idiom.
GITHUB_PAGES = frozenset((
    "actions", "blob", "branches", "commits", "compare", "discussions",
    "graphs", "issues", "labels", "milestones", "network", "projects",
    "pull", "pulls", "releases", "security", "tags", "tree", "wiki"))


def github_page(path: str) -> bool:
    """Whether ``path`` (normalised from the root, leaving it) climbs exactly
    to GitHub's ``/OWNER/REPO/`` and names one of its pages, as the
    repository's web view reads the link."""
    parts = path.split("/")
    return len(parts) >= 3 and parts[:2] == ["..", ".."] \
        and parts[2] in GITHUB_PAGES


# Docusaurus's config, and the folder its docs plugin reads pages from
# (``docs: { path: '../docs' }``; ``docs/`` beside the config by default).
# The config is read as text, never run: a path written any other way
# (a variable, a call) leaves the default.
_DOCUSAURUS = re.compile(r"docusaurus\.config\.(?:js|ts|mjs|cjs|mts|cts)")
_DOCS_PATH = re.compile(
    r"""\bdocs\s*:\s*\{[^{}]*?\bpath\s*:\s*(['"])([^'"\n]{1,200})\1""")
CONFIG_BYTES = 1 << 18  # of a site's config read


# The URL the docs plugin serves its pages under (``routeBasePath``,
# ``/docs`` by default): an absolute link names ``/docs/intro``.
_ROUTE_BASE = re.compile(
    r"""\bdocs\s*:\s*\{[^{}]*?\brouteBasePath\s*:\s*(['"])([^'"\n]{0,200})\1""")


def config_reader(ctx: Context) -> Callable[[str], bytes]:
    """A site config's first ``CONFIG_BYTES`` through ``ctx`` (confined,
    touched: an input of the asker's memo); OSError where it cannot."""
    def read(rel: str) -> bytes:
        try:
            return ctx.read_bytes(rel, CONFIG_BYTES)
        except Unreadable as exc:
            raise OSError(exc.reason) from None
    return read


def docusaurus_sites(files: Iterable[str], read: Callable[[str], bytes]
                     ) -> Dict[str, str]:
    """Each Docusaurus site's docs folder and the route base it serves it
    under: the ``path`` its config gives the docs plugin (from the config's
    folder), else ``docs`` beside it (one that leaves the root is none),
    and its ``routeBasePath`` without slashes, else ``docs``."""
    found: Dict[str, str] = {}
    for config in files:
        folder, _, name = config.rpartition("/")
        if not (name.startswith("docusaurus.config.") and _DOCUSAURUS.fullmatch(name)):
            continue
        try:
            text = read(config).decode("utf-8", "replace")
        except OSError:
            continue
        m = _DOCS_PATH.search(text)
        docs = posixpath.normpath(posixpath.join(folder, m.group(2) if m else "docs"))
        if docs not in (".", "") and not docs.startswith(("..", "/")):
            base = _ROUTE_BASE.search(text)
            found[docs] = (base.group(2) if base else "docs").strip("/")
    return found


def docusaurus_folders(files: Iterable[str], read: Callable[[str], bytes]
                       ) -> Tuple[str, ...]:
    """The docs folders of Docusaurus sites (``docusaurus_sites``) that hold
    Markdown pages. Docusaurus serves a page at its path without the
    extension and its number prefixes, and drops a last ``index``, as
    ``routes`` reads it (a page-relative link is a route)."""
    files = list(files)
    return _holding_pages(files, docusaurus_sites(files, read))


def _holding_pages(files: Sequence[str], found: Iterable[str]) -> Tuple[str, ...]:
    """Those of ``found`` that hold a Markdown page at any depth, sorted: the
    folders holding one made in one pass (each docs folder against every
    page's folder was 1.6 s for 4,000 of each)."""
    held = set()
    for f in files:
        if f.lower().endswith(MARKDOWN_SUFFIXES):
            folder = f.rpartition("/")[0]
            while folder and folder not in held:
                held.add(folder)
                folder = folder.rpartition("/")[0]
    return tuple(sorted(d for d in found if d in held))


# MkDocs' and Zensical's configs, and the folder they build pages from
# (``docs_dir``, ``docs`` beside the config by default), read as text: a
# top-level ``docs_dir: x`` line in YAML, a ``docs_dir = "x"`` line in TOML.
_MKDOCS = frozenset(("mkdocs.yml", "mkdocs.yaml", "zensical.toml"))
_DOCS_DIR_YAML = re.compile(
    r"""(?m)^docs_dir[ \t]*:[ \t]*(['"]?)([^'"\n#]{1,200}?)\1[ \t]*(?:#.*)?$""")
_DOCS_DIR_TOML = re.compile(
    r"""(?m)^[ \t]*docs_dir[ \t]*=[ \t]*(['"])([^'"\n]{1,200})\1""")


def mkdocs_folders(files: Iterable[str], read: Callable[[str], bytes]
                   ) -> Tuple[str, ...]:
    """The docs folders of MkDocs and Zensical sites that hold Markdown
    pages. They serve a page at its path without the extension, each under
    its own folder (``use_directory_urls``: ``a/b.md`` at ``/a/b/``), and
    the folder's other files at their paths: a raw ``<img>`` written for
    the built page (round 13's burrito: ``../../assets/x.png`` from
    ``docs/a/b.md``) is the site's ``docs/assets/x.png``."""
    files = list(files)
    found = set()
    for config in files:
        folder, _, name = config.rpartition("/")
        if name not in _MKDOCS:
            continue
        try:
            text = read(config).decode("utf-8", "replace")
        except OSError:
            continue
        m = (_DOCS_DIR_TOML if name.endswith(".toml") else _DOCS_DIR_YAML).search(text)
        docs = posixpath.normpath(posixpath.join(folder, m.group(2).strip()
                                                 if m else "docs"))
        if docs not in (".", "") and not docs.startswith(("..", "/")):
            found.add(docs)
    return _holding_pages(files, found)


def folders_with_pages(files: Iterable[str]) -> Tuple[str, ...]:
    """``content/`` folders beside a content layer's config file (Nuxt
    Content's ``content.config.*``, Fumadocs' ``source.config.*``) that hold
    Markdown pages: what ``icm init`` proposes as ``site_content``."""
    configs, pages = set(), set()
    for f in files:
        folder, _, name = f.rpartition("/")
        if name.split(".", 1)[0] in ("content", "source") and name.count(".") == 2 \
                and name.rsplit(".", 1)[1] in ("ts", "js", "mjs", "mts"):
            configs.add(folder)
        head, sep, _rest = ("/" + f).partition("/content/")
        if sep and f.lower().endswith(MARKDOWN_SUFFIXES):
            pages.add(head[1:])
    return tuple(sorted(posixpath.join(site, "content") if site else "content"
                        for site in configs & pages))
