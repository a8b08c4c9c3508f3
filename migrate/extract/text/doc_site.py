"""extract, a documentation site generator's configuration (docusaurus.config.js, hugo.toml, book.toml,
antora-playbook.yml: scan/discover.py's `doc_site` kind): no facts. The file is read for where it is, not for what it
says: the folder holding it is a documentation site (workloads/doc_sites.py)."""
from __future__ import annotations

from migrate.extract.text.lines import finish
from migrate.model import Extraction


def extract(source: bytes) -> Extraction:
    return finish(source.decode("utf-8", errors="replace"), [])
