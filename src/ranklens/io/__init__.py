"""Readers and writers.  Only the TREC text formats exist so far."""

from ranklens.io.trec import read_trec_qrels, read_trec_run

__all__ = ["read_trec_qrels", "read_trec_run"]
