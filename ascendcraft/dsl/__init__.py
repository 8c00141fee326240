"""The tile DSL front end: parse, print, check and interpret."""
from .checker import Binding, CheckedKernel, check
from .interpreter import interpret
from .parser import parse, parse_file
from .printer import print_kernel

__all__ = ["Binding", "CheckedKernel", "check", "interpret", "parse", "parse_file", "print_kernel"]
