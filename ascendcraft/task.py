"""The op loader: MultiKernelBench / KernelBench task files.

A task file defines ``class Model(nn.Module)`` (``__init__(*init_inputs)``,
``forward(*inputs)``), ``get_inputs()``, ``get_init_inputs()`` and usually module-level
shape constants (``batch_size = 4096``). :func:`load_task` imports it and works out
its shapes without allocating anything (``get_inputs()`` and the forward pass run on
torch's ``meta`` device). :meth:`Task.shapes` gives the real shapes when they fit a
byte budget, and otherwise *reduced* shapes of the same rank, obtained by overriding
the module's shape constants and re-executing the file (so derived constants such as
``dim2 = dim * 2`` stay consistent).

Every problem a task file can have is a :class:`~ascendcraft.errors.UserError` that
names what is missing or broken.
"""
from __future__ import annotations

import ast
import re
import sys
import types
from dataclasses import dataclass
from pathlib import Path

import torch

from .errors import UserError
from .inputs import check_file
from .memo import Memo, caching
from .foreach import split_tensor_lists
from .groups import dtype_signature, has_groups, largest, load_groups
from .npukernelbench import (CASES, DESCRIPTION, MODULE, PREPARE, device_stubs, folder_namespace, is_task_folder,
                             level_of)
from .reduction import reduce_constants, residue_values, variant_values
from .opfile import (ALLOCATION_CAP, OP_ERRORS, ConstantOverride, Evaluation, OpModule, assigned_names,
                     check_interface, evaluate, op_failure, specs_of_inputs, reraise_fatal, running_op, where_in_file)
from .shapes import DEFAULT_MAX_BYTES, FULL_SIZE_BUDGET, INTEGER_INPUT_CAP, NOT_A_SIZE, TaskShapes
from .tensorspec import TensorSpec  # noqa: F401  (ascendcraft.task.TensorSpec, as before)

# --------------------------------------------------------------------------- task

class Task:
    """A loaded task file. See the module docstring."""

    def __init__(self, path: Path, source: str, tree: ast.Module, folder: Path | None = None):
        self.path = path
        self.source = source
        self._tree = tree
        #: an NPUKernelBench task folder (``npukernelbench``): path is its validation/module.py
        self.folder = folder
        #: what the model is told the task is besides the reference source (api_desc.md), or None
        self.description: str | None = None
        if folder is not None:
            self.name, self.category = folder.name, level_of(folder)
            desc = folder / DESCRIPTION
            self.description = desc.read_text(encoding="utf-8", errors="replace") if desc.is_file() else None
        elif path.name == "op.py":
            self.name = path.parent.name
            self.category = path.parent.parent.name or None
        else:
            self.name = path.stem
            self.category = path.parent.name or None
        self._cache: dict[tuple, Evaluation] = {}
        self._shapes: dict[tuple, TaskShapes] = {}
        self._caps: dict[tuple, int] = {}
        self._variants: dict[tuple, TaskShapes | None] = {}
        self._macs: dict[tuple, int | None] = {}
        self._integers: dict | None = None
        base = self._execute({})
        check_interface(base, path)
        self._base = base
        #: a group task's groups a kernel can serve (GroupShapes), and (index, why) of the others
        self.groups: list[TaskShapes] = []
        self.groups_unsupported: list[tuple[int, str]] = []
        if has_groups(base.ns):
            self._load_groups(base)
            return
        with running_op(str(path)):
            ev = evaluate(base, str(path))
        if ev.error is not None and ev.definitive:
            raise ev.error  # the forward pass itself is broken, not just unshapeable on meta
        self._cache[()] = ev
        self._caps[()] = ALLOCATION_CAP
        self.real = TaskShapes(self, base, ev, reduced=False, original={}, max_bytes=None)

    def __repr__(self) -> str:
        return f"Task({self.name!r}, category={self.category!r}, path={str(self.path)!r})"

    def _load_groups(self, base: OpModule) -> None:
        self.groups, self.groups_unsupported = load_groups(self, base)
        # The largest group stands for the task's real shapes (the modeled time, the static check).
        self.real = largest(self.groups)
        self._cache[()] = self.real._ev
        self._caps[()] = ALLOCATION_CAP

    # -- executing the source ---------------------------------------------------
    def _execute(self, overrides: dict[str, int]) -> OpModule:
        filename = str(self.path)
        tree = self._tree
        if overrides:
            tree = ConstantOverride(overrides).rewrite(ast.parse(self.source, filename))
        code = compile(tree, filename, "exec")
        module = types.ModuleType("ascendcraft_task_" + re.sub(r"\W", "_", self.name))
        module.__file__ = filename
        # Registered while it runs: some library code (dataclasses, typing) looks the
        # module up by name. Removed afterwards so loads do not leak into sys.modules.
        sys.modules[module.__name__] = module
        try:
            with running_op(), device_stubs():
                exec(code, module.__dict__)  # noqa: S102 - running the task file is the point
        except OP_ERRORS as e:  # noqa: BLE001
            stage = f"importing {self.path.name}" + (f" with {overrides}" if overrides else "")
            raise op_failure(stage, e, filename) from None
        finally:
            sys.modules.pop(module.__name__, None)
        ns = folder_namespace(self.folder, module.__dict__) if self.folder is not None else module.__dict__
        if has_groups(ns):
            ns = split_tensor_lists(ns)
        return OpModule(ns, {} if self.folder is not None else dict(overrides))

    def _eval(self, overrides: dict[str, int], cap: int) -> Evaluation:
        """Shapes with ``overrides`` (cached); a broken setting gives an invalid Evaluation.

        ``cap``: run the forward pass for real (when meta cannot) only up to this many bytes.
        """
        key = tuple(sorted(overrides.items()))
        cached = self._cache.get(key)
        if cached is None or (not cached.definitive and cap > self._caps.get(key, 0)):
            self._caps[key] = cap
            try:
                with running_op(str(self.path)):
                    ev = evaluate(self._execute(overrides), str(self.path), cap)
            except UserError as e:
                ev = Evaluation((), None, {}, (), error=e)
            self._cache[key] = ev
        return self._cache[key]

    def real_integer_inputs(self) -> dict[int, "numpy.ndarray"]:
        """The op's integer and bool inputs at the real shapes, drawn as ``get_inputs()`` draws them
        (seed 0) without allocating its float inputs: input position -> array, for those of at
        most INTEGER_INPUT_CAP bytes that do not depend on a float input (``opfile.integer_inputs``)."""
        if self._integers is None and self.groups:
            self._integers = {i: x.numpy() for i, x in enumerate(self.real.make_inputs(0))
                              if isinstance(x, torch.Tensor) and not x.is_floating_point()
                              and x.nbytes <= INTEGER_INPUT_CAP}
        if self._integers is None:
            from .opfile import integer_inputs
            self._integers = {i: x.numpy() for i, x in integer_inputs(self._base, str(self.path),
                                                                        INTEGER_INPUT_CAP).items()}
        return self._integers

    def macs(self, overrides: dict[str, int]) -> int | None:
        """The multiply-accumulates of the forward with ``overrides`` (cached; None when it cannot
        be traced on meta): ``eager.reference_macs``."""
        key = tuple(sorted(overrides.items()))
        if key not in self._macs:
            from .eager import reference_macs
            self._macs[key] = reference_macs(self, overrides)
        return self._macs[key]

    # -- constants --------------------------------------------------------------
    def _root_constants(self) -> dict[str, int]:
        """Top-level int constants assigned from expressions that use no other module names,
        and the int elements of tuple/list literals of that kind (as ``name[i]``)."""
        if hasattr(self, "_roots"):
            return self._roots
        assigned: dict[str, list] = {}
        for node in self._tree.body:
            for name, value in assigned_names(node):
                assigned.setdefault(name, []).append(value)
        roots = {}
        for name, values in assigned.items():
            if NOT_A_SIZE.search(name) or name.startswith("_"):
                continue
            if any(v is None or any(isinstance(n, ast.Name) and n.id in assigned for n in ast.walk(v))
                   for v in values):
                continue
            value = self._base.ns.get(name)
            if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
                roots[name] = value
            elif isinstance(value, (tuple, list)) and len(values) == 1 \
                    and isinstance(values[0], (ast.Tuple, ast.List)) and len(values[0].elts) == len(value):
                for i, (elt, v) in enumerate(zip(values[0].elts, value)):
                    if not isinstance(elt, ast.Starred) and isinstance(v, int) and not isinstance(v, bool) and v >= 1:
                        roots[f"{name}[{i}]"] = v
        self._roots = roots
        return roots

    def shape_constants(self) -> dict[str, list[tuple[int, int]]]:
        """Module constants that size inputs, with the (input, axis) positions each one sets.

        Found by perturbing each root constant and re-running get_inputs() on meta.
        """
        if hasattr(self, "_knobs"):
            return self._knobs
        base = [s.shape if isinstance(s, TensorSpec) else None for s in self.real.input_specs]
        knobs: dict[str, list[tuple[int, int]]] = {}
        for name, value in self._root_constants().items():
            try:
                mod = self._execute({name: value + 1})
                with torch.device("meta"), torch.no_grad():
                    with running_op(str(self.path)):
                        specs = specs_of_inputs(mod.get_inputs(), str(self.path))
            except OP_ERRORS as e:  # noqa: BLE001 - not a free size, leave it alone
                reraise_fatal(e)
                continue
            moved = []
            for i, (b, s) in enumerate(zip(base, specs)):
                if b is None or not isinstance(s, TensorSpec) or len(s.shape) != len(b):
                    continue
                moved += [(i, a) for a in range(len(b)) if b[a] != s.shape[a]]
            if moved and len(specs) == len(base):
                knobs[name] = moved
        self._knobs = knobs
        return knobs

    # -- shapes -----------------------------------------------------------------
    def shapes(self, max_bytes: int = DEFAULT_MAX_BYTES, full: bool = False) -> TaskShapes:
        """The real shapes if ``full`` or if they fit ``max_bytes``; else reduced shapes."""
        if max_bytes <= 0:
            raise UserError(f"--max-bytes must be positive, not {max_bytes}")
        if self.groups:
            # a group with the real group's dtypes: a generic kernel has one instance at both
            same = [g for g in self.groups if dtype_signature(g) == dtype_signature(self.real)]
            fitting = [g for g in same if full or g.nbytes <= max_bytes]
            return largest(fitting) if fitting else \
                min(same, key=lambda g: (g.nbytes, g.index))
        real_ev = self._cache[()]
        if full or (real_ev.valid and real_ev.nbytes <= max_bytes):
            return self.real
        if not self.shape_constants() and real_ev.valid and real_ev.nbytes <= FULL_SIZE_BUDGET:
            # nothing sizes the tensors (literal shapes in get_inputs): verify at the real size,
            # which still fits the machine
            return self.real
        key = (max_bytes,)
        if key not in self._shapes:
            overrides = reduce_constants(self, max_bytes)
            mod = self._execute(overrides)
            ev = self._cache[tuple(sorted(overrides.items()))]
            real_values = self._root_constants()
            self._shapes[key] = TaskShapes(self, mod, ev, reduced=True,
                                           original={k: real_values[k] for k in overrides}, max_bytes=max_bytes)
        return self._shapes[key]

    def variant(self, base: TaskShapes, seed: int, max_bytes: int = DEFAULT_MAX_BYTES) -> TaskShapes | None:
        """A second shape set for verification, derived from ``seed``: the shape constants of
        ``base`` moved to other values (odd, so tails and uneven core splits stay; between a third
        of the value and twice it, never above the op's own value), within ``max_bytes``. A kernel that keys on one shape (a
        hard-coded extent, a bound that only holds at the reduced size) differs there.
        None when no module constant sizes the inputs, or no other value runs.
        The same arguments give the same shape set object (so draws made for it are reused)."""
        if self.groups:
            return None           # the groups are the task's shape sets
        return self._shape_sets((tuple(sorted(base.overrides.items())), base.max_bytes, seed, max_bytes),
                                lambda: self._variant(base, seed, max_bytes))

    def _shape_sets(self, key: tuple, find):
        """``find()`` once per ``key`` while caching is on: the same arguments give the same shape set
        objects, so draws made for them are reused."""
        if caching() and key in self._variants:
            return self._variants[key]
        found = find()
        if caching():
            self._variants[key] = found
        return found

    def _variant(self, base: TaskShapes, seed: int, max_bytes: int) -> TaskShapes | None:
        values = variant_values(self, base, seed, max_bytes)
        return None if values is None else self._reduced_set(values, max_bytes)

    def real_extents(self, base: TaskShapes, budgets: tuple[int, ...] = (DEFAULT_MAX_BYTES,),
                     modulus: int = 1) -> list[ExtentSet]:
        """One shape set per shape constant that ``base`` shrank, in which that constant keeps its
        real value and the others shrink until the tensors fit the first of ``budgets`` that can hold
        it and the forward's multiply-accumulates stay within ``base``'s (so a set costs the backend
        no more time than ``base`` does: the simulator's time follows them). When even the last
        budget cannot hold the real value, the largest smaller value with the same residue modulo
        ``modulus`` (a kernel's tile sizes and cores: the same tails and core split) stands in, if
        ``modulus`` > 1 and one fits. The same arguments give the same shape set objects (so draws
        made for them are reused)."""
        return self._shape_sets(("extents", tuple(sorted(base.overrides.items())), base.max_bytes, budgets, modulus),
                                lambda: self._real_extents(base, budgets, modulus))

    def _real_extents(self, base: TaskShapes, budgets: tuple[int, ...], modulus: int) -> list[ExtentSet]:
        work = self.macs(base.overrides) or None
        real_values = self._root_constants()
        found = []
        for name in sorted(base.overrides):
            real = real_values[name]
            shapes, why = self._extent_set(name, real, budgets, work)
            if shapes is not None:
                found.append(ExtentSet(name, shapes))
                continue
            # the largest value real - j * modulus (j >= 1) that fits: fewer bytes the smaller it is
            lo, hi, best = 1, (real - 1) // modulus if modulus > 1 else 0, None
            while lo <= hi:
                j = (lo + hi) // 2
                fits, _ = self._extent_set(name, real - j * modulus, budgets, work)
                if fits is not None:
                    best, hi = fits, j - 1
                else:
                    lo = j + 1
            found.append(ExtentSet(name, best, why, modulus if best is not None else 1))
        return found

    def residue_set(self, base: TaskShapes, modulus: int, max_bytes: int) -> tuple[TaskShapes | None, str]:
        """A shape set in which every constant ``base`` shrank has its real value's residue modulo
        ``modulus`` (the same tails and core split as the real shapes on every axis at once): each
        the largest such value up to its value in ``base`` (its residue when that is larger; one
        whose real value is its own residue keeps its value in ``base``), then lowered by
        ``modulus`` at a time, largest first, and then the others halved, until the tensors fit
        ``max_bytes`` and the forward does no more multiply-accumulates than ``base``'s.
        (shapes, "") or (None, why)."""
        return self._shape_sets(("residues", tuple(sorted(base.overrides.items())), base.max_bytes, modulus, max_bytes),
                                lambda: self._residue_set(base, modulus, max_bytes))

    def _residue_set(self, base: TaskShapes, modulus: int, max_bytes: int) -> tuple[TaskShapes | None, str]:
        values, why = residue_values(self, base, modulus, max_bytes)
        return (None, why) if values is None else (self._reduced_set(values, max_bytes), "")

    def _extent_set(self, name: str, value: int, budgets: tuple[int, ...], work: int | None
                    ) -> tuple[TaskShapes | None, str]:
        """The shape set holding ``name`` at ``value`` within the first budget that can, or (None, why)."""
        why = ""
        for budget in budgets:
            try:
                values = reduce_constants(self, budget, pinned={name: value}, max_macs=work)
            except UserError as err:
                why = err.message
                continue
            return self._reduced_set(values, budget), ""
        return None, why

    def _reduced_set(self, changed: dict[str, int], max_bytes: int) -> TaskShapes:
        real_values = self._root_constants()
        mod = self._execute(changed)
        ev = self._eval(changed, max_bytes)
        return TaskShapes(self, mod, ev, reduced=True, original={k: real_values[k] for k in changed},
                          max_bytes=max_bytes)


@dataclass(frozen=True)
class ExtentSet:
    """A shape set of ``Task.real_extents`` for constant ``name``: at its real value (``why`` empty),
    or, when that does not fit (``why`` says how far), at a smaller value with the real one's
    residue modulo ``modulus`` (> 1), or at none (``shapes`` None)."""

    name: str
    shapes: TaskShapes | None
    why: str = ""
    modulus: int = 1


def load_task(path: str | Path) -> Task:
    """Import a task file (or a folder holding ``op.py``) and work out its real shapes."""
    if not isinstance(path, (str, Path)):
        raise UserError(f"an op is the path of a task file (or of a folder holding op.py), not "
                        f"{type(path).__name__}", hint="ascendcraft.compile('kernel.dsl', 'op.py')")
    p = Path(path)
    if is_task_folder(p):
        return _load_folder(p.resolve())
    if p.is_dir() and (p / "op.py").is_file():
        p = p / "op.py"
    if not p.exists():
        raise UserError(f"task file {path} does not exist")
    if not p.is_file():
        raise UserError(f"{path} is not a file", hint="pass the task's .py file (or a folder holding op.py)")
    p = p.resolve()
    check_file(p, "task file")            # bounded size, before it is read
    try:
        source = p.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise UserError(f"task file {path} is not UTF-8 text ({e})") from None
    except OSError as e:
        raise UserError(f"cannot read task file {path}: {e.strerror or e}") from None
    # A task is a pure function of its file's path and text (its shapes, its module's functions,
    # the seeded references): loading the same file again reuses it, and its caches (shape
    # searches, second shape sets, draws). A module the file imports is Python's own cache.
    cached = _TASKS.get((p, source))
    if cached is not None:
        return cached
    try:
        tree = ast.parse(source, str(p))
    except SyntaxError as e:
        where = where_in_file(e, str(p))
        raise UserError(f"syntax error in task file {path}: {e.msg}" + (f" (at {where})" if where else "")) from None
    task = Task(p, source, tree)
    _TASKS.put((p, source), task)
    return task


def _load_folder(folder: Path) -> Task:
    """An NPUKernelBench task folder (``npukernelbench``)."""
    module = folder / MODULE
    check_file(module, "task file")
    try:
        source = module.read_text(encoding="utf-8")
        tree = ast.parse(source, str(module))
    except (UnicodeDecodeError, OSError) as e:
        raise UserError(f"cannot read {module}: {e}") from None
    except SyntaxError as e:
        raise UserError(f"syntax error in {module}: {e.msg} (at {where_in_file(e, str(module))})") from None
    key = (folder, source, *(_text(folder / f) for f in (PREPARE, CASES, DESCRIPTION)))
    cached = _TASKS.get(key)
    if cached is None:
        cached = Task(module, source, tree, folder=folder)
        _TASKS.put(key, cached)
    return cached


def _text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


_TASKS = Memo(entries=32)
