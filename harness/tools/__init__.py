"""Release tools built on the host: upgrade checks (`nox -s upgrade`) and bisection over released versions."""
