"""The ``ascendcraft gen`` subcommand (placeholder until the generation loop lands)."""
from __future__ import annotations


def add_parser(sub) -> None:
    sub.add_parser("gen", help="generate a kernel for an op with an LLM (not available yet)")


def run(args) -> int:
    from ..errors import UserError
    raise UserError("`ascendcraft gen` is not implemented yet", hint="write the kernel by hand and use "
                    "`ascendcraft check`")
