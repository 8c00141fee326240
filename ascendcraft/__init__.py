"""ascendcraft: PyTorch operators to verified AscendC kernels through a tile DSL."""
__version__ = "0.1.0"


def compile(kernel, op, **options):
    """Lower a tile-DSL kernel for an op to AscendC, build and verify it: see :func:`ascendcraft.api.compile`."""
    from .api import compile as _compile
    return _compile(kernel, op, **options)


def generate(op, **options):
    """Generate, verify and (by default) lower a kernel for an op with an LLM: see :func:`ascendcraft.api.generate`."""
    from .api import generate as _generate
    return _generate(op, **options)
