"""ascendcraft: PyTorch operators to verified AscendC kernels through a tile DSL.

``ascendcraft.compile`` and ``ascendcraft.generate`` are :func:`ascendcraft.api.compile` and
:func:`ascendcraft.api.generate` themselves (same signature and docstring in ``help()``),
imported on first use so that ``import ascendcraft`` stays light.

Stage messages of a call made without a ``progress=`` callback go to the ``ascendcraft`` logger
at INFO; like any library's, it prints nothing until the caller configures logging.
"""
import logging

__version__ = "0.1.0"

logging.getLogger(__name__).addHandler(logging.NullHandler())

_API = ("compile", "generate")


def __getattr__(name):
    if name in _API:
        from . import api
        value = getattr(api, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), *_API})
