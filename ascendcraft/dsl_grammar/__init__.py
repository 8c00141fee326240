"""The lark grammar of the ascendcraft tile DSL, shipped as package data."""
from importlib import resources


def grammar_text(name: str = "tile.lark") -> str:
    return (resources.files(__name__) / name).read_text()
