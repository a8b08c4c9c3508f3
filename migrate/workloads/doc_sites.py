"""A repository that is a documentation site: the configuration of a static site generator at the top of the scanned
tree (scan/discover.py's `doc_site` kind: docusaurus.config.js, hugo.toml, book.toml, antora-playbook.yml). The
generator builds web pages from the tree; what the pages show (a tutorial's pod manifest requesting nvidia.com/gpu, a
lab's cudaMalloc quota test, their translations under i18n/) is material a reader copies, not code the project runs or
builds, so every finding is an optional part of its own (the session-31 labelling convention: NVIDIA text only in
documentation leaves the class to the other parts; Project-HAMi/website 0d64adad: a Docusaurus site whose
tutorials/labs hold a memory-limit.cu and nvidia.com/gpu manifests). A generator configuration deeper in the tree
(website/, docs/) is a site beside the project's code: the folder rule (rules/workloads/optional.yaml `folders`)
already treats docs/ so, and the code at the top stays required."""
from __future__ import annotations

from collections.abc import Mapping

KIND = "doc_site"
WHAT = "documentation site material"


def documentation_site(kinds: Mapping[str, str]) -> str:
    """The evidence that the scanned tree is a documentation site, or "" where it is not."""
    configs = sorted(path for path, kind in kinds.items() if kind == KIND and "/" not in path)
    if not configs:
        return ""
    return (f"{configs[0]}: the repository is a documentation site (its generator's configuration at the top); its "
            "pages, tutorials and their example files are material the site shows, not code the project runs")
