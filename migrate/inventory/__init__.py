"""An organisation's inventory: per-repository scan reports merged into one (merge, record, render,
html), and `inventory --scan`, which produces them on Dask (repolist, worker, cluster, fanout)."""
