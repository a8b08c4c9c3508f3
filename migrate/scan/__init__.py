"""The scan path, in the order data flows: discover (targets -> files), readfile (a file read once,
safely), statcache and cache (what an unchanged file or tree already gave), analyse (extract + match
per file in workers), match and crossref (facts x rules -> findings; the cross-file join), layout
(the project's own per-back-end files, another model's sources), project (one project's stages),
portfolio (several merged), pipeline (the entry: one or the other, then the plan), reportcache (a
rescan of an unchanged tree).

Deliberately empty of imports: lower stages (extract, lint) import `scan.readfile` and `scan.cache`
alone, and lint's start-up must not pay for the rest."""
