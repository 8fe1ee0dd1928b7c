"""Release tools built on the host, below reports/: the upgrade's two cells (`nox -s upgrade`), bisection over released
versions, the range checker, pins and the package index. The commands that judge with reports are above both, in
shardmatrix/."""
