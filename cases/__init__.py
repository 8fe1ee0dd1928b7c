"""The shardmatrix case corpus: one module per family. A package so its modules can share cases._support."""
