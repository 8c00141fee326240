"""Print the last level of the lowering chain as an AscendC kernel (.cpp) and its KernelSpec.

The input is the program after ``pipeline``: every tile op is an API-level op with a buffer
(``out=``), loads and stores name GM regions, and parallel loops run over ``CORES``. Each
statement becomes the AscendC calls it stands for; the op table (``ops.OPS[name].api``) gives
the function name, so the interpreter and the emitter read one table.

Layout conventions (shared with ``lowering_passes/bufferize.py``): a tile's rows are padded to
32 bytes (``pitch``), tiles have rank 0, 1 or 2 on chip, and a compute op covers
``(rows - 1) * pitch + cols`` elements. GM copies use ``DataCopy`` when the region is
contiguous and a multiple of 32 bytes, ``DataCopyPad`` otherwise (tails, unaligned rows; one
block per row with GM/UB strides, at most 4095 blocks per call); ascendc_api.md sections
2.1-2.2. A loaded tile's rows are written up to the pitch (a tail block's short rows are zeroed
first), so compute ops never read unwritten UB. A *strided* region, whose last kept axis is not
the tensor's last axis (a column ``x[a:b, j]``), is copied one element per 32-byte block
through the strided-copy work buffer (role ``xwork``) and packed with ``Gather`` (``Brcb`` on the way out): see
``_STRIDED_COPIES``.
"""
from __future__ import annotations

from dataclasses import dataclass

from .. import dtypes as D
from ..dsl import ast as A
from ..dsl.ops import API_COMPARE_MODES, OPS
from ..dsl.types import TScalar, TTile
from ..errors import DSLError
from lowering_passes.bufferize import SCALAR_RESERVE, strided_region, work_buffers
from lowering_passes.base import is_phase_loop
from lowering_passes.linearize import is_gemm

from . import indexing
from .spec import CTYPES, AttrArg, KernelSpec, TensorArg, TilingField

_KERNEL_TYPES = {"aiv": "KERNEL_TYPE_AIV_ONLY", "aic": "KERNEL_TYPE_AIC_ONLY", "mix": "KERNEL_TYPE_MIX_AIC_1_2"}
_UB_CTYPES = dict(CTYPES, bool="uint8_t")     # bool tensors are bytes in GM and UB (Compare masks are bits)
_ROUND = {"rint": "CAST_RINT", "floor": "CAST_FLOOR", "ceil": "CAST_CEIL", "round": "CAST_ROUND",
          "trunc": "CAST_TRUNC"}
_SCALAR_UNARY = {"exp": "Exp", "log": "Ln", "sqrt": "Sqrt", "rsqrt": "Rsqrt", "tanh": "Tanh",
                 "sigmoid": "Sigmoid", "erf": "Erf"}


def _camel(name: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in name.split("_") if p)


@dataclass
class _Tile:
    ctype: str
    dtype: str
    rows: str     # C++ expression: number of rows (1 for rank <= 1)
    cols: str     # C++ expression: extent of the last axis (1 for rank 0)
    pitch: str    # C++ expression: padded row length in elements
    home: str     # buffer or queue name

    @property
    def count(self) -> str:
        return f"(({self.rows}) - 1) * ({self.pitch}) + ({self.cols})"


def emit_kernel(kernel: A.Kernel, checked, *, op_name: str | None = None) -> KernelSpec:
    """The AscendC kernel and its spec for a fully lowered, checked program. Every DSL name is
    printed in its C++ spelling (codegen/names.py: ``x`` -> ``x_u``); the spec keeps DSL names
    for tensors, attributes and dims, and C++ names for tiling fields."""
    from .names import mangle_kernel, unmangle_spec, unmangle_text
    op_name = op_name or f"{kernel.name}_custom"
    mangled, mchecked = mangle_kernel(kernel, checked)
    try:
        return unmangle_spec(_Emitter(mangled, mchecked, op_name).spec())
    except DSLError as err:   # spans are origins in the writer's file (passes.with_origins): show its line
        from lowering_passes.base import in_writer_terms
        err.message, err.hint = unmangle_text(err.message), unmangle_text(err.hint)
        if err.args:
            err.args = (unmangle_text(err.args[0]), *err.args[1:])
        # names the passes made (_t0, _pf1) as the writer's expressions they hold
        raise in_writer_terms(err, kernel).located(getattr(kernel, "source", None))


class _Emitter:
    def __init__(self, kernel: A.Kernel, checked, op_name: str):
        self.k, self.ck, self.op_name = kernel, checked, op_name
        self.op_type = _camel(op_name)
        self.cls = f"Kernel{_camel(kernel.name)}"
        self.buffers = {s.name: s for s in kernel.body if isinstance(s, A.Buffer)}
        # bufferize's work buffers by role (rwork, swork, sidx, wwork, widx, xwork, xidx): their names
        # come from the program (a writer's variable may be called rwork), in C++ spelling
        from .names import dsl_name
        self.work = work_buffers(kernel, dsl_name)
        self.scratch = {s.name: s for s in kernel.body if isinstance(s, A.Scratch)}
        self.params = {p.name: p for p in kernel.inputs + kernel.outputs}
        self.tiles: dict[str, _Tile] = {}
        self.bit_masks: set[str] = set()           # bool tiles holding one bit per element (Compare's)
        self.scalars: dict[str, str] = {}          # local scalar name -> C++ type
        self.members: dict[str, str] = {}          # dims, consts, attrs -> C++ type
        self.loop_vars: set[str] = set()
        self.lines: list[str] = []
        self.origins: list[int | None] = []        # per emitted line: the DSL line of its statement
        self.origin: int | None = None
        self.depth = 2
        # queue tiles copied in and EnQue'd but not yet DeQue'd, per open block (innermost last):
        # each is DeQue'd just before the first statement of its block that uses it
        self.pending: list[set[str]] = [set()]
        # DeQue pops its queue's oldest tile, so a DeQue may move to the use only when one name
        # is loaded through the queue (a prefetched tile and its loop's alias are one name)
        loads: dict[str, set] = {}
        for n in A.walk(kernel):
            if isinstance(n, A.Assign) and isinstance(n.value, A.Load) and n.value.out:
                loads.setdefault(n.value.out, set()).add(n.target)
        self.deque_at_use = {home for home, targets in loads.items() if len(targets) == 1}
        # Matmul API stores (the cube pass's output): one Matmul object and TCubeTiling each
        self.gemms = [n for n in A.walk(kernel) if isinstance(n, A.Store) and is_gemm(n.value)]
        has_vector = bool(self.buffers) or any(isinstance(n, A.Load) for n in A.walk(kernel))
        self.core_type = "aiv" if not self.gemms else "mix" if has_vector else "aic"

    # ------------------------------------------------------------ output
    def spec(self) -> KernelSpec:
        inputs = tuple(TensorArg(p.name, p.type.dtype, tuple(p.type.shape), p.name in self._parameters())
                       for p in self.k.inputs if isinstance(p.type, A.TensorType))
        outputs = tuple(TensorArg(p.name, p.type.dtype, tuple(p.type.shape)) for p in self.k.outputs)
        attrs = tuple(AttrArg(p.name, p.type.dtype, _literal(p.default)) for p in self.k.inputs
                      if isinstance(p.type, A.ScalarType))
        dims = []
        for t in inputs + outputs:
            for axis, d in enumerate(t.shape):
                if isinstance(d, str) and d not in [f.name for f in dims]:
                    dims.append(TilingField(d, "int64_t", ("dim", t.name, axis)))
        fields = tuple(dims) + tuple(TilingField(a.name, "float" if a.dtype in D.FLOATS else "int64_t",
                                                 ("attr", a.name)) for a in attrs)
        struct = f"{self.op_type}TilingData"
        source = self._source(fields, struct)
        return KernelSpec(self.op_name, self.op_type, inputs, outputs, attrs, struct, fields, source,
                          self.core_type, self._workspace_expr(), self._dsl_lines(source))

    def _dsl_lines(self, source: str) -> tuple:
        """(line of the kernel source, DSL line) for each line of Process() the emitter wrote for a
        statement of the writer's kernel (spans are origins: passes.with_origins)."""
        return tuple((self.first_line - 1 + i, o) for i, o in enumerate(self.origins) if o is not None)

    def _parameters(self) -> set:
        return set(getattr(self.ck, "parameters", ()) or ())

    def _workspace_expr(self) -> str:
        """Bytes of the scratch tensors as a host C++ expression over tiling fields (dims, attributes)
        and the core count: a dim that is a ``const`` is replaced by its definition, recursively, with
        the DSL's floor semantics for ``//``, ``%`` and ``cdiv`` spelled in plain C++ (no helpers exist
        on the host)."""
        consts = {c.name: c.value for c in self.k.body if isinstance(c, A.Const)}
        parts = []
        for s in self.scratch.values():
            n = " * ".join(f"(int64_t)({_host_int(A.Name(d), consts)})" if isinstance(d, str) else str(d)
                           for d in s.type.shape) or "1"
            parts.append(f"(({n}) * {D.ITEMSIZE[s.type.dtype]} + 31) / 32 * 32")
        return " + ".join(parts) or "0"

    # ------------------------------------------------------------ C++ source
    def _source(self, fields, struct) -> str:
        for f in fields:
            self.members[f.name] = "float" if f.ctype == "float" else "int64_t"
        consts = [s for s in self.k.body if isinstance(s, A.Const)]
        for c in consts:
            self.members[c.name] = self._scalar_ctype(c.value)
        self._collect_locals(self.k.body)
        body = [s for s in self.k.body if not isinstance(s, (A.Const, A.Scratch, A.Buffer))]
        self._phases(body)
        gm_args = [p.name for p in self.k.inputs + self.k.outputs if isinstance(p.type, A.TensorType)]
        init_args = ", ".join(f"GM_ADDR {n}" for n in gm_args + ["workspace", "tiling"])
        init = [f"        GET_TILING_DATA(tilingData, tiling);"]
        init += [f"        {f.name} = tilingData.{f.name};" for f in fields]
        init += [f"        {c.name} = {self.scalar(c.value)};" for c in consts]
        for n in gm_args:
            ct = _UB_CTYPES[self.params[n].type.dtype]
            init.append(f"        {n}Gm.SetGlobalBuffer((__gm__ {ct}*){n});")
        offset = "0"
        for s in self.scratch.values():
            ct = CTYPES[s.type.dtype]
            init.append(f"        {s.name}Gm.SetGlobalBuffer((__gm__ {ct}*)(AscendC::GetUserWorkspace(workspace) + {offset}));")
            n = " * ".join(self._dim(d) for d in s.type.shape) or "1"
            offset = f"{offset} + (({n}) * {D.ITEMSIZE[s.type.dtype]} + 31) / 32 * 32"
        for b in self.buffers.values():
            size = " * ".join(self._dim(d) for d in b.type.shape)
            ct = _UB_CTYPES[b.type.dtype]
            if b.type.space == "veccalc":
                init.append(f"        pipe.InitBuffer({b.name}Buf, ({size}) * sizeof({ct}));")
            else:
                init.append(f"        pipe.InitBuffer({b.name}, {b.depth}, ({size}) * sizeof({ct}));")
        if self.core_type != "aic":   # a cube-only kernel runs on the AIC, which has no UB
            init.append(f"        pipe.InitBuffer(scalarBuf, {SCALAR_RESERVE});")
        for i, g in enumerate(self.gemms):
            init += self._cube_tiling(i, g)
        decls = []
        for b in self.buffers.values():
            if b.type.space == "veccalc":
                decls.append(f"    AscendC::TBuf<AscendC::TPosition::VECCALC> {b.name}Buf;")
            else:
                pos = "VECIN" if b.type.space == "vecin" else "VECOUT"
                decls.append(f"    AscendC::TQue<AscendC::TPosition::{pos}, {b.depth}> {b.name};")
        decls.append("    AscendC::TBuf<AscendC::TPosition::VECCALC> scalarBuf;")
        for n in gm_args:
            decls.append(f"    AscendC::GlobalTensor<{_UB_CTYPES[self.params[n].type.dtype]}> {n}Gm;")
        for s in self.scratch.values():
            decls.append(f"    AscendC::GlobalTensor<{CTYPES[s.type.dtype]}> {s.name}Gm;")
        for name, ct in self.members.items():
            decls.append(f"    {ct} {name} = 0;")
        for i, g in enumerate(self.gemms):
            decls.append(f"    {self._matmul_type(g)} mm{i};")
            decls.append(f"    TCubeTiling cubeTiling{i};")
        gets = [f"        AscendC::LocalTensor<{_UB_CTYPES[b.type.dtype]}> {b.name} = {b.name}Buf.Get<"
                f"{_UB_CTYPES[b.type.dtype]}>();" for b in self.buffers.values()
                if b.type.space == "veccalc" and b.name not in (self.work.get("xwork"), self.work.get("xidx"))]
        if "xidx" in self.work:   # the byte offsets 32 * i of strided copies' Gathers, once
            gets.append(f"        {{ AscendC::LocalTensor<int32_t> xi_ = {self.work['xidx']}Buf.Get<int32_t>(); "
                        f"const int32_t n_ = static_cast<int32_t>(({self._buffer_elems(self.work['xwork'])}) / 8); "
                        f"AscendC::CreateVecIndex(xi_, static_cast<int32_t>(0), static_cast<uint32_t>(n_)); "
                        f"AscendC::Muls(xi_, xi_, static_cast<int32_t>(32), n_); }}")
        if self.core_type != "aic":
            gets.append("        scalarTmp = scalarBuf.Get<float>();")
        local_decls = [f"        {ct} {n} = 0;" for n, ct in self.scalars.items()]
        local_decls += [f"        AscendC::LocalTensor<{t}> {n};" for n, t in self._tile_decls.items()]
        local_decls += [f"        [[maybe_unused]] int64_t {n}_rows = 0, {n}_cols = 0, {n}_pitch = 0;"
                        for n in self._tile_decls]
        entry_args = ", ".join(f"GM_ADDR {n}" for n in gm_args + ["workspace", "tiling"])
        call_args = ", ".join(gm_args + ["workspace", "tiling"])
        out = [
            f"// Generated by ascendcraft from kernel {self.k.name}: do not edit; edit the DSL and lower again.",
            *(["#define ASCENDC_CUBE_ONLY  // pure cube kernel: no AIV <-> AIC messaging"]
              if self.core_type == "aic" else []),
            '#include "kernel_operator.h"',
            *(['#include "lib/matmul_intf.h"', "using namespace matmul;"] if self.gemms else []),
            "",
            _HELPERS,
            f"class {self.cls} {{",
            "public:",
            f"    __aicore__ inline {self.cls}() {{}}",
            f"    __aicore__ inline void Init({init_args})",
            "    {",
            *init,
            "    }",
            "    __aicore__ inline void Process()",
            "    {",
            *gets,
            *local_decls,
            _PROCESS_BODY,
            *self.lines,
            # every core ends its Matmul objects, cores with an empty block too (in MIX mode End()
            # is what releases the AIC serving this vector core)
            *[f"        mm{i}.End();" for i in range(len(self.gemms))],
            "    }",
            "",
            "private:",
            _SCALAR_METHODS,
            _SCAN_TABLES if "sidx" in self.work else "",
            _WINDOW_TABLES if "widx" in self.work else "",
            _STRIDED_COPIES.replace("STRIDED_CHUNK", f"(({self._buffer_elems(self.work['xwork'])}) / 8)")
            .replace("XWORK_BUF", f"{self.work['xwork']}Buf").replace("XIDX_BUF", f"{self.work['xidx']}Buf")
            if "xwork" in self.work else "",
            "    AscendC::TPipe pipe;",
            *decls,
            "    AscendC::LocalTensor<float> scalarTmp;",
            "};",
            "",
            f'extern "C" __global__ __aicore__ void {self.op_name}({entry_args})',
            "{",
            f"    KERNEL_TASK_TYPE_DEFAULT({_KERNEL_TYPES[self.core_type]});",
            f"    {self.cls} op;",
            f"    op.Init({call_args});",
            "    op.Process();",
            "}",
            "",
        ]
        text = "\n".join(out)
        at = text.index(_PROCESS_BODY)
        self.first_line = text.count("\n", 0, at) + 2    # the line after the marker
        return text[:at] + text[at + len(_PROCESS_BODY) + 1:]

    def _dim(self, d) -> str:
        return str(d) if isinstance(d, int) else "AscendC::GetBlockNum()" if d == "CORES" else d

    # ------------------------------------------------------------ names and types
    def _collect_locals(self, stmts):
        self._tile_decls: dict[str, str] = {}

        def visit(ss):
            for s in ss:
                if isinstance(s, A.Assign):
                    t = self.ck.expr_types.get(id(s.value))
                    if isinstance(t, TTile):
                        self._tile_decls[s.target] = _UB_CTYPES[t.dtype]
                    else:
                        assigned.setdefault(s.target, self._ctype(t))
                elif isinstance(s, A.For):
                    self.loop_vars.add(s.var)
                    visit(s.body)
                elif isinstance(s, A.ParallelFor):
                    self.loop_vars.update(s.vars)
                    visit(s.body)
        assigned: dict[str, str] = {}
        visit(stmts)
        # a name assigned anywhere is a local of Process(), even if another phase also uses it as a
        # loop variable (that loop's own declaration shadows it there)
        self.scalars.update(assigned)

    def _ctype(self, t) -> str:
        if isinstance(t, TScalar):
            if t.dtype in ("int", "bool") or t.dtype in D.INTS:
                return "int64_t"
            return "half" if t.dtype == "f16" else "float"
        if isinstance(t, TTile) and t.shape == ():
            return "float" if t.dtype in D.FLOATS else "int64_t"
        return "int64_t"   # synthesized index arithmetic

    def _scalar_ctype(self, e) -> str:
        return self._ctype(self.ck.expr_types.get(id(e)))

    # ------------------------------------------------------------ statements
    def emit(self, line: str):
        self.lines.append("    " * self.depth + line)
        self.origins.append(self.origin)

    def _phases(self, body):
        """Top-level statements: parallel phases on every core, the rest on core 0; SyncAll between.
        A loop of phases runs on every core, with SyncAll after each of its phases."""
        groups: list[list] = []
        for s in body:   # consecutive single-core statements form one group
            if groups and not _on_all_cores(s) and not _on_all_cores(groups[-1][0]):
                groups[-1].append(s)
            else:
                groups.append([s])
        for i, g in enumerate(groups):
            if is_phase_loop(g[0]):
                self._for_header(g[0])
                self.depth += 1
                for phase in g[0].body:
                    self._phase(phase)
                    self.emit("AscendC::SyncAll();")
                self.depth -= 1
                self.emit("}")
            elif isinstance(g[0], A.ParallelFor):
                self._phase(g[0])
            else:
                self.emit("if (AscendC::GetBlockIdx() == 0) {")
                self.depth += 1
                self.block(g)
                self.depth -= 1
                self.emit("}")
            if i + 1 < len(groups) and not is_phase_loop(g[0]):
                self.emit("AscendC::SyncAll();")

    def _for_header(self, s: A.For):
        negative = isinstance(s.step, A.Unary) or (isinstance(s.step, A.Int) and s.step.value < 0)
        self.emit(f"for (int64_t {s.var} = {self.scalar(s.start)}; {s.var} {'>' if negative else '<'} "
                  f"{self.scalar(s.stop)}; {s.var} += {self.scalar(s.step)}) {{")

    def _phase(self, p: A.ParallelFor):
        if self.core_type == "mix":
            # MIX (1 AIC : 2 AIV): the kernel runs on both vector cores of a block, GetBlockIdx()
            # counting vector cores (GetBlockIdx.md: [0, 2 * numBlocks) on the AIV); the first of
            # each block does the block's work (and drives its AIC), both reach the SyncAll barriers
            self.emit("if (AscendC::GetBlockIdx() % AscendC::GetTaskRation() == 0) {")
            self.depth += 1
            self.emit(f"const int64_t {p.vars[0]} = AscendC::GetBlockIdx() / AscendC::GetTaskRation();")
        else:
            self.emit("{")
            self.depth += 1
            self.emit(f"const int64_t {p.vars[0]} = AscendC::GetBlockIdx();")
        self.block(p.body)
        self.depth -= 1
        self.emit("}")

    def block(self, stmts, carried: frozenset = frozenset()):
        """Emit a block. A copied-in queue tile is DeQue'd right before the first statement of its
        block that uses it, not at its copy: the DeQue is the vector unit's wait for the copy
        (docs/simulator.md, "Events"), so a tile loaded ahead (prefetch) is copied while the
        current one is computed. ``carried``: tiles EnQue'd before a loop whose body takes them
        over (the prefetch's ``t = _pf0``), pending again when the body ends."""
        self.pending.append(set(carried))
        for s in stmts:
            self.stmt(s, self._deque_used(s))
        left = self.pending.pop() - carried
        for name in sorted(left):   # loaded and never used in the block: keep the queue balanced
            self._deque(name)

    def _deque(self, name: str):
        t = self.tiles[name]
        self.emit(f"{name} = {t.home}.DeQue<{t.ctype}>();")

    def _deque_used(self, s) -> frozenset:
        """DeQue the pending tiles of this block that ``s`` uses; return those a loop ``s`` takes
        over instead (its body's first use of them is ``t = name``, and it loads them again)."""
        pending = self.pending[-1]
        carried = set()
        for name in sorted(pending & _mentions(s)) if pending else ():
            if isinstance(s, A.For) and _loop_carries(s, name):
                carried.add(name)
                continue
            if isinstance(s, A.Assign) and isinstance(s.value, A.Name) and s.value.id == name:
                pending.discard(name)      # another name for the tile: its DeQue moves to that name's use
                pending.add(s.target)
                continue
            self._deque(name)
            pending.discard(name)
        return frozenset(carried)

    def stmt(self, s, carried: frozenset = frozenset()):
        outer = self.origin
        self.origin = s.span.line if getattr(s, "span", None) else outer
        try:
            self._stmt(s, carried)
        finally:
            self.origin = outer

    def _stmt(self, s, carried: frozenset):
        if isinstance(s, A.For):
            self._for_header(s)
            self.depth += 1
            self.block(s.body, carried)
            self.depth -= 1
            self.emit("}")
        elif isinstance(s, A.Assign):
            self._assign(s)
        elif isinstance(s, A.Store):
            self._store(s)
        elif isinstance(s, A.Free):
            t = self.tiles[s.name]
            self.emit(f"{t.home}.FreeTensor({s.name});")
        elif isinstance(s, A.Pass):
            pass
        else:
            raise _unsupported(f"statement {type(s).__name__}", s)

    def _assign(self, s: A.Assign):
        e = s.value
        if isinstance(e, A.Load):
            self._load(s.target, e)
            return
        if isinstance(e, A.Call) and e.func in OPS and OPS[e.func].kind == "api":
            self._api(s.target, e)
            return
        if isinstance(e, A.Name) and e.id in self.tiles:   # another name for a tile (prefetch)
            src = self.tiles[e.id]
            self.emit(f"{s.target} = {e.id};")
            self.tiles[s.target] = _Tile(src.ctype, src.dtype, src.rows, src.cols, src.pitch, src.home)
            self._freeze(s.target)
            return
        self.emit(f"{s.target} = {self.scalar(e)};")

    # ------------------------------------------------------------ GM copies
    def _region(self, src):
        """(gm name, offset, [(extent, gm stride)] of sliced/whole axes) of a GM region, C++ expressions."""
        name = (src.base if isinstance(src, A.Index) else src).id
        dims = [self._dim(d) for d in self._gm_shape(src)]
        strides = []
        for i in range(len(dims)):
            strides.append(" * ".join(f"({d})" for d in dims[i + 1:]) or "1")
        subs = list(src.subscripts) if isinstance(src, A.Index) else []
        subs += [A.Slice(None, None)] * (len(dims) - len(subs))
        offset, axes = [], []
        for sub, dim, stride in zip(subs, dims, strides):
            if isinstance(sub, A.Slice):
                lo = f"AcClamp({self.scalar(sub.start)}, {dim})" if sub.start is not None else "0"
                hi = f"AcClamp({self.scalar(sub.stop)}, {dim})" if sub.stop is not None else f"({dim})"
                offset.append(f"({lo}) * {stride}")
                axes.append((f"AcMax<int64_t>({hi} - {lo}, 0)", stride))
            else:
                offset.append(f"({self.scalar(sub)}) * {stride}")
        return name, " + ".join(offset) or "0", axes

    def _layout(self, axes, dtype: str, static_cols: str):
        if len(axes) > 2:
            raise _unsupported("tiles of rank 3 or more on chip", None)
        per_block = 32 // D.ITEMSIZE[dtype]
        if not axes:
            return "1", "1", str(per_block)
        cols = axes[-1][0]
        rows = axes[0][0] if len(axes) == 2 else "1"
        pitch = f"AcAlignUp({static_cols}, {per_block})"
        return rows, cols, pitch

    def _copy_params(self, rows, cols, pitch, gm_row_stride, ct, to_gm: bool) -> str:
        blocks = f"(({cols}) * sizeof({ct}) + 31) / 32"
        ub_gap = f"(({pitch}) * sizeof({ct}) / 32 - {blocks})"
        gm_gap = f"((({gm_row_stride}) - ({cols})) * sizeof({ct}))"
        src, dst = (ub_gap, gm_gap) if to_gm else (gm_gap, ub_gap)
        return (f"AscendC::DataCopyExtParams{{static_cast<uint16_t>({rows}), static_cast<uint32_t>(({cols}) * "
                f"sizeof({ct})), static_cast<uint32_t>({src}), static_cast<uint32_t>({dst}), 0}}")

    def _load(self, target: str, e: A.Load):
        if e.space != "ub":
            raise _unsupported("cube (l1) operands", e)
        if e.pad is not None:
            self._padded_load(target, e)
            return
        t = self.ck.expr_types[id(e)]
        ct = _UB_CTYPES[t.dtype]
        name, offset, axes = self._region(e.src)
        home = e.out
        static_cols = self._static_cols(e.src)
        rows, cols, pitch = self._layout(axes, t.dtype, static_cols)
        row_stride = axes[0][1] if len(axes) == 2 else cols
        queue = self.buffers[home].type.space != "veccalc"
        if queue:
            self.emit(f"{target} = {home}.AllocTensor<{ct}>();")
        else:
            self.emit(f"{target} = {home};")
            self._sync("V_MTE2")
        self.emit("{")
        self.depth += 1
        self.emit(f"const int64_t r_ = {rows}, c_ = {cols}, off_ = {offset};")
        if len(axes) == 2:
            # rows shorter than the pitch (a tail of a sub-block): the copy leaves gaps between them
            # that compute ops, which cover (rows - 1) * pitch + cols elements, would read unwritten
            # (the copies write each row's last 32-byte block whole)
            per_block = 32 // D.ITEMSIZE[t.dtype]
            self.emit(f"if (r_ > 1 && AcAlignUp(c_, {per_block}) < ({pitch})) {{")
            self.emit(f"    AcZeroFill({target}, (r_ - 1) * ({pitch}));")
            self.depth += 1
            self._sync("V_MTE2")
            self.depth -= 1
            self.emit("}")
        if strided_region(e.src, self.k):
            # the tile's last axis is not adjacent in GM (a column x[a:b, j]): one element per block
            self.emit(f"CopyInStrided<{ct}>({target}, {name}Gm[off_], r_, c_, {pitch}, 0, "
                      f"{axes[0][1] if len(axes) == 2 else '0'}, {axes[-1][1]}, static_cast<{ct}>(0));")
        else:
            self.emit(f"if (r_ == 0 || c_ == 0) {{")     # a region clamped away (e.g. a prefetch past the end)
            self.emit(f"}} else if ((r_ == 1 || (c_ == ({pitch}) && c_ == ({row_stride}))) && "
                      f"(r_ * c_ * sizeof({ct})) % 32 == 0) {{")
            self.emit(f"    AscendC::DataCopy({target}, {name}Gm[off_], static_cast<uint32_t>(r_ * c_));")
            self.emit("} else {")
            self.depth += 1
            self._rows_pad_copy(target, f"{name}Gm", "r_" if len(axes) == 2 else "1", "c_", pitch, row_stride, ct,
                                to_gm=False)
            self.depth -= 1
            self.emit("}")
        self.depth -= 1
        self.emit("}")
        self._copied_in(target, _Tile(ct, t.dtype, rows, cols, pitch, home), queue)

    def _rows_pad_copy(self, tile: str, gm: str, rows: str, cols: str, pitch: str, row_stride: str, ct: str,
                       to_gm: bool):
        """DataCopyPad of ``rows`` rows of ``cols`` adjacent elements between GM (``gm[off_]``, rows
        ``row_stride`` apart) and a tile (rows ``pitch`` apart), at most 4095 rows per call (the
        documented range of blockCount, ascendc_api.md 2.2)."""
        if rows == "1":
            params = self._copy_params("1", cols, pitch, row_stride, ct, to_gm)
            self.emit(f"AscendC::DataCopyPad({gm}[off_], {tile}, {params});" if to_gm else
                      f"AscendC::DataCopyPad({tile}, {gm}[off_], {params}, "
                      f"AscendC::DataCopyPadExtParams<{ct}>{{false, 0, 0, 0}});")
            return
        params = self._copy_params("n_", cols, pitch, row_stride, ct, to_gm)
        self.emit(f"for (int64_t q_ = 0; q_ < {rows}; q_ += 4095) {{")
        self.emit(f"    const int64_t n_ = AcMin<int64_t>({rows} - q_, 4095);")
        if to_gm:
            self.emit(f"    AscendC::DataCopyPad({gm}[off_ + q_ * ({row_stride})], {tile}[q_ * ({pitch})], {params});")
        else:
            self.emit(f"    AscendC::DataCopyPad({tile}[q_ * ({pitch})], {gm}[off_ + q_ * ({row_stride})], {params}, "
                      f"AscendC::DataCopyPadExtParams<{ct}>{{false, 0, 0, 0}});")
        self.emit("}")

    def _copied_in(self, target: str, tile: _Tile, queue: bool):
        """After a GM->UB copy: hand the tile to the compute stage (EnQue/DeQue, or wait for MTE2)."""
        if queue:
            self.emit(f"{tile.home}.EnQue({target});")
            if tile.home in self.deque_at_use:
                self.pending[-1].add(target)   # DeQue'd where it is first used (block)
            else:
                self.emit(f"{target} = {tile.home}.DeQue<{tile.ctype}>();")
        else:
            self._sync("MTE2_V")
        self.tiles[target] = tile
        # extents are evaluated once, where the tile is made (loop variables may change later)
        self._freeze(target)

    def _slice_parts(self, src):
        """Per sliced axis of a GM region: (requested start, static extent, clamped start, in-range count,
        unclamped length). The static extent (what bufferize sized buffers by) is the dim when the
        length cannot be read from the slice's text."""
        from lowering_passes.bufferize import _difference
        shape = self._gm_shape(src)
        subs = list(src.subscripts) if isinstance(src, A.Index) else []
        subs += [A.Slice(None, None)] * (len(shape) - len(subs))
        parts = []
        for sub, d in zip(subs, shape):
            if not isinstance(sub, A.Slice):
                continue
            dim = A.Name(d) if isinstance(d, str) else A.Int(d)
            start = sub.start if sub.start is not None else A.Int(0)
            stop = sub.stop if sub.stop is not None else dim
            a, dim_s = self.scalar(start), self._dim(d)
            lo, hi = f"AcClamp({a}, {dim_s})", f"AcClamp({self.scalar(stop)}, {dim_s})"
            parts.append((a, self.scalar(_difference(start, stop, dim)), lo, f"AcMax<int64_t>({hi} - {lo}, 0)",
                          f"AcMax<int64_t>(({self.scalar(stop)}) - ({a}), 0)"))
        return parts

    def _padded_load(self, target: str, e: A.Load):
        """load(x[...], pad=v): fill the whole tile with v, then copy the in-range part to its place.
        A left halo (start before 0) is DataCopyPad's leftPadding for its part in the last 32-byte
        block before the data (a wider halo is filled with the rest of the tile). The tile has each
        slice's full, unclamped length (stop - start, the DSL's meaning); its rows are laid out by
        the static extent, as bufferize sized the buffer."""
        t = self.ck.expr_types[id(e)]
        ct = _UB_CTYPES[t.dtype]
        per_block = 32 // D.ITEMSIZE[t.dtype]
        name, offset, axes = self._region(e.src)
        parts = self._slice_parts(e.src)
        if not 1 <= len(parts) <= 2:
            raise _unsupported("padded loads of rank 3 or more", e)
        cols_s = parts[-1][4]
        rows_s = parts[0][4] if len(parts) == 2 else "1"
        pitch = f"AcAlignUp({parts[-1][1]}, {per_block})"
        home = e.out
        queue = self.buffers[home].type.space != "veccalc"
        self.emit(f"{target} = {home}.AllocTensor<{ct}>();" if queue else f"{target} = {home};")
        if not queue:
            self._sync("MTE3_V")
        pad = self.scalar(e.pad)
        self.emit("{")
        self.depth += 1
        a_c, _, lo_c, n_c, _ = parts[-1]
        row_off = f"({parts[0][2]} - ({parts[0][0]}))" if len(parts) == 2 else "0"
        rows_in = parts[0][3] if len(parts) == 2 else "1"
        row_stride = axes[0][1] if len(axes) == 2 else "0"
        self.emit(f"const int64_t rs_ = {rows_s}, p_ = {pitch};")
        self.emit(f"const int64_t r_ = {rows_in}, c_ = {n_c}, left_ = {lo_c} - ({a_c}), ro_ = {row_off}, "
                  f"off_ = {offset};")
        # Only the parts of the tile the copy does not write get the pad value: rows above and
        # below, and each row's blocks right of the copied ones (the copy pads its first and last
        # block itself). They are disjoint from the copy, so MTE2 need not wait for them. A tile
        # entirely outside, or a left halo of a block or more, is filled whole first instead; the
        # copy then starts at the halo's last whole block (DataCopyPad's leftPadding is at most
        # 32 bytes, ascendc_api.md 2.2).
        fill = f"AscendC::Duplicate({{}}, static_cast<{ct}>({pad}), static_cast<int32_t>({{}}));"
        if strided_region(e.src, self.k):
            # a strided region (a column with halos): pad the whole tile, then copy the part inside
            # the tensor element by element to row ro_, column left_
            self.emit(fill.format(target, "rs_ * p_"))
            self.emit(f"CopyInStrided<{ct}>({target}[ro_ * p_], {name}Gm[off_], r_, c_, p_, left_, {row_stride}, "
                      f"{axes[-1][1]}, static_cast<{ct}>({pad}));")
            self.depth -= 1
            self.emit("}")
            self._copied_in(target, _Tile(ct, t.dtype, rows_s, cols_s, pitch, home), queue)
            return
        self.emit(f"if (r_ == 0 || c_ == 0 || left_ >= {per_block}) {{")
        self.emit("    " + fill.format(target, "rs_ * p_"))
        self.depth += 1
        self._sync("V_MTE2")
        self.depth -= 1
        self.emit("} else {")
        self.emit("    if (ro_ > 0) { " + fill.format(target, "ro_ * p_") + " }")
        self.emit("    if (ro_ + r_ < rs_) { " + fill.format(f"{target}[(ro_ + r_) * p_]", "(rs_ - ro_ - r_) * p_") + " }")
        self.emit(f"    const int64_t e_ = AcAlignUp(left_ + c_, {per_block});")
        self.emit("    for (int64_t i_ = 0; e_ < p_ && i_ < r_; ++i_) { "
                  + fill.format(f"{target}[(ro_ + i_) * p_ + e_]", "p_ - e_") + " }")
        self.emit("}")
        self.emit(f"for (int64_t q_ = 0; c_ > 0 && q_ < r_; q_ += 4095) {{")
        self.emit(f"    const int64_t lb_ = left_ / {per_block} * {per_block}, lp_ = left_ - lb_;")
        self.emit(f"    const int64_t right_ = AcAlignUp(lp_ + c_, {per_block}) - (lp_ + c_);")
        self.emit(f"    const int64_t gap_ = p_ / {per_block} - (lp_ + c_ + right_) / {per_block};")
        self.emit(f"    AscendC::DataCopyPad({target}[(ro_ + q_) * p_ + lb_], {name}Gm[off_ + q_ * ({row_stride})], "
                  f"AscendC::DataCopyExtParams{{"
                  f"static_cast<uint16_t>(AcMin<int64_t>(r_ - q_, 4095)), static_cast<uint32_t>(c_ * sizeof({ct})), "
                  f"static_cast<uint32_t>(({row_stride} - c_) * sizeof({ct})), static_cast<uint32_t>(gap_), 0}}, "
                  f"AscendC::DataCopyPadExtParams<{ct}>{{true, static_cast<uint8_t>(lp_), "
                  f"static_cast<uint8_t>(right_), static_cast<{ct}>({pad})}});")
        self.emit("}")
        self.depth -= 1
        self.emit("}")
        self._copied_in(target, _Tile(ct, t.dtype, rows_s, cols_s, pitch, home), queue)

    def _window(self, target: str, name: str, e: A.Call, op):
        """Pooling: a width pass (Gathers of every input row at stride sw, offset b, combined) into
        wwork, then for 2-D windows a row pass (Gathers of rows i*sh + a) into the output."""
        from lowering_passes.bufferize import window_kwargs
        src = self.tiles[name]
        kernel, stride = window_kwargs(e)
        fn = "Max" if op.name == "WindowMax" else "Add"
        per_block = 32 // D.ITEMSIZE[src.dtype]
        kw, sw = self.scalar(kernel[-1]), self.scalar(stride[-1])
        two_d = len(kernel) == 2
        kh, sh = (self.scalar(kernel[0]), self.scalar(stride[0])) if two_d else ("1", "1")
        # dilation d: window element b of output j is input j * s + b * d (the window spans d(k-1)+1)
        dil = e.kwarg("dilation")
        dil = (tuple(dil.items) if isinstance(dil, A.Tuple) else (dil,) * len(kernel)) if dil is not None else ()
        dw, dh = (self.scalar(dil[-1]), self.scalar(dil[0]) if two_d else "1") if dil else ("1", "1")
        self.emit("{")
        self.depth += 1
        self.emit(f"const int64_t ri_ = {src.rows}, pi_ = {src.pitch}, "
                  f"ow_ = ({src.cols} - {dw} * ({kw} - 1) - 1) / {sw} + 1, owp_ = AcAlignUp(ow_, {per_block}), "
                  f"oh_ = {f'(ri_ - {dh} * ({kh} - 1) - 1) / {sh} + 1' if two_d else 'ri_'};")
        wwork, widx = self.work["wwork"], self.work["widx"]
        self.emit(f"BuildWindowTables({widx}, ri_, pi_, ow_, owp_, {sw}, oh_, {sh}, sizeof({src.ctype}));")
        self.emit(f"AscendC::LocalTensor<uint32_t> th_ = {widx}.ReinterpretCast<uint32_t>();")
        self.emit("AscendC::LocalTensor<uint32_t> tv_ = th_[ri_ * owp_];")
        # width pass: mid = wwork (2-D) or the output (1-D); tmp = the second half of wwork
        mid = wwork if two_d else target
        tmp = f"{wwork}[ri_ * owp_]"
        n = "static_cast<uint32_t>(ri_ * owp_)"
        self.emit(f"AscendC::Gather({mid}, {name}, th_, 0, {n});")
        self.emit(f"for (int64_t b_ = 1; b_ < {kw}; ++b_) {{")
        self.emit(f"    AscendC::Gather({tmp}, {name}, th_, static_cast<uint32_t>(b_ * {dw} * sizeof({src.ctype})), "
                  f"{n});")
        self.emit(f"    AscendC::PipeBarrier<PIPE_V>();")
        self.emit(f"    AscendC::{fn}({mid}, {mid}, {tmp}, static_cast<int32_t>(ri_ * owp_));")
        self.emit("}")
        count = "ri_ * owp_"
        if two_d:
            n = "static_cast<uint32_t>(oh_ * owp_)"
            self.emit(f"AscendC::Gather({target}, {wwork}, tv_, 0, {n});")
            self.emit(f"for (int64_t a_ = 1; a_ < {kh}; ++a_) {{")
            self.emit(f"    AscendC::Gather({tmp}, {wwork}, tv_, static_cast<uint32_t>(a_ * {dh} * owp_ * "
                      f"sizeof({src.ctype})), "
                      f"{n});")
            self.emit(f"    AscendC::PipeBarrier<PIPE_V>();")
            self.emit(f"    AscendC::{fn}({target}, {target}, {tmp}, static_cast<int32_t>(oh_ * owp_));")
            self.emit("}")
            count = "oh_ * owp_"
        if fn == "Add":
            self.emit(f"AscendC::Muls({target}, {target}, static_cast<{src.ctype}>(1.0f / static_cast<float>("
                      f"{kw} * {kh})), static_cast<int32_t>({count}));")
        self.emit(f"{target}_rows = oh_; {target}_cols = ow_; {target}_pitch = owp_;")
        self.depth -= 1
        self.emit("}")

    def _freeze(self, target: str):
        """Evaluate a new tile's extents once, into variables declared at the top of Process()."""
        t = self.tiles[target]
        if (t.rows, t.cols, t.pitch) == (f"{target}_rows", f"{target}_cols", f"{target}_pitch"):
            return   # frozen where it was made (a slice's extents are locals of its block)
        self.emit(f"{target}_rows = {t.rows}; {target}_cols = {t.cols}; {target}_pitch = {t.pitch};")
        # the expression each pitch variable holds (a cast between 2- and 4-byte types re-aligns rows)
        exprs = self.__dict__.setdefault("pitch_exprs", {})
        exprs[f"{target}_pitch"] = exprs.get(t.pitch, t.pitch)
        t.rows, t.cols, t.pitch = f"{target}_rows", f"{target}_cols", f"{target}_pitch"

    def _static_cols(self, src) -> str:
        """The static last extent of a loaded region: the slice's length (what bufferize sized the
        buffer by), at most the tensor's extent, as the DSL clamps it. Two tiles of one static shape
        then have one row pitch (x[:, 0:TC] with TC past the end and y[:, :]), which element-wise ops
        covering whole rows rely on."""
        parts = self._slice_parts(src)
        if not parts:
            return "1"      # a single element
        shape = self._gm_shape(src)
        subs = list(src.subscripts) if isinstance(src, A.Index) else []
        subs += [A.Slice(None, None)] * (len(shape) - len(subs))
        dim = self._dim([d for d, sub in zip(shape, subs) if isinstance(sub, A.Slice)][-1])
        return parts[-1][1] if parts[-1][1] == dim else f"AcMin<int64_t>({parts[-1][1]}, {dim})"

    def _gm_shape(self, src) -> tuple:
        base = src.base if isinstance(src, A.Index) else src
        decl = self.params.get(base.id)
        return decl.type.shape if decl is not None else self.scratch[base.id].type.shape

    def _sync(self, event: str):
        self.emit(f"{{ auto e_ = static_cast<event_t>(AscendC::GetTPipePtr()->FetchEventID(AscendC::HardEvent::{event})); "
                  f"AscendC::SetFlag<AscendC::HardEvent::{event}>(e_); "
                  f"AscendC::WaitFlag<AscendC::HardEvent::{event}>(e_); }}")

    def _store(self, s: A.Store):
        if is_gemm(s.value):
            self._gemm_store(s)
            return
        if not isinstance(s.value, A.Name) or s.value.id not in self.tiles:
            raise _unsupported("storing something other than a tile name", s)
        t = self.tiles[s.value.id]
        row_broadcast = self._check_broadcast(s)
        name, offset, axes = self._region(s.dst)
        gm_dtype = self._gm_dtype(s.dst)
        ct = _UB_CTYPES[gm_dtype]
        rows = axes[0][0] if len(axes) == 2 else "1"
        cols = axes[-1][0] if axes else "1"
        row_stride = axes[0][1] if len(axes) == 2 else cols
        space = self.buffers[t.home].type.space
        queue = space == "vecout"
        v = s.value.id
        if queue:
            self.emit(f"{v} = {t.home}.DeQue<{t.ctype}>();")
        elif space == "vecin":   # a loaded tile stored as it is (a copy): DeQue'd before this statement
            self._sync("MTE2_MTE3")
        else:
            self._sync("V_MTE3")
        if s.accumulate:
            self.emit(f"AscendC::SetAtomicAdd<{ct}>();")
        self.emit("{")
        self.depth += 1
        self.emit(f"const int64_t r_ = {rows}, c_ = {cols}, off_ = {offset};")
        self.emit("if (r_ > 0 && c_ > 0) {")
        self.depth += 1
        if strided_region(s.dst, self.k):
            self.emit(f"CopyOutStrided<{ct}>({name}Gm[off_], {v}, r_, c_, {'0' if row_broadcast else t.pitch}, "
                      f"{axes[0][1] if len(axes) == 2 else '0'}, {axes[-1][1]});")
        elif row_broadcast:   # every GM row from the tile's one row
            self.emit("for (int64_t q_ = 0; q_ < r_; ++q_) {")
            self.emit(f"    AscendC::DataCopyPad({name}Gm[off_ + q_ * ({row_stride})], {v}, "
                      f"{self._copy_params('1', 'c_', t.pitch, row_stride, ct, True)});")
            self.emit("}")
        else:
            self._rows_pad_copy(v, f"{name}Gm", "r_" if len(axes) == 2 else "1", "c_", t.pitch, row_stride, ct,
                                to_gm=True)
        self.depth -= 1
        self.emit("}")
        self.depth -= 1
        self.emit("}")
        if s.accumulate:
            self.emit("AscendC::SetAtomicNone();")
        if space == "vecin":   # the slot's next copy-in waits for this copy-out
            self._sync("MTE3_MTE2")
        elif not queue:
            self._sync("MTE3_V")

    def _check_broadcast(self, s: A.Store) -> bool:
        """Whether a stored tile is one row broadcast to the rows of its region (a [C] tile into
        y[0:R, :]: each GM row is copied from it). Other broadcasts (a [1] tile into y[i, :], a
        column [R, 1] into [R, C]) would be copied as if the tile had the region's shape: refused,
        naming the statement. (Scalars are broadcast by select, as a tile of the region's shape.)"""
        region, value = self.ck.expr_types.get(id(s.dst)), self.ck.expr_types.get(id(s.value))
        if not (isinstance(value, TTile) and hasattr(region, "shape")):
            return False
        r, v = tuple(region.shape), tuple(value.shape)
        if len(r) == 2 and r[0] > 1 and (len(v) == 1 or (len(v) == 2 and v[0] == 1)) and \
                not (v[-1] == 1 and r[-1] > 1):
            return True
        lead = r[:len(r) - len(v)] if len(v) <= len(r) else ()
        tail = r[len(r) - len(v):] if len(v) <= len(r) else r
        if len(v) > len(r) or any(d > 1 for d in lead) or any(a == 1 and b > 1 for a, b in zip(v, tail)):
            from ..dsl.printer import stmt_lines
            from lowering_passes.base import span_text
            text = span_text(s.span, getattr(self.k, "source", None)) or stmt_lines(s)[0].strip()
            raise DSLError(f"emitter: `{text}` stores a tile of shape [{', '.join(map(str, v))}] "
                           f"to a GM region of shape [{', '.join(map(str, r))}], a broadcast, which the AscendC "
                           f"emitter does not lower",
                           s.span, kind="lowering error",
                           hint="store a tile of the region's shape (broadcast it first, e.g. with an element-wise "
                                "op against a full-size tile), or store each row separately")
        return False

    # ------------------------------------------------------------ the Matmul API
    def _gemm_flags(self, e: A.Call) -> tuple[bool, bool]:
        return tuple(bool(self._kw(e, f, False)) for f in ("transpose_a", "transpose_b"))

    def _matmul_type(self, g: A.Store) -> str:
        e = g.value
        ta, tb = self._gemm_flags(e)
        ab = _UB_CTYPES[self._gm_dtype(e.args[0])]
        c = _UB_CTYPES[self._gm_dtype(g.dst)]

        def mt(ct, trans=False):
            return f"MatmulType<AscendC::TPosition::GM, CubeFormat::ND, {ct}{', true' if trans else ''}>"
        return f"Matmul<{mt(ab, ta)}, {mt(ab, tb)}, {mt(c)}>"

    def _gm_dtype(self, src) -> str:
        name = (src.base if isinstance(src, A.Index) else src).id
        return (self.params.get(name) or self.scratch.get(name)).type.dtype

    def _cube_tiling(self, i: int, g: A.Store) -> list[str]:
        """TCubeTiling filled in the kernel from the dims and the lowering's block and base sizes
        (field names: research/ascendc_api.md section 4.1), then the Matmul object registered."""
        e = g.value
        ta, tb = self._gemm_flags(e)
        a_shape, b_shape = (tuple(self._gm_shape(x))[-2:] for x in e.args)   # batch axes are indexed
        a_ext, b_ext = (self._slice_parts(x) for x in e.args)
        (m_dim, ka), (kb, n_dim) = (a_shape[::-1] if ta else a_shape), (b_shape[::-1] if tb else b_shape)
        single_m = a_ext[1 if ta else 0][1]
        single_n = b_ext[0 if tb else 1][1]
        single_k = a_ext[0 if ta else 1][1]
        bm, bn, bk = (item.value for item in self.ck.expr_types[id(e.kwarg("base"))].items)
        t = f"cubeTiling{i}"
        fields = {"usedCoreNum": "AscendC::GetBlockNum()", "M": self._dim(m_dim), "N": self._dim(n_dim),
                  "Ka": self._dim(ka), "Kb": self._dim(kb), "singleCoreM": single_m, "singleCoreN": single_n,
                  "singleCoreK": single_k, "baseM": bm, "baseN": bn, "baseK": bk, "depthA1": 2, "depthB1": 2,
                  "stepM": 1, "stepN": 1, "stepKa": 1, "stepKb": 1, "dbL0A": 2, "dbL0B": 2,
                  "dbL0C": 2 if 2 * bm * bn * 4 <= 128 * 1024 else 1,   # FIX drains one while M fills the other
                  "shareL0CSize": bm * bn * 4, "batchM": 1, "batchN": 1, "singleBatchM": 1, "singleBatchN": 1}
        lines = [f"        {t} = TCubeTiling{{}};"]
        lines += [f"        {t}.{k} = static_cast<int32_t>({v});" for k, v in fields.items()]
        lines.append(f"        REGIST_MATMUL_OBJ(&pipe, AscendC::GetSysWorkSpacePtr(), mm{i}, &{t});")
        return lines

    def _gemm_store(self, s: A.Store):
        e, i = s.value, next(k for k, g in enumerate(self.gemms) if g is s)
        ta, tb = self._gemm_flags(e)
        c_name, c_off, _ = self._region(s.dst)
        (a_name, a_off, a_axes), (b_name, b_off, b_axes) = (self._region(x) for x in e.args)
        m, k = (a_axes[1][0], a_axes[0][0]) if ta else (a_axes[0][0], a_axes[1][0])
        n = b_axes[0][0] if tb else b_axes[1][0]
        self.emit("{")
        self.depth += 1
        self.emit(f"const int64_t m_ = {m}, n_ = {n}, k_ = {k};")
        self.emit("if (m_ > 0 && n_ > 0 && k_ > 0) {   // cores past the grid's last block have none")
        self.depth += 1
        self.emit(f"mm{i}.SetTensorA({a_name}Gm[{a_off}], {str(ta).lower()});")
        self.emit(f"mm{i}.SetTensorB({b_name}Gm[{b_off}], {str(tb).lower()});")
        self.emit(f"mm{i}.SetTail(static_cast<int>(m_), static_cast<int>(n_), static_cast<int>(k_));")
        self.emit(f"mm{i}.IterateAll({c_name}Gm[{c_off}]);")
        self.depth -= 1
        self.emit("}")
        self.depth -= 1
        self.emit("}")

    # ------------------------------------------------------------ API ops
    def _api(self, target: str, e: A.Call):
        op = OPS[e.func]
        form = op.form
        args = e.args
        if form == "getvalue":
            if isinstance(args[0], A.Index):   # one element of a tile: t[i], t[i, j]
                self.emit(f"{target} = {args[0].base.id}.GetValue({self._element(args[0])});")
            else:
                self.emit(f"{target} = {args[0].id}.GetValue(0);")
            return
        if form == "reduce" and op.name == "ReduceProd":
            self._reduce_prod(target, args[0].id)
            return
        if form == "reduce":
            src = self.tiles[args[0].id]
            fn = op.api
            rwork = self.work["rwork"]
            self.emit("{")
            self.depth += 1
            self.emit(f"if ({src.rows} == 1 || {src.cols} == {src.pitch}) {{")
            self.emit(f"    AscendC::{fn}<{src.ctype}>({rwork}, {args[0].id}, {rwork}, static_cast<int32_t>("
                      f"{src.rows} * {src.cols}));")
            self.emit(f"    {target} = {rwork}.GetValue(0);")
            self.emit("} else {")
            combine = {"ReduceSum": "{t} = {t} + v_;", "ReduceMax": "{t} = v_ > {t} ? v_ : {t};",
                       "ReduceMin": "{t} = v_ < {t} ? v_ : {t};"}[fn].format(t=target)
            self.emit(f"    for (int64_t r_ = 0; r_ < {src.rows}; ++r_) {{")
            self.emit(f"        AscendC::{fn}<{src.ctype}>({rwork}, {args[0].id}[r_ * {src.pitch}], {rwork}, "
                      f"static_cast<int32_t>({src.cols}));")
            self.emit(f"        {src.ctype} v_ = {rwork}.GetValue(0);")
            self.emit(f"        if (r_ == 0) {{ {target} = v_; }} else {{ {combine} }}")
            self.emit("    }")
            self.emit("}")
            self.depth -= 1
            self.emit("}")
            return
        t = self.ck.expr_types[id(e)]
        out = e.kwarg("out").id
        ct = _UB_CTYPES[t.dtype]
        queue = self.buffers[out].type.space != "veccalc"
        self.emit(f"{target} = {out}.AllocTensor<{ct}>();" if queue else f"{target} = {out};")
        if form == "duplicate":
            shape = args[0].items if isinstance(args[0], A.Tuple) else (args[0],)
            per_block = 32 // D.ITEMSIZE[t.dtype]
            cols = self.scalar(shape[-1]) if shape else "1"
            rows = self.scalar(shape[0]) if len(shape) == 2 else "1"
            tile = _Tile(ct, t.dtype, rows, cols, f"AcAlignUp({cols}, {per_block})", out)
            self.emit(f"AscendC::Duplicate<{ct}>({target}, static_cast<{ct}>({self.scalar(args[1])}), "
                      f"static_cast<int32_t>({tile.count}));")
        elif form in ("rowvec", "colvec"):
            tile = self._broadcast(target, e, op, ct, out)
        elif form == "outer":
            from .outer import emit_outer
            tile = emit_outer(self, target, e, op, ct, out)
        elif form == "rowreduce":
            src = self.tiles[args[0].id]
            keep = bool(self._kw(e, "keepdims", False))
            per_block = 32 // D.ITEMSIZE[src.dtype]
            at = f"r_{f' * {per_block}' if keep else ''}"
            if keep:   # one value per 32-byte row: zero the rest so element-wise ops read defined lanes
                self.emit(f"AscendC::Duplicate({target}, static_cast<{ct}>(0), static_cast<int32_t>({src.rows} * "
                          f"{per_block}));")
            self.emit(f"for (int64_t r_ = 0; r_ < {src.rows}; ++r_) {{")
            if op.of == "prod":
                # no ReduceProd API: the row (copied into swork, padded with ones to whole 64-element
                # chunks) folded chunk by chunk with Mul, then its 64 lanes on the scalar unit
                swork = self.work["swork"]
                self.emit(f"    const int64_t k_ = AcAlignUp({src.cols}, 64);")
                self.emit(f"    AscendC::Duplicate({swork}, static_cast<{ct}>(1), static_cast<int32_t>(k_));")
                self.emit("    AscendC::PipeBarrier<PIPE_V>();")
                self.emit(f"    AcCopy({swork}, {args[0].id}[r_ * {src.pitch}], {src.cols});")
                self.emit("    for (int64_t q_ = 64; q_ < k_; q_ += 64) {")
                self.emit("        AscendC::PipeBarrier<PIPE_V>();")
                self.emit(f"        AscendC::Mul({swork}, {swork}, {swork}[q_], 64);")
                self.emit("    }")
                self.emit(f"    {src.ctype} p_ = 1;")
                self.emit(f"    for (int64_t c_ = 0; c_ < 64; ++c_) {{ p_ = p_ * {swork}.GetValue(c_); }}")
                self.emit(f"    {target}.SetValue({at}, p_);")
            else:
                fn = {"sum": "ReduceSum", "max": "ReduceMax", "min": "ReduceMin"}[op.of]
                rwork = self.work["rwork"]
                self.emit(f"    AscendC::{fn}<{src.ctype}>({rwork}, {args[0].id}[r_ * {src.pitch}], {rwork}, "
                          f"static_cast<int32_t>({src.cols}));")
                self.emit(f"    {target}.SetValue({at}, {rwork}.GetValue(0));")
            self.emit("}")
            tile = (_Tile(ct, t.dtype, src.rows, "1", str(per_block), out) if keep
                    else _Tile(ct, t.dtype, "1", src.rows, f"AcAlignUp({src.rows}, {per_block})", out))
        elif form == "copy" and isinstance(args[0], A.Index):
            tile = self._slice(target, args[0], t, ct, out)
        elif form == "gather":   # codegen/indexing.py
            tile = indexing.emit_gather(self, target, e, ct, t.dtype, out, _Tile)
        elif form == "argrows":   # codegen/indexing.py
            tile = indexing.emit_argrows(self, target, e, op, ct, out, _Tile)
        elif form == "scatter":   # codegen/indexing.py
            tile = indexing.emit_scatter(self, target, e, op, out, _Tile)
        else:
            src = self.tiles[(args[1] if form == "select" else args[0]).id]
            tile = _Tile(ct, t.dtype, src.rows, src.cols, src.pitch, out)
            n = f"static_cast<int32_t>({src.count})"
            a = [x.id if isinstance(x, A.Name) and x.id in self.tiles else None for x in args]
            if op.name in ("Not", "And", "Or"):
                # on 16-bit views (And/Or/Not take int16/uint16): a bool tile is a bit mask here (select
                # makes one of a mask from GM first), one bit per element; integers are whole elements
                units = (f"AcCdiv({src.count}, 16)" if t.dtype == "bool" else
                         f"({src.count}) * {D.ITEMSIZE[t.dtype] // 2}")
                views = [f"{x}.ReinterpretCast<uint16_t>()" for x in [target] + a[:op.nargs]]
                self.emit(f"AscendC::{op.api}({', '.join(views)}, static_cast<int32_t>({units}));")
            elif form in ("unary",):
                self.emit(f"AscendC::{op.api}({target}, {a[0]}, {n});")
            elif form == "binary":
                self.emit(f"AscendC::{op.api}({target}, {a[0]}, {a[1]}, {n});")
            elif form == "scalar":
                self.emit(f"AscendC::{op.api}({target}, {a[0]}, static_cast<{src.ctype}>({self.scalar(args[1])}), "
                          f"{n});")
            elif form == "window":
                self._window(target, a[0], e, op)
                tile = _Tile(ct, t.dtype, f"{target}_rows", f"{target}_cols", f"{target}_pitch", out)
            elif form == "scan":
                self._scan(target, a[0], op, bool(self._kw(e, "reverse", False)))
            elif form == "rows":   # row 0 is the accumulator; rows 1.. are folded in with Add/Max/Min/Mul
                fn = {"sum": "Add", "max": "Max", "min": "Min", "prod": "Mul"}[op.of]
                tile = _Tile(ct, t.dtype, "1", src.cols, src.pitch, out)
                cols = f"static_cast<int32_t>({src.cols})"
                if out != src.home:   # row 0 (its cols elements: a DataCopy of whole blocks would read
                    # the row's padding, which the op that made the tile need not have written)
                    self.emit(f"AscendC::Muls({target}, {a[0]}, static_cast<{src.ctype}>(1), {cols});")
                self.emit(f"for (int64_t r_ = 1; r_ < {src.rows}; ++r_) {{")
                self.emit(f"    AscendC::PipeBarrier<PIPE_V>();")
                self.emit(f"    AscendC::{fn}({target}, {target}, {a[0]}[r_ * {src.pitch}], {cols});")
                self.emit("}")
            elif form == "copy":
                # a comparison's mask holds one bit per element
                n = f"AcCdiv({src.count}, 16) * 2" if a[0] in self.bit_masks else src.count
                self.emit(f"AcCopy({target}, {a[0]}, {n});")
            elif form == "cast":
                mode = e.kwarg("round")
                rmode = self._round(src.dtype, t.dtype, mode.value if mode is not None else None)
                repitch = _cast_pitch(src, self.__dict__.get("pitch_exprs", {}).get(src.pitch, src.pitch), t.dtype)
                if repitch is None:
                    self.emit(f"AscendC::Cast({target}, {a[0]}, AscendC::RoundMode::{rmode}, "
                              f"static_cast<uint32_t>({src.count}));")
                else:
                    # rows of a 2-D tile start on 32-byte blocks, so a cast between 2- and 4-byte types
                    # gives the rows the pitch every tile of the result's dtype and static shape has
                    # (bufferize sizes its buffer so): row by row where the two pitches differ
                    tile = _Tile(ct, t.dtype, src.rows, src.cols, repitch, out)
                    self.emit(f"if (({src.rows}) > 1 && ({src.pitch}) != ({repitch})) {{")
                    # the row gaps are zeroed: element-wise ops over whole rows read them
                    self.emit(f"    AcZeroFill({target}, (({src.rows}) - 1) * ({repitch}));")
                    self.emit("    AscendC::PipeBarrier<PIPE_V>();")
                    self.emit(f"    for (int64_t r_ = 0; r_ < {src.rows}; ++r_) {{")
                    self.emit(f"        AscendC::Cast({target}[r_ * ({repitch})], {a[0]}[r_ * ({src.pitch})], "
                              f"AscendC::RoundMode::{rmode}, static_cast<uint32_t>({src.cols}));")
                    self.emit("    }")
                    self.emit("} else {")
                    self.emit(f"    AscendC::Cast({target}, {a[0]}, AscendC::RoundMode::{rmode}, "
                              f"static_cast<uint32_t>({src.count}));")
                    self.emit("}")
            elif form == "compare":
                mode = API_COMPARE_MODES[e.kwarg("mode").value]
                per_repeat = 256 // D.ITEMSIZE[src.dtype]
                count = f"static_cast<uint32_t>(AcAlignUp({src.count}, {per_repeat}))"
                # Compare works on whole 256-byte repeats: fill the operands' unused tail of the last
                # repeat so no lane reads uninitialised UB: the rest of the data's last 32-byte block on
                # the scalar unit (a Cast's output ends exactly at the data), then whole blocks.
                per_block = 32 // D.ITEMSIZE[src.dtype]
                for name in (x for x in a[:2] if x is not None):
                    self.emit(f"{{ const int64_t n_ = {src.count}, a_ = AcAlignUp(n_, {per_block}), "
                              f"e_ = AcAlignUp(n_, {per_repeat}); for (int64_t i_ = n_; i_ < a_; ++i_) {{ "
                              f"{name}.SetValue(i_, static_cast<{src.ctype}>(0)); }} if (e_ > a_) {{ "
                              f"AscendC::Duplicate({name}[a_], static_cast<{src.ctype}>(0), "
                              f"static_cast<int32_t>(e_ - a_)); }} }}")
                if a[1] is None:
                    self.emit(f"AscendC::CompareScalar({target}, {a[0]}, static_cast<{src.ctype}>("
                              f"{self.scalar(args[1])}), AscendC::CMPMODE::{mode}, {count});")
                else:
                    self.emit(f"AscendC::Compare({target}, {a[0]}, {a[1]}, AscendC::CMPMODE::{mode}, {count});")
            elif form == "select":
                # Select moves bits: integers are selected through a float view of the same width
                fview = {"i32": "float", "i16": "half"}.get(t.dtype)
                view = (lambda x: f"{x}.ReinterpretCast<{fview}>()") if fview else (lambda x: x)
                if a[2] is None:
                    value = f"static_cast<{src.ctype}>({self.scalar(args[2])})"
                    if fview:
                        value = f"AcBitsAs<{fview}>({value})"
                    self.emit(f"AscendC::Select({view(target)}, {a[0]}, {view(a[1])}, {value}, "
                              f"AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, static_cast<uint32_t>({src.count}));")
                else:
                    self.emit(f"AscendC::Select({view(target)}, {a[0]}, {view(a[1])}, {view(a[2])}, "
                              f"AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, static_cast<uint32_t>({src.count}));")
            else:
                raise _unsupported(f"API op {op.name}", e)
        if queue:
            self.emit(f"{out}.EnQue({target});")
        if t.dtype == "bool" and (form == "compare" or op.name in ("Not", "And", "Or") or
                                  form == "copy" and isinstance(args[0], A.Name) and args[0].id in self.bit_masks):
            self.bit_masks.add(target)
        self.tiles[target] = tile
        self._freeze(target)

    def _broadcast(self, target: str, e: A.Call, op, ct: str, out: str) -> _Tile:
        """[R, C] op row vector: one level-2 op per row with the vector; op column vector [R, 1]:
        per row, the vector's element on the scalar unit and the tile-scalar op."""
        x, y = (self.tiles[a.id] for a in e.args)
        nx, ny = (a.id for a in e.args)
        # the vector is the operand whose static shape is not the result's ([C] or [1, C]; [R, 1])
        big = y if op.form == "rowvec" and self._is_vector_operand(e.args[0], e) else x
        name = op.name[:-6]
        # whole padded rows except the last, so the result's row padding is as defined as the
        # inputs' (later element-wise ops cover it)
        cols = f"static_cast<int32_t>(r_ + 1 < {big.rows} ? {big.pitch} : {big.cols})"
        if op.form == "rowvec":
            # those whole rows read the row vector up to the pitch: define its padding (1, harmless for
            # every op, Div included) where nothing wrote it (a vector shorter than a 32-byte block)
            vec, nv = (x, nx) if big is y else (y, ny)
            per_block = 32 // D.ITEMSIZE[vec.dtype]
            self.emit(f"if ({big.rows} > 1) {{ const int64_t n_ = {vec.cols}, a_ = AcAlignUp(n_, {per_block}), "
                      f"p_ = {big.pitch}; for (int64_t i_ = n_; i_ < a_ && i_ < p_; ++i_) {{ {nv}.SetValue(i_, "
                      f"static_cast<{vec.ctype}>(1)); }} if (p_ > a_) {{ AscendC::Duplicate({nv}[a_], "
                      f"static_cast<{vec.ctype}>(1), static_cast<int32_t>(p_ - a_)); }} }}")
        self.emit(f"for (int64_t r_ = 0; r_ < {big.rows}; ++r_) {{")
        if op.form == "rowvec":
            a = f"{nx}[r_ * {x.pitch}]" if big is x else nx
            b = f"{ny}[r_ * {y.pitch}]" if big is y else ny
            self.emit(f"    AscendC::{name}({target}[r_ * {big.pitch}], {a}, {b}, {cols});")
        else:
            self.emit(f"    const {x.ctype} v_ = {ny}.GetValue(r_ * {y.pitch});")
            scalar_op = {"Add": ("Adds", "v_"), "Sub": ("Adds", "-v_"), "Mul": ("Muls", "v_"),
                         "Div": ("Muls", f"static_cast<{x.ctype}>(1) / v_"), "Max": ("Maxs", "v_"),
                         "Min": ("Mins", "v_")}[name]
            self.emit(f"    AscendC::{scalar_op[0]}({target}[r_ * {big.pitch}], {nx}[r_ * {x.pitch}], "
                      f"static_cast<{x.ctype}>({scalar_op[1]}), {cols});")
        self.emit("}")
        return _Tile(ct, big.dtype, big.rows, big.cols, big.pitch, out)

    def _subscripts(self, ix: A.Index, src: _Tile) -> list:
        """Per axis of the indexed tile (rows, cols; a 1-D tile has cols only): ("slice", first,
        count), clamped to the tile's run-time extent as the DSL clamps, or ("index", i)."""
        extents = [src.rows, src.cols] if self._rank(ix.base) == 2 else [src.cols]
        subs = list(ix.subscripts) + [A.Slice(None, None)] * (len(extents) - len(ix.subscripts))
        out = []
        for sub, n in zip(subs, extents):
            if isinstance(sub, A.Slice):
                lo = f"AcClamp({self.scalar(sub.start)}, {n})" if sub.start is not None else "0"
                hi = f"AcClamp({self.scalar(sub.stop)}, {n})" if sub.stop is not None else f"({n})"
                out.append(("slice", lo, f"AcMax<int64_t>({hi} - {lo}, 0)"))
            else:
                out.append(("index", f"({self.scalar(sub)})"))
        return out

    def _rank(self, node) -> int:
        return len(self.ck.expr_types[id(node)].shape)

    def _element(self, ix: A.Index) -> str:
        """The offset of the element ``t[i]`` / ``t[i, j]`` in its tile (rows ``pitch`` apart)."""
        src = self.tiles[ix.base.id]
        subs = self._subscripts(ix, src)
        if len(subs) == 2:
            return f"{subs[0][1]} * {src.pitch} + {subs[1][1]}"
        return subs[0][1]

    def _slice(self, target: str, ix: A.Index, t, ct: str, out: str) -> _Tile:
        """A slice of a tile (``t[a:b]``, ``t[:, a:b]``, ``t[i]``, ``t[a:b, j]``): Gathers from the tile,
        at any start, 32-byte aligned or not (gidx: the byte offsets of one row of the slice, or of
        a column's elements); 1- and 8-byte types (which Gather does not move) on the scalar unit.
        Rows of a 2-D slice are ``pitch`` apart, the static length aligned to 32 bytes, as bufferize
        sized its buffer; the gaps of a narrower run-time slice are zeroed first, so element-wise ops
        that cover whole rows read defined values."""
        from lowering_passes.bufferize import slice_extent
        src = self.tiles[ix.base.id]
        name = ix.base.id
        size = D.ITEMSIZE[t.dtype]
        per_block = 32 // size
        subs = self._subscripts(ix, src)
        if len(subs) == 1:
            subs = [("index", "0")] + subs          # a 1-D tile is one row
        (rk, r0, nr), (ck_, c0, nc) = (x + (None,) if len(x) == 2 else x for x in subs)
        gidx = self.work["gidx"]
        vec = size in (2, 4)
        self.emit("{")
        self.depth += 1
        if rk == "slice" and ck_ == "slice":        # a block of rows and columns: one Gather per row
            sub = (list(ix.subscripts) + [A.Slice(None, None)] * 2)[1]
            consts = {c.name for c in self.k.body if isinstance(c, A.Const)} | set(self.members) | {"CORES"}
            ext = slice_extent(sub, None, consts) if isinstance(sub, A.Slice) else None
            # the static length at most the tile's (the pitch a load of that shape has: _static_cols)
            pitch = f"AcMin<int64_t>(AcAlignUp({self.scalar(ext)}, {per_block}), {src.pitch})" if ext is not None \
                else src.pitch
            self.emit(f"const int64_t r0_ = {r0}, nr_ = {nr}, c0_ = {c0}, nc_ = {nc}, p_ = {pitch};")
            # a Gather writes exactly nc_ elements of each row: zero the gaps (whole rows but the last)
            self.emit(f"if (nr_ > 1 && nc_ < p_) {{ AcZeroFill({target}, (nr_ - 1) * p_); "
                      f"AscendC::PipeBarrier<PIPE_V>(); }}")
            if vec:
                self._gather_table(gidx, "nc_", "1", size)
                self.emit("for (int64_t k_ = 0; k_ < nr_; ++k_) {")
                self.emit(f"    AscendC::Gather({target}[k_ * p_], {name}, {gidx}.ReinterpretCast<uint32_t>(), "
                          f"static_cast<uint32_t>(((r0_ + k_) * {src.pitch} + c0_) * {size}), "
                          f"static_cast<uint32_t>(nc_));")
                self.emit("}")
            else:
                self.emit(f"for (int64_t k_ = 0; k_ < nr_; ++k_) {{ for (int64_t j_ = 0; j_ < nc_; ++j_) {{ "
                          f"{target}.SetValue(k_ * p_ + j_, {name}.GetValue((r0_ + k_) * {src.pitch} + c0_ + j_)); }} }}")
            tile = _Tile(ct, t.dtype, "nr_", "nc_", "p_", out)
        elif ck_ == "slice":                         # (part of) one row
            self.emit(f"const int64_t at_ = {r0} * {src.pitch} + {c0}, n_ = {nc};")
            if vec:
                self._gather_table(gidx, "n_", "1", size)
                self.emit(f"AscendC::Gather({target}, {name}, {gidx}.ReinterpretCast<uint32_t>(), "
                          f"static_cast<uint32_t>(at_ * {size}), static_cast<uint32_t>(n_));")
            else:
                self.emit(f"for (int64_t j_ = 0; j_ < n_; ++j_) {{ {target}.SetValue(j_, {name}.GetValue(at_ + j_)); }}")
            tile = _Tile(ct, t.dtype, "1", "n_", f"AcAlignUp(n_, {per_block})", out)
        else:                                        # (part of) one column: elements a pitch apart
            self.emit(f"const int64_t at_ = {r0} * {src.pitch} + {c0}, n_ = {nr};")
            if vec:
                self._gather_table(gidx, "n_", src.pitch, size)
                self.emit(f"AscendC::Gather({target}, {name}, {gidx}.ReinterpretCast<uint32_t>(), "
                          f"static_cast<uint32_t>(at_ * {size}), static_cast<uint32_t>(n_));")
            else:
                self.emit(f"for (int64_t j_ = 0; j_ < n_; ++j_) {{ {target}.SetValue(j_, {name}.GetValue(at_ + j_ * "
                          f"{src.pitch})); }}")
            tile = _Tile(ct, t.dtype, "1", "n_", f"AcAlignUp(n_, {per_block})", out)
        # the extents are locals of this block: freeze them before it closes
        self.tiles[target] = tile
        self._freeze(target)
        self.depth -= 1
        self.emit("}")
        return self.tiles[target]

    def _gather_table(self, gidx: str, n: str, stride: str, size: int):
        """gidx[i] = i * stride * size: the byte offsets of n elements ``stride`` apart."""
        self.emit(f"AscendC::CreateVecIndex({gidx}, static_cast<int32_t>(0), static_cast<uint32_t>({n}));")
        self.emit(f"AscendC::Muls({gidx}, {gidx}, static_cast<int32_t>(({stride}) * {size}), "
                  f"static_cast<int32_t>({n}));")

    def _is_vector_operand(self, node, e) -> bool:
        t, r = self.ck.expr_types.get(id(node)), self.ck.expr_types.get(id(e))
        return isinstance(t, TTile) and isinstance(r, TTile) and tuple(t.shape) != tuple(r.shape)

    def _kw(self, e: A.Call, name: str, default):
        v = e.kwarg(name)
        if v is None:
            return default
        if isinstance(v, A.Name) and v.id in ("True", "False"):
            return v.id == "True"
        return getattr(v, "value", default)

    def _buffer_elems(self, home: str) -> str:
        return " * ".join(self._dim(d) for d in self.buffers[home].type.shape)

    def _fill_tail(self, name: str, src: _Tile, identity: str):
        """Set a 1-D tile's elements from its length to ``s_`` to ``identity``: the partial 32-byte
        block element by element, the rest with Duplicate. ``s_`` is the end of its buffer, or of
        swork less its extra row when that is shorter: a buffer shared with a bigger tile (colouring)
        is longer than the scan work areas, which bufferize sized for this tile."""
        per_block = 32 // D.ITEMSIZE[src.dtype]
        size = f"AcMin<int64_t>({self._buffer_elems(src.home)}, ({self._buffer_elems(self.work['swork'])}) - 64)"
        self.emit(f"const int64_t n_ = {src.count}, a_ = AcAlignUp(n_, {per_block}), s_ = {size};")
        self.emit(f"for (int64_t i_ = n_; i_ < a_ && i_ < s_; ++i_) {{ {name}.SetValue(i_, static_cast<{src.ctype}>"
                  f"({identity})); }}")
        self.emit(f"if (s_ > a_) {{ AscendC::Duplicate({name}[a_], static_cast<{src.ctype}>({identity}), "
                  f"static_cast<int32_t>(s_ - a_)); }}")

    def _reduce_prod(self, target: str, name: str):
        """Product of a 1-D tile: multiply its 64-element rows into one row, then its 64 lanes."""
        src = self.tiles[name]
        swork = self.work["swork"]
        self.emit("{")
        self.depth += 1
        self._fill_tail(name, src, "1")
        self.emit("const int64_t rows_ = s_ / 64;")
        self.emit(f"if (rows_ == 1) {{ AscendC::DataCopy({swork}, {name}, 64); }}")
        self.emit(f"else {{ AscendC::Mul({swork}, {name}, {name}[64], 64); }}")
        self.emit("for (int64_t r_ = 2; r_ < rows_; ++r_) {")
        self.emit(f"    AscendC::PipeBarrier<PIPE_V>();")
        self.emit(f"    AscendC::Mul({swork}, {swork}, {name}[r_ * 64], 64);")
        self.emit("}")
        self.emit(f"{src.ctype} p_ = 1;")
        self.emit(f"for (int64_t c_ = 0; c_ < 64; ++c_) {{ p_ = p_ * {swork}.GetValue(c_); }}")
        self.emit(f"{target} = p_;")
        self.depth -= 1
        self.emit("}")

    def _scan(self, target: str, name: str, op, reverse: bool):
        """Inclusive scan of a 1-D tile of s_ elements seen as 64 chunks of rows_ = s_ / 64:
        Gather transposes it (swork row r = element r of every chunk), rows are accumulated
        (each row = 64 lanes, one vector op), the chunk totals get an exclusive scan on the
        scalar unit, every row adds its chunk's offset, and Gather puts it back in order."""
        src = self.tiles[name]
        fn, identity = ("Add", "0") if op.name.startswith("CumSum") else ("Mul", "1")
        exclusive = op.name.endswith("Exclusive")
        swork, sidx = self.work["swork"], self.work["sidx"]
        self.emit("{")
        self.depth += 1
        self._fill_tail(name, src, identity)
        self.emit("const int64_t rows_ = s_ / 64;")
        self.emit(f"BuildScanTables({sidx}, s_, sizeof({src.ctype}));")
        self.emit(f"AscendC::LocalTensor<uint32_t> in_ = {sidx}.ReinterpretCast<uint32_t>();")
        self.emit("AscendC::LocalTensor<uint32_t> out_ = in_[s_];")
        self.emit(f"AscendC::Gather({swork}, {name}, in_, 0, static_cast<uint32_t>(s_));")
        if reverse:
            self.emit("for (int64_t r_ = rows_ - 2; r_ >= 0; --r_) {")
            self.emit("    AscendC::PipeBarrier<PIPE_V>();")
            self.emit(f"    AscendC::{fn}({swork}[r_ * 64], {swork}[r_ * 64], {swork}[(r_ + 1) * 64], 64);")
        else:
            self.emit("for (int64_t r_ = 1; r_ < rows_; ++r_) {")
            self.emit("    AscendC::PipeBarrier<PIPE_V>();")
            self.emit(f"    AscendC::{fn}({swork}[r_ * 64], {swork}[r_ * 64], {swork}[(r_ - 1) * 64], 64);")
        self.emit("}")
        total_row = "0" if reverse else "(rows_ - 1) * 64"
        lanes = "for (int64_t c_ = 63; c_ >= 0; --c_)" if reverse else "for (int64_t c_ = 0; c_ < 64; ++c_)"
        combine = "acc_ + v_" if fn == "Add" else "acc_ * v_"
        self.emit(f"{src.ctype} acc_ = {identity};")
        self.emit(f"{lanes} {{ {src.ctype} v_ = {swork}.GetValue({total_row} + c_); {swork}.SetValue(s_ + c_, acc_); "
                  f"acc_ = {combine}; }}")
        if exclusive:
            # element r of chunk c takes the inclusive value of its predecessor: row r - 1's (row r + 1's
            # for a reverse scan) with the chunk's offset; the first row (the last) is the offset itself,
            # the total of the chunks before (after) it. Rows go in the order that reads each row
            # before it is written.
            if reverse:
                self.emit("for (int64_t r_ = 0; r_ + 1 < rows_; ++r_) {")
                src_row = "(r_ + 1) * 64"
            else:
                self.emit("for (int64_t r_ = rows_ - 1; r_ >= 1; --r_) {")
                src_row = "(r_ - 1) * 64"
            self.emit("    AscendC::PipeBarrier<PIPE_V>();")
            self.emit(f"    AscendC::{fn}({swork}[r_ * 64], {swork}[{src_row}], {swork}[s_], 64);")
            self.emit("}")
            self.emit("AscendC::PipeBarrier<PIPE_V>();")
            self.emit(f"AcCopy({swork}[{'(rows_ - 1) * 64' if reverse else '0'}], {swork}[s_], 64);")
        else:
            self.emit("for (int64_t r_ = 0; r_ < rows_; ++r_) {")
            self.emit(f"    AscendC::{fn}({swork}[r_ * 64], {swork}[r_ * 64], {swork}[s_], 64);")
            self.emit("}")
        self.emit(f"AscendC::Gather({target}, {swork}, out_, 0, static_cast<uint32_t>(s_));")
        self.depth -= 1
        self.emit("}")

    @staticmethod
    def _round(src: str, dst: str, mode) -> str:
        if mode is not None:
            return _ROUND[mode]
        if dst in D.INTS and src in D.FLOATS:
            return "CAST_TRUNC"
        if D.ITEMSIZE[dst] < D.ITEMSIZE[src] and dst in D.FLOATS:
            return "CAST_RINT"
        return "CAST_NONE"

    # ------------------------------------------------------------ scalar expressions
    def scalar(self, e) -> str:
        t = self.ck.expr_types.get(id(e))
        if isinstance(e, A.Int):
            return f"{e.value}"
        if isinstance(e, A.Float):
            return _float(e.value, self._ctype(t) if t is not None else "float")
        if isinstance(e, A.Name):
            if e.id == "CORES":
                return "AscendC::GetBlockNum()"
            if e.id == "inf":
                return "AC_INF"
            if e.id == "nan":
                return "AC_NAN"
            if e.id in ("True", "False"):
                return "1" if e.id == "True" else "0"
            return e.id
        if isinstance(e, A.Unary):
            # parenthesised operand: -(-1.5f), never the decrement --1.5f
            if e.op == "~":
                ot = self.ck.expr_types.get(id(e.operand))
                return f"(!({self.scalar(e.operand)}))" if getattr(ot, "dtype", None) == "bool" \
                    else f"(~({self.scalar(e.operand)}))"
            return f"(-({self.scalar(e.operand)}))"
        if isinstance(e, A.Binary):
            a, b = self.scalar(e.lhs), self.scalar(e.rhs)
            ints = self._ctype(t) == "int64_t"
            if e.op == "//":
                return f"AcFloorDiv({a}, {b})"
            if e.op == "%":
                return f"AcMod({a}, {b})"
            if e.op == "**":
                return f"ScalarPow(static_cast<float>({a}), static_cast<float>({b}))"
            if e.op in ("<", "<=", ">", ">=", "==", "!="):
                ct = self._operand_ctype(e.lhs, e.rhs)
                return f"(static_cast<{ct}>({a}) {e.op} static_cast<{ct}>({b}))"
            if e.op in ("&", "|"):
                return f"({a} {e.op} {b})"
            if e.op == "/" and ints:
                return f"(static_cast<float>({a}) / static_cast<float>({b}))"
            if e.op in ("+", "-", "*") and ints:
                return f"({a} {e.op} {b})"
            if e.op in ("+", "-", "*", "/"):
                ct = self._ctype(t)
                return f"(static_cast<{ct}>({a}) {e.op} static_cast<{ct}>({b}))"
            raise _unsupported(f"scalar operator {e.op}", e)
        if isinstance(e, A.Call):
            args = [self.scalar(x) for x in e.args]
            if e.func == "cdiv":
                return f"AcCdiv({args[0]}, {args[1]})"
            ct = self._ctype(t)
            if e.func in ("minimum", "maximum"):
                # floats propagate NaN like NumPy's minimum/maximum (the interpreter's meaning)
                f = "F" if ct != "int64_t" else ""
                return f"Ac{f}{'Min' if e.func == 'minimum' else 'Max'}<{ct}>({args[0]}, {args[1]})"
            if e.func == "clamp":
                f = "F" if ct != "int64_t" else ""
                return f"Ac{f}Min<{ct}>(Ac{f}Max<{ct}>({args[0]}, {args[1]}), {args[2]})"
            if e.func == "where":
                return f"(({args[0]}) ? static_cast<{ct}>({args[1]}) : static_cast<{ct}>({args[2]}))"
            if e.func == "reciprocal":
                return f"(1.0f / static_cast<float>({args[0]}))"
            if e.func == "abs":
                return f"AcAbs({args[0]})"
            if e.func == "relu":
                return f"AcRelu<{ct}>({args[0]})"
            if e.func in ("floor", "ceil"):
                return f"Ac{e.func.capitalize()}(static_cast<float>({args[0]}))"
            if e.func in _SCALAR_UNARY:
                return f"Scalar{_SCALAR_UNARY[e.func]}(static_cast<float>({args[0]}))"
            if e.func == "cast":
                return self._scalar_cast(e, args[0], t)
            raise _unsupported(f"scalar function {e.func}", e)
        raise _unsupported(f"scalar expression {type(e).__name__}", e)


    def _operand_ctype(self, *operands) -> str:
        """The C++ type two scalar operands are compared in: float if either is a float."""
        cts = [self._scalar_ctype(x) for x in operands]
        return "float" if "float" in cts or "half" in cts else "int64_t"

    def _scalar_cast(self, e: A.Call, x: str, t) -> str:
        """cast(...) of a scalar-unit value with the interpreter's meaning: round= applies to float
        sources (to an integer value); float -> int truncates by default, saturates, and maps NaN to 0;
        to bool is x != 0."""
        src = self.ck.expr_types.get(id(e.args[0]))
        src_float = getattr(src, "dtype", "f32") in ("float",) + tuple(D.FLOATS)
        dst = e.args[1].id
        mode = e.kwarg("round")
        if dst == "bool":
            return f"static_cast<int64_t>(({x}) != 0)"
        if not src_float:
            return f"static_cast<{self._ctype(t)}>({x})"
        v = f"static_cast<float>({x})"
        if mode is not None:
            v = f"{_SCALAR_ROUND[mode.value]}({v})"
        if dst in D.INTS:
            info = {"i8": (-128, 127), "u8": (0, 255), "i16": (-32768, 32767),
                    "i32": (-2147483648, 2147483647), "i64": (-9223372036854775807 - 1, 9223372036854775807)}[dst]
            return f"AcFloatToInt({v}, {info[0]}.0, {info[1]}.0)"
        if dst == "f16":
            return f"static_cast<float>(static_cast<half>({v}))"
        if dst == "bf16":   # round to nearest even, as the interpreter (dtypes.round_bf16)
            return f"static_cast<float>(static_cast<bfloat16_t>({v}))"
        return v


def _cast_pitch(src: "_Tile", pitch: str, dst_dtype: str) -> str | None:
    """The row pitch of a cast of 2-D tile ``src`` (row pitch expression ``pitch``) to ``dst_dtype``
    when the two dtypes' 32-byte row alignments differ (``AcAlignUp(cols, 16)`` for 2-byte types, 8
    for 4-byte ones), else None."""
    import re
    m = re.fullmatch(r"AcAlignUp\((.*), (\d+)\)", pitch)
    per_block = 32 // D.ITEMSIZE[dst_dtype]
    if src.rows == "1" or 32 // D.ITEMSIZE[src.dtype] == per_block:
        return None
    if m is None:
        # a pitch known only at run time (a window's output): narrowing, the source's pitch rounded up
        # to whole 32-byte rows of the result is the one a tile of the result's dtype has; widening
        # keeps the source's pitch (a multiple of the result's alignment already)
        return f"AcAlignUp({src.pitch}, {per_block})" if D.ITEMSIZE[dst_dtype] < D.ITEMSIZE[src.dtype] else None
    return None if int(m.group(2)) == per_block else f"AcAlignUp({m.group(1)}, {per_block})"


def _host_int(e, consts: dict) -> str:
    """An integer scalar expression of dims, attributes, constants and CORES as host C++ (operators
    and ?: only), with constants expanded."""
    if isinstance(e, A.Int):
        return str(e.value)
    if isinstance(e, A.Name):
        if e.id in consts:
            return f"({_host_int(consts[e.id], consts)})"
        return "AscendC::GetBlockNum()" if e.id == "CORES" else e.id
    if isinstance(e, A.Unary) and e.op == "-":
        return f"(-({_host_int(e.operand, consts)}))"
    if isinstance(e, A.Binary) and e.op in ("+", "-", "*"):
        return f"({_host_int(e.lhs, consts)} {e.op} {_host_int(e.rhs, consts)})"
    if isinstance(e, A.Binary) and e.op in ("//", "%"):
        return (_host_floordiv if e.op == "//" else _host_mod)(_host_int(e.lhs, consts), _host_int(e.rhs, consts))
    if isinstance(e, A.Call) and e.func == "cdiv":   # cdiv(a, b) = -((-a) // b)
        a, b = (_host_int(x, consts) for x in e.args)
        return f"(-{_host_floordiv(f'(-{a})', b)})"
    if isinstance(e, A.Call) and e.func in ("minimum", "maximum"):
        a, b = (_host_int(x, consts) for x in e.args)
        return f"(({a}) {'<' if e.func == 'minimum' else '>'} ({b}) ? ({a}) : ({b}))"
    raise _unsupported("this constant in a scratch tensor's shape (the host computes the workspace size)", e)


def _host_mod(a: str, b: str) -> str:
    """Python's a % b (the sign of b) from C++'s truncating %."""
    return f"(((({a}) % ({b})) + ({b})) % ({b}))"


def _host_floordiv(a: str, b: str) -> str:
    return f"((({a}) - {_host_mod(a, b)}) / ({b}))"


_SCALAR_ROUND = {"rint": "AcRint", "floor": "AcFloor", "ceil": "AcCeil", "round": "AcRound", "trunc": "AcTrunc"}


def _float(v: float, ct: str) -> str:
    if v != v:
        return "AC_NAN"
    if v in (float("inf"), float("-inf")):
        return "AC_INF" if v > 0 else "(-AC_INF)"
    text = repr(float(v))
    return f"static_cast<{ct}>({text}f)" if ct != "float" else f"{text}f"


# where Process() starts its statements in the kernel source (removed once the line is known)
_PROCESS_BODY = "\x00process-body\x00"


def _mentions(node) -> set[str]:
    """The names a statement uses: its Name nodes and what it frees."""
    return {n.id if isinstance(n, A.Name) else n.name for n in A.walk(node) if isinstance(n, (A.Name, A.Free))}


def _loop_carries(loop: A.For, name: str) -> bool:
    """Whether ``loop`` takes over the pending tile ``name`` as a prefetch does: the first
    top-level statement of its body that mentions ``name`` is ``t = name``, and a later one loads
    ``name`` again (pending at the body's end, as on entry)."""
    first = next((i for i, s in enumerate(loop.body) if name in _mentions(s)), None)
    if first is None:
        return False
    alias = loop.body[first]
    if not (isinstance(alias, A.Assign) and isinstance(alias.value, A.Name) and alias.value.id == name):
        return False
    return any(isinstance(s, A.Assign) and s.target == name and isinstance(s.value, A.Load)
               for s in loop.body[first + 1:])


def _on_all_cores(s) -> bool:
    return isinstance(s, A.ParallelFor) or is_phase_loop(s)


def _literal(e):
    if e is None:
        return None
    if isinstance(e, (A.Int, A.Float)):
        return e.value
    if isinstance(e, A.Unary) and isinstance(e.operand, (A.Int, A.Float)):
        return -e.operand.value
    return None


def _unsupported(what: str, node) -> DSLError:
    return DSLError(f"emitter: {what} cannot be emitted as AscendC yet", getattr(node, "span", None),
                    kind="lowering error",
                    hint="rewrite this statement with the forms docs/dsl.md lists under \"Writing kernels that lower "
                         "to AscendC\"; if it is one of them, this is a lowering bug (ours): please report it")


_HELPERS = r"""// Integer helpers with the DSL's (Python's) floor semantics, and slice clamping.
__aicore__ inline int64_t AcFloorDiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q;
}
__aicore__ inline int64_t AcMod(int64_t a, int64_t b) { return a - AcFloorDiv(a, b) * b; }
__aicore__ inline int64_t AcCdiv(int64_t a, int64_t b) { return -AcFloorDiv(-a, b); }
__aicore__ inline int64_t AcAlignUp(int64_t a, int64_t b) { return AcCdiv(a, b) * b; }
template <typename T> __aicore__ inline T AcMin(T a, T b) { return a < b ? a : b; }
template <typename T> __aicore__ inline T AcMax(T a, T b) { return a > b ? a : b; }
template <typename T> __aicore__ inline T AcAbs(T a) { return a < 0 ? -a : a; }
__aicore__ inline int64_t AcClamp(int64_t v, int64_t dim) { return v < 0 ? 0 : (v > dim ? dim : v); }
// Zero a tile's first n elements through a 16-bit view (Duplicate moves 16- and 32-bit types only).
template <typename T> __aicore__ inline void AcZeroFill(const AscendC::LocalTensor<T>& t, int64_t n)
{
    AscendC::Duplicate(t.template ReinterpretCast<int16_t>(), static_cast<int16_t>(0),
                       static_cast<int32_t>(n * static_cast<int64_t>(sizeof(T)) / 2));
}
// A bit-exact copy of n elements between UB tiles: Or of 16-bit views (And/Or take int16/uint16),
// so no value is rounded (ints stay exact, NaN payloads kept) and no byte past the n is read;
// an odd last byte of a 1-byte type goes by the scalar unit.
template <typename T> __aicore__ inline void AcCopy(const AscendC::LocalTensor<T>& dst,
                                                   const AscendC::LocalTensor<T>& src, int64_t n)
{
    const int64_t bytes = n * static_cast<int64_t>(sizeof(T));
    if (bytes >= 2) {
        AscendC::LocalTensor<uint16_t> d = dst.template ReinterpretCast<uint16_t>();
        AscendC::LocalTensor<uint16_t> s = src.template ReinterpretCast<uint16_t>();
        AscendC::Or(d, s, s, static_cast<int32_t>(bytes / 2));
    }
    if (bytes % 2 != 0) {
        dst.SetValue(n - 1, src.GetValue(n - 1));
    }
}
// The bits of a value as another type of the same width (an integer Select's scalar on the float view).
template <typename F, typename T> __aicore__ inline F AcBitsAs(T v)
{
    static_assert(sizeof(F) == sizeof(T), "same width");
    F f;
    __builtin_memcpy(&f, &v, sizeof(F));
    return f;
}
constexpr float AC_INF = __builtin_huge_valf();
constexpr float AC_NAN = __builtin_nanf("");
// Scalar-unit float math with NumPy's meaning: minimum/maximum/relu propagate NaN; rounding to an
// integer value keeps NaN, inf and values of 2^23 and more (already integers) and the sign of zero.
template <typename T> __aicore__ inline T AcFMax(T a, T b) { return a != a ? a : (b != b ? b : (a > b ? a : b)); }
template <typename T> __aicore__ inline T AcFMin(T a, T b) { return a != a ? a : (b != b ? b : (a < b ? a : b)); }
template <typename T> __aicore__ inline T AcRelu(T a) { return a != a ? a : (a > 0 ? a : static_cast<T>(0)); }
__aicore__ inline bool AcNoFraction(float x) { return !(x - x == 0.0f) || x >= 8388608.0f || x <= -8388608.0f; }
__aicore__ inline float AcSignedZero(float r, float x) { return r == 0.0f ? x * 0.0f : r; }
__aicore__ inline float AcTrunc(float x)
{
    return AcNoFraction(x) ? x : AcSignedZero(static_cast<float>(static_cast<int32_t>(x)), x);
}
__aicore__ inline float AcFloor(float x)
{
    if (AcNoFraction(x)) { return x; }
    const float t = static_cast<float>(static_cast<int32_t>(x));
    return AcSignedZero(t > x ? t - 1.0f : t, x);
}
__aicore__ inline float AcCeil(float x)
{
    if (AcNoFraction(x)) { return x; }
    const float t = static_cast<float>(static_cast<int32_t>(x));
    return AcSignedZero(t < x ? t + 1.0f : t, x);
}
__aicore__ inline float AcRound(float x)   // half away from zero
{
    if (AcNoFraction(x)) { return x; }
    const float r = AcFloor((x < 0 ? -x : x) + 0.5f);
    return AcSignedZero(x < 0 ? -r : r, x);
}
__aicore__ inline float AcRint(float x)    // half to even
{
    if (AcNoFraction(x)) { return x; }
    const float f = AcFloor(x), d = x - f;
    const float r = d > 0.5f ? f + 1.0f : (d < 0.5f ? f : (static_cast<int32_t>(f) % 2 == 0 ? f : f + 1.0f));
    return AcSignedZero(r, x);
}
__aicore__ inline int64_t AcFloatToInt(float x, double lo, double hi)   // NaN -> 0, saturating
{
    if (x != x) { return 0; }
    const double d = static_cast<double>(x);
    return d <= lo ? static_cast<int64_t>(lo) : (d >= hi ? static_cast<int64_t>(hi) : static_cast<int64_t>(d));
}
"""

# Transcendental scalar math runs on the vector unit over one 32-byte block (the scalar unit
# has no exp/log); the V<->S ordering around GetValue comes from cce-auto-sync (ascendc_api.md 2.3).
from lowering_passes.select import _ERF_A, _ERF_P  # noqa: E402  (one erf approximation for tiles and scalars)

_HELPERS += "".join(f"constexpr float ERF_{n} = {v!r}f;\n" for n, v in
                    [("P", _ERF_P)] + [(f"A{i + 1}", a) for i, a in enumerate(_ERF_A)])

_SCALAR_METHODS = """    __aicore__ inline float ScalarExp(float x) { AscendC::Duplicate(scalarTmp, x, 8); AscendC::Exp(scalarTmp, scalarTmp, 8); return scalarTmp.GetValue(0); }
    __aicore__ inline float ScalarLn(float x) { AscendC::Duplicate(scalarTmp, x, 8); AscendC::Ln(scalarTmp, scalarTmp, 8); return scalarTmp.GetValue(0); }
    __aicore__ inline float ScalarSqrt(float x) { AscendC::Duplicate(scalarTmp, x, 8); AscendC::Sqrt(scalarTmp, scalarTmp, 8); return scalarTmp.GetValue(0); }
    __aicore__ inline float ScalarRsqrt(float x) { AscendC::Duplicate(scalarTmp, x, 8); AscendC::Rsqrt(scalarTmp, scalarTmp, 8); return scalarTmp.GetValue(0); }
    // Functions the scalar unit lacks, composed as in select.py's tile rules (tanh = 1 - 2 / (e^2x + 1),
    // sigmoid = 1 / (1 + e^-x), erf: Abramowitz & Stegun 7.1.26), with NaN and +-inf as NumPy gives them.
    __aicore__ inline float ScalarTanh(float x) { return x != x ? x : 1.0f - 2.0f / (ScalarExp(2.0f * x) + 1.0f); }
    __aicore__ inline float ScalarSigmoid(float x) { return x != x ? x : 1.0f / (1.0f + ScalarExp(-x)); }
    __aicore__ inline float ScalarErf(float x)
    {
        if (x != x || x == 0.0f) { return x; }
        const float ax = x < 0 ? -x : x, t = 1.0f / (1.0f + ERF_P * ax);
        const float poly = ((((ERF_A5 * t + ERF_A4) * t + ERF_A3) * t + ERF_A2) * t + ERF_A1) * t;
        const float y = 1.0f - poly * ScalarExp(-ax * ax);
        return x < 0 ? -y : y;
    }
    // x ** y as NumPy: an integral exponent by repeated squaring (any sign of x; 1/x^n for n < 0),
    // x ** 0 = 1, x ** 0.5 = sqrt(x), +-inf exponents by |x| vs 1, otherwise exp(y ln x) (NaN for x < 0)
    __aicore__ inline float ScalarPow(float a, float b)
    {
        if (b == 0.0f || a == 1.0f) { return 1.0f; }
        if (b != b || a != a) { return AC_NAN; }
        const float aa = a < 0 ? -a : a;
        if (b == AC_INF || b == -AC_INF) {
            if (aa == 1.0f) { return 1.0f; }
            return (aa > 1.0f) == (b > 0) ? AC_INF : 0.0f;
        }
        if (AcFloor(b) == b && b <= 1073741824.0f && b >= -1073741824.0f) {
            int64_t n = static_cast<int64_t>(b < 0 ? -b : b);
            float r = 1.0f, p = a;
            while (n > 0) { if (n & 1) { r = r * p; } p = p * p; n >>= 1; }
            return b < 0 ? 1.0f / r : r;
        }
        if (b == 0.5f) { return ScalarSqrt(a); }
        if (a < 0) { return AC_NAN; }
        if (a == 0.0f) { return b > 0 ? 0.0f : AC_INF; }
        return ScalarExp(b * ScalarLn(a));
    }
"""

# Gather offset tables (bytes) for pooling windows: the width pass reads element j*sw of every
# row of the input (pitch pi), the row pass row i*sh of the width-pooled rows (pitch owp);
# lanes past the output width read element 0. Rebuilt only when the geometry changes.
_WINDOW_TABLES = """    int64_t windowTableKey[6] = {-1, -1, -1, -1, -1, -1};
    __aicore__ inline void BuildWindowTables(const AscendC::LocalTensor<int32_t>& widx, int64_t ri, int64_t pi,
                                             int64_t ow, int64_t owp, int64_t sw, int64_t oh, int64_t sh,
                                             int64_t bytes)
    {
        const int64_t key[6] = {ri, pi, ow, sw, oh, sh * bytes};
        bool same = true;
        for (int i = 0; i < 6; ++i) {
            same = same && windowTableKey[i] == key[i];
        }
        if (same) {
            return;
        }
        AscendC::LocalTensor<uint32_t> t = widx.ReinterpretCast<uint32_t>();
        for (int64_t r = 0; r < ri; ++r) {
            for (int64_t j = 0; j < owp; ++j) {
                t.SetValue(r * owp + j, static_cast<uint32_t>(j < ow ? (r * pi + j * sw) * bytes : 0));
            }
        }
        for (int64_t i = 0; i < oh; ++i) {
            for (int64_t j = 0; j < owp; ++j) {
                t.SetValue(ri * owp + i * owp + j, static_cast<uint32_t>((i * sh * owp + j) * bytes));
            }
        }
        for (int i = 0; i < 6; ++i) {
            windowTableKey[i] = key[i];
        }
    }
"""

# Copies of strided GM regions (the tile's last axis is not adjacent in GM: a column x[a:b, j]).
# DataCopyPad moves K = STRIDED_CHUNK elements per call, one per block: each block lands 32-byte
# aligned in UB and is padded to 32 bytes (ascendc_api.md 2.2), so element i of a chunk is at byte
# 32 * i of the xwork buffer (XWORK_BUF: its TBuf, named by the program). Gather packs them into the
# tile (offsets 32 * i in the xidx buffer, XIDX_BUF); the way back, Brcb
# spreads 8 tile elements per repeat over 8 blocks (a last group of fewer than 8 goes by the
# scalar unit: Brcb would read tile elements past the region) and DataCopyPad writes
# blockLen = sizeof(T) of each. Gather and Brcb move 16- and 32-bit types only (ascendc_api.md
# 3.2); other types are packed on the scalar unit. Flags order xwork's reuse between chunks
# (MTE2/MTE3 against V or S).
# CopyInStrided puts element c of row r at dst[r * pitch + dstCol + c]: dstCol > 0 is a padded
# load's left halo, whose positions keep their pad value (the first chunk's leading blocks hold
# the pad value, so the Gather can start on a 32-byte boundary).
_STRIDED_COPIES = """    template <AscendC::HardEvent E> __aicore__ inline void StridedSync()
    {
        auto e = static_cast<event_t>(AscendC::GetTPipePtr()->FetchEventID(E));
        AscendC::SetFlag<E>(e);
        AscendC::WaitFlag<E>(e);
    }
    template <typename T>
    __aicore__ inline void CopyInStrided(const AscendC::LocalTensor<T>& dst, const AscendC::GlobalTensor<T>& src,
                                         int64_t rows, int64_t cols, int64_t pitch, int64_t dstCol,
                                         int64_t rowStride, int64_t colStride, T pad)
    {
        constexpr int64_t epb = 32 / sizeof(T);
        constexpr bool vec = sizeof(T) == 2 || sizeof(T) == 4;
        const int64_t k = STRIDED_CHUNK;
        AscendC::LocalTensor<T> stage = XWORK_BUF.Get<T>();
        AscendC::LocalTensor<uint32_t> idx = XIDX_BUF.Get<uint32_t>();
        for (int64_t r = 0; r < rows; ++r) {
            for (int64_t done = 0; done < cols;) {
                const int64_t pos = dstCol + done, a0 = pos / epb * epb, lead = vec ? pos - a0 : 0;
                const int64_t m = AcMin<int64_t>(k - lead, cols - done);
                StridedSync<AscendC::HardEvent::MTE3_MTE2>();   // a strided store's last read of xwork
                StridedSync<AscendC::HardEvent::V_MTE2>();      // the last vector pad or Gather of it (any type)
                if constexpr (vec) {
                    StridedSync<AscendC::HardEvent::MTE3_V>();  // a strided store's read, before the vector unit pads it
                    if (lead > 0) {
                        AscendC::Duplicate(stage, pad, static_cast<int32_t>(lead * epb));
                    }
                } else {
                    StridedSync<AscendC::HardEvent::S_MTE2>();
                }
                AscendC::DataCopyPad(stage[lead * epb], src[r * rowStride + done * colStride],
                                     AscendC::DataCopyExtParams{static_cast<uint16_t>(m), static_cast<uint32_t>(sizeof(T)),
                                                                static_cast<uint32_t>((colStride - 1) * sizeof(T)), 0, 0},
                                     AscendC::DataCopyPadExtParams<T>{false, 0, 0, static_cast<T>(0)});
                // the row's last 32-byte block is written whole, as DataCopyPad would (pad value past the end)
                const int64_t end = lead + m, ext = done + m == cols ? AcAlignUp(pos + m, epb) - a0 : end;
                if constexpr (vec) {
                    if (ext > end) {
                        AscendC::Duplicate(stage[end * epb], pad, static_cast<int32_t>((ext - end) * epb));
                    }
                    StridedSync<AscendC::HardEvent::MTE2_V>();
                    AscendC::Gather(dst[r * pitch + a0], stage, idx, 0, static_cast<uint32_t>(ext));
                } else {
                    StridedSync<AscendC::HardEvent::MTE2_S>();
                    for (int64_t i = 0; i < m; ++i) {
                        dst.SetValue(r * pitch + pos + i, stage.GetValue(i * epb));
                    }
                    for (int64_t i = pos + m; i < a0 + ext; ++i) {
                        dst.SetValue(r * pitch + i, pad);
                    }
                }
                done += m;
            }
        }
    }
    template <typename T>
    __aicore__ inline void CopyOutStrided(const AscendC::GlobalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                                          int64_t rows, int64_t cols, int64_t pitch, int64_t rowStride,
                                          int64_t colStride)
    {
        constexpr int64_t epb = 32 / sizeof(T);
        const int64_t k = STRIDED_CHUNK;
        AscendC::LocalTensor<T> stage = XWORK_BUF.Get<T>();
        for (int64_t r = 0; r < rows; ++r) {
            for (int64_t c0 = 0; c0 < cols; c0 += k) {
                const int64_t m = AcMin<int64_t>(k, cols - c0);
                // Brcb takes whole groups of 8 elements; the rest (and other types) go by the scalar unit
                const int64_t full = (sizeof(T) == 2 || sizeof(T) == 4) ? m / 8 * 8 : 0;
                if (full > 0) {
                    StridedSync<AscendC::HardEvent::MTE3_V>();
                    AscendC::Brcb(stage, src[r * pitch + c0], static_cast<uint8_t>(full / 8),
                                  AscendC::BrcbRepeatParams{1, 8});
                    StridedSync<AscendC::HardEvent::V_MTE3>();
                }
                if (full < m) {
                    StridedSync<AscendC::HardEvent::MTE3_S>();
                    for (int64_t i = full; i < m; ++i) {
                        stage.SetValue(i * epb, src.GetValue(r * pitch + c0 + i));
                    }
                    StridedSync<AscendC::HardEvent::S_MTE3>();
                }
                AscendC::DataCopyPad(dst[r * rowStride + c0 * colStride], stage,
                                     AscendC::DataCopyExtParams{static_cast<uint16_t>(m), static_cast<uint32_t>(sizeof(T)), 0,
                                                                static_cast<uint32_t>((colStride - 1) * sizeof(T)), 0});
            }
        }
    }
"""

# Gather offset tables (bytes) for scans of s elements as 64 chunks of s/64: the first half
# transposes (element r of chunk c to row r, lane c), the second puts it back. Built on the
# scalar unit when the scanned size changes (once per kernel in practice).
_SCAN_TABLES = """    int64_t scanTableSize = 0;
    __aicore__ inline void BuildScanTables(const AscendC::LocalTensor<int32_t>& sidx, int64_t s, int64_t bytes)
    {
        if (scanTableSize == s * bytes) {
            return;
        }
        AscendC::LocalTensor<uint32_t> t = sidx.ReinterpretCast<uint32_t>();
        const int64_t rows = s / 64;
        for (int64_t r = 0; r < rows; ++r) {
            for (int64_t c = 0; c < 64; ++c) {
                t.SetValue(r * 64 + c, static_cast<uint32_t>((c * rows + r) * bytes));
                t.SetValue(s + c * rows + r, static_cast<uint32_t>((r * 64 + c) * bytes));
            }
        }
        scanTableSize = s * bytes;
    }
"""
