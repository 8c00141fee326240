"""LLM generation of tile-DSL kernels (issue 5)."""
