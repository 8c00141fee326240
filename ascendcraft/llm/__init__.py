"""LLM generation of tile-DSL kernels (issue 5): ``ascendcraft gen`` and :func:`generate`.

Modules, one job each: ``config`` (which model), ``client`` (litellm, retries, usage; the only
importer of litellm), ``cache`` (JSON response cache), ``prompt`` (+ ``templates/``),
``extract`` (the kernel in a reply), ``stages`` (extract -> parse -> check -> verify -> lower),
``sample`` (one repair loop), ``generate`` (k samples), ``report`` (files written), ``command``
(the CLI). Importing this package imports neither litellm nor torch.
"""


def __getattr__(name):
    # lazy: `ascendcraft.cli` imports this package for the gen subcommand's parser only
    if name == "generate":
        from .generate import generate
        return generate
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
