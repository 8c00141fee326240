"""ascendcraft: PyTorch operators to verified AscendC kernels through a tile DSL."""
__version__ = "0.1.0"
