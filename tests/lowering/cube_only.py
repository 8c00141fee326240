"""The cube tests' one step: a kernel's text through the cube pass alone, at an example op's shapes."""
from pathlib import Path

from ascendcraft.chips import load_chip
from ascendcraft.dsl.parser import parse
from ascendcraft.lowering_passes.cube import Cube
from ascendcraft.passes import run_passes
from ascendcraft.task import load_task


def run_cube(text: str, example: Path):
    task = load_task(example / "op.py")
    return run_passes(parse(text, "k.dsl"), [Cube()], task=task, shapes=task.shapes(), chip=load_chip("910B2"),
                      trials=1)
