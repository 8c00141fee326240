"""Lowering passes from the tile DSL down to AscendC-level programs (one module per pass)."""
