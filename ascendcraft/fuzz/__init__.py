"""A differential fuzzer of the lowering (in the spirit of Csmith/YARPGen).

:mod:`ascendcraft.fuzz.kernels` holds hypothesis strategies that generate random, valid DSL
kernels over the forms the lowering accepts, each with its op description (input shapes,
dtypes and value ranges, output shapes); :mod:`ascendcraft.fuzz.differential` runs one of them
in the interpreter and, lowered through the real pass chain, on the simulator, and compares.
"""
from .differential import DiffResult, FuzzCase, OpDesc, TensorDesc, run_case

__all__ = ["DiffResult", "FuzzCase", "OpDesc", "TensorDesc", "run_case"]
