"""Print the last level of the lowering chain as an AscendC kernel (.cpp) and its KernelSpec.

The input is the program after ``pipeline``: every tile op is an API-level op with a buffer
(``out=``), loads and stores name GM regions, and parallel loops run over ``CORES``. Each
statement becomes the AscendC calls it stands for; the op table (``ops.OPS[name].api``) gives
the function name, so the interpreter and the emitter read one table.

Layout conventions (shared with ``ascendcraft/lowering_passes/bufferize.py``): a tile's rows are padded to
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

from ascendcraft.lowering_passes.base import is_phase_loop
from ascendcraft.dsl.check_lowered import SCALAR_RESERVE
from ascendcraft.lowering_passes.bufferize import work_buffers
from ascendcraft.lowering_passes.linearize import is_gemm

from .. import dtypes as D
from ..dsl import ast as A
from ..dsl.ops import OPS
from ..dsl.types import TScalar, TTile
from ..cann_names import snake_case
from ..errors import DSLError
from .compute import ComputeEmitter
from .copies import CopyEmitter
from .emit_common import (
    KERNEL_TYPES,
    PROCESS_BODY,
    UB_CTYPES,
    Tile,
    camel,
    host_int,
    literal_value,
    loop_carries,
    mentions,
    on_all_cores,
    unsupported,
)
from .gemm import GemmEmitter
from .taps import TAP_STEP, TapsEmitter
from .scalar_expr import ScalarEmitter
from .snippets import (
    EVENT_SYNC,
    HELPERS,
    SCALAR_METHODS,
    SCAN_TABLES,
    STRIDED_COPIES,
    WINDOW_TABLES,
)
from .spec import CTYPES, AttrArg, KernelSpec, TensorArg, TilingField


def emit_kernel(kernel: A.Kernel, checked, *, op_name: str | None = None) -> KernelSpec:
    """The AscendC kernel and its spec for a fully lowered, checked program. Every DSL name is
    printed in its C++ spelling (codegen/names.py: ``x`` -> ``x_u``); the spec keeps DSL names
    for tensors, attributes and dims, and C++ names for tiling fields."""
    from .names import mangle_kernel, unmangle_spec, unmangle_text
    # the entry and file name msopgen derives from the op type (conv_2d -> Conv2dCustom -> conv2d_custom)
    op_name = op_name or snake_case(camel(f"{kernel.name}_custom"))
    mangled, mchecked = mangle_kernel(kernel, checked)
    try:
        return unmangle_spec(_Emitter(mangled, mchecked, op_name).spec())
    except DSLError as err:   # spans are origins in the writer's file (passes.with_origins): show its line
        from ascendcraft.lowering_passes.base import in_writer_terms
        err.message, err.hint = unmangle_text(err.message), unmangle_text(err.hint)
        if err.args:
            err.args = (unmangle_text(err.args[0]), *err.args[1:])
        # names the passes made (_t0, _pf1) as the writer's expressions they hold
        raise in_writer_terms(err, kernel).located(getattr(kernel, "source", None))



class _Emitter(CopyEmitter, GemmEmitter, TapsEmitter, ComputeEmitter, ScalarEmitter):
    def __init__(self, kernel: A.Kernel, checked, op_name: str):
        self.k, self.ck, self.op_name = kernel, checked, op_name
        self.op_type = camel(op_name)
        self.cls = f"Kernel{camel(kernel.name)}"
        self.buffers = {s.name: s for s in kernel.body if isinstance(s, A.Buffer)}
        # bufferize's work buffers by role (rwork, swork, sidx, wwork, widx, xwork, xidx): their names
        # come from the program (a writer's variable may be called rwork), in C++ spelling
        from .names import dsl_name
        self.work = work_buffers(kernel, dsl_name)
        self.symbols = checked.symbols           # every GM tensor and scalar name of the program
        self.scratch = self.symbols.scratch()
        self.tiles: dict[str, Tile] = {}
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
        self.gemms = [n for n in A.walk(kernel) if isinstance(n, (A.Store, A.Assign)) and is_gemm(n.value)
                      and not A.is_tap_product(n.value)]
        # tap products (cube_taps.py): low-level cube code, on the AIC of a kernel of its own
        self.taps = [n for n in A.walk(kernel) if isinstance(n, A.Store) and A.is_tap_product(n.value)]
        # GM tensors (by root: a view is its base's memory) this core has stored to earlier in the
        # current phase: a later read of them waits for the copies out (read_after_own_stores)
        self.stored_in_phase: set[str] = set()
        # product tiles started early, by name: what emits their take (pending like a queued tile)
        self.takes: dict = {}
        has_vector = bool(self.buffers) or any(isinstance(n, A.Load) for n in A.walk(kernel))
        if self.taps and self.gemms:
            raise unsupported("tap products in a kernel with products through the Matmul API", self.taps[0])
        self.core_type = "aiv" if not (self.gemms or self.taps) else \
            ("mixtaps" if self.taps else "mix") if has_vector else "aic"

    # ------------------------------------------------------------ output
    def spec(self) -> KernelSpec:
        inputs = tuple(TensorArg(p.name, p.type.dtype, tuple(p.type.shape), p.name in self._parameters(),
                                 self._stars(p), None if p.default is None else float(literal_value(p.default)))
                       for p in self.k.inputs if isinstance(p.type, A.TensorType))
        outputs = tuple(TensorArg(p.name, p.type.dtype, tuple(p.type.shape), stars=self._stars(p))
                        for p in self.k.outputs)
        attrs = tuple(AttrArg(p.name, p.type.dtype, literal_value(p.default)) for p in self.k.inputs
                      if isinstance(p.type, A.ScalarType))
        consts = {c.name: c.value for c in self.k.body if isinstance(c, A.Const)}
        dims = []
        for t in inputs + outputs:
            for axis, d in enumerate(t.shape):
                if isinstance(d, str) and d not in [f.name for f in dims] and d not in consts:
                    dims.append(TilingField(d, "int64_t", ("dim", t.name, axis)))
        # an axis a const sizes (an output extent no input carries): the host computes it from the
        # const's definition (the kernel computes the const itself in Init)
        extents = []
        for d in dict.fromkeys(d for t in inputs + outputs for d in t.shape if isinstance(d, str) and d in consts):
            try:
                extents.append((d, host_int(A.Name(d), consts)))
            except DSLError:      # not plain integer arithmetic: no project (project.dim_origins says so)
                pass
        fields = tuple(dims) + tuple(TilingField(a.name, "float" if a.dtype in D.FLOATS else "int64_t",
                                                 ("attr", a.name)) for a in attrs)
        struct = f"{self.op_type}TilingData"
        source = self._source(fields, struct)
        return KernelSpec(self.op_name, self.op_type, inputs, outputs, attrs, struct, fields, source,
                          self.core_type, self._workspace_expr(), self._dsl_lines(source), self._scratch_sizes(),
                          star_counts=tuple((d, c) for d, c in self.k.star_counts if d in self.k.star_dims),
                          extents=tuple(extents))

    def _dsl_lines(self, source: str) -> tuple:
        """(line of the kernel source, DSL line) for each line of Process() the emitter wrote for a
        statement of the writer's kernel (spans are origins: passes.with_origins)."""
        return tuple((self.first_line - 1 + i, o) for i, o in enumerate(self.origins) if o is not None)

    def _stars(self, p: A.Param) -> tuple[str, ...]:
        """The star dims among ``p``'s axes: binding flattens a run of the op tensor's axes into each."""
        return tuple(d for d in p.type.shape if d in self.k.star_dims)

    def _parameters(self) -> set:
        return set(getattr(self.ck, "parameters", ()) or ())

    def _workspace_expr(self) -> str:
        """Bytes of the scratch tensors as a host C++ expression over tiling fields (dims, attributes)
        and the core count, each one's rounded up to 32 bytes as Init lays them out."""
        return " + ".join(f"({size} + 31) / 32 * 32" for _, size, _ in self._scratch_sizes()) or "0"

    def _scratch_sizes(self) -> tuple:
        """(name, bytes as a host C++ expression, element bytes) of each scratch tensor, in workspace
        order: a dim that is a ``const`` is replaced by its definition, recursively, with the DSL's
        floor semantics for ``//``, ``%`` and ``cdiv`` spelled in plain C++ (no helpers exist on the
        host)."""
        consts = {c.name: c.value for c in self.k.body if isinstance(c, A.Const)}
        sizes = []
        for s in self.scratch:
            n = " * ".join(f"(int64_t)({host_int(A.Name(d), consts)})" if isinstance(d, str) else str(d)
                           for d in s.dims) or "1"
            sizes.append((s.name, f"({n}) * {D.ITEMSIZE[s.dtype]}", D.ITEMSIZE[s.dtype]))
        return tuple(sizes)

    def _gm_ctype(self, v) -> str:
        """The element type of a view's GlobalTensor: its base's (a scratch tensor's, or a parameter's)."""
        return (CTYPES if self.symbols.tensor(v.base).role == "scratch" else UB_CTYPES)[v.dtype]

    # ------------------------------------------------------------ C++ source
    def _source(self, fields, struct) -> str:
        for f in fields:
            self.members[f.name] = "float" if f.ctype == "float" else "int64_t"
        consts = [s for s in self.k.body if isinstance(s, A.Const)]
        for c in consts:
            self.members[c.name] = self._scalar_ctype(c.value)
        self._collect_locals(self.k.body)
        body = [s for s in self.k.body if not isinstance(s, (A.Const, A.Scratch, A.View, A.Buffer))]
        self._phases(body)
        gm_args = [t.name for t in self.symbols.parameters()]
        init_args = ", ".join(f"GM_ADDR {n}" for n in gm_args + ["workspace", "tiling"])
        init = ["        GET_TILING_DATA(tilingData, tiling);"]
        init += [f"        {f.name} = tilingData.{f.name};" for f in fields]
        init += [f"        {c.name} = {self.scalar(c.value)};" for c in consts]
        address = {}        # each parameter's and scratch tensor's memory, which its views share
        for n in gm_args:
            ct = UB_CTYPES[self.symbols.tensor(n).dtype]
            address[n] = n
            init.append(f"        {n}Gm.SetGlobalBuffer((__gm__ {ct}*){n});")
        offset = "0"
        for s in self.scratch:
            ct = CTYPES[s.dtype]
            address[s.name] = f"(AscendC::GetUserWorkspace(workspace) + {offset})"
            init.append(f"        {s.name}Gm.SetGlobalBuffer((__gm__ {ct}*){address[s.name]});")
            n = " * ".join(self._dim(d) for d in s.dims) or "1"
            offset = f"{offset} + (({n}) * {D.ITEMSIZE[s.dtype]} + 31) / 32 * 32"
        for v in self.symbols.views():     # another shape of the same memory: addressed by its own dims
            init.append(f"        {v.name}Gm.SetGlobalBuffer((__gm__ {self._gm_ctype(v)}*){address[v.base]});")
        ub_init = []
        for b in self.buffers.values():
            size = " * ".join(self._dim(d) for d in b.type.shape)
            ct = UB_CTYPES[b.type.dtype]
            if b.type.space == "veccalc":
                ub_init.append(f"        pipe.InitBuffer({b.name}Buf, ({size}) * sizeof({ct}));")
            else:
                ub_init.append(f"        pipe.InitBuffer({b.name}, {b.depth}, ({size}) * sizeof({ct}));")
        if self.core_type != "aic":   # a cube-only kernel runs on the AIC, which has no UB
            ub_init.append(f"        pipe.InitBuffer(scalarBuf, {SCALAR_RESERVE});")
        init += self._on_kind("AIV", ub_init)
        for i, g in enumerate(self.gemms):
            init += self._cube_tiling(i, g)
        tap_decls, tap_init = self._taps_decls() if self.taps else ([], [])
        init += self._on_kind("AIC", tap_init)
        decls = list(tap_decls)
        for b in self.buffers.values():
            if b.type.space == "veccalc":
                decls.append(f"    AscendC::TBuf<AscendC::TPosition::VECCALC> {b.name}Buf;")
            else:
                pos = "VECIN" if b.type.space == "vecin" else "VECOUT"
                decls.append(f"    AscendC::TQue<AscendC::TPosition::{pos}, {b.depth}> {b.name};")
        decls.append("    AscendC::TBuf<AscendC::TPosition::VECCALC> scalarBuf;")
        for n in gm_args:
            decls.append(f"    AscendC::GlobalTensor<{UB_CTYPES[self.symbols.tensor(n).dtype]}> {n}Gm;")
        for s in self.scratch:
            decls.append(f"    AscendC::GlobalTensor<{CTYPES[s.dtype]}> {s.name}Gm;")
        for v in self.symbols.views():
            decls.append(f"    AscendC::GlobalTensor<{self._gm_ctype(v)}> {v.name}Gm;")
        for name, ct in self.members.items():
            decls.append(f"    {ct} {name} = 0;")
        for i, g in enumerate(self.gemms):
            decls.append(f"    {self._matmul_type(g)} mm{i};")
            decls.append(f"    TCubeTiling cubeTiling{i};")
        work_bufs = [b for b in self.buffers.values()
                     if b.type.space == "veccalc" and b.name not in (self.work.get("xwork"), self.work.get("xidx"))]
        # declared for the whole of Process; taken from their buffers on the vector cores
        tensors = [f"        AscendC::LocalTensor<{UB_CTYPES[b.type.dtype]}> {b.name};" for b in work_bufs]
        gets = [f"        {b.name} = {b.name}Buf.Get<{UB_CTYPES[b.type.dtype]}>();" for b in work_bufs]
        if "xidx" in self.work:   # the byte offsets 32 * i of strided copies' Gathers, once
            gets.append(f"        {{ AscendC::LocalTensor<int32_t> xi_ = {self.work['xidx']}Buf.Get<int32_t>(); "
                        f"const int32_t n_ = static_cast<int32_t>(({self._buffer_elems(self.work['xwork'])}) / 8); "
                        f"AscendC::CreateVecIndex(xi_, static_cast<int32_t>(0), static_cast<uint32_t>(n_)); "
                        f"AscendC::Muls(xi_, xi_, static_cast<int32_t>(32), n_); }}")
        if self.core_type != "aic":
            gets.append("        scalarTmp = scalarBuf.Get<float>();")
        gets = tensors + self._on_kind("AIV", gets)
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
            HELPERS,
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
            PROCESS_BODY,
            *self.lines,
            # every core ends its Matmul objects, cores with an empty block too (in MIX mode End()
            # is what releases the AIC serving this vector core)
            *[f"        mm{i}.End();" for i in range(len(self.gemms))],
            "    }",
            "",
            "private:",
            SCALAR_METHODS,
            EVENT_SYNC if self.taps or "xwork" in self.work else "",
            TAP_STEP if self.taps else "",
            SCAN_TABLES if "sidx" in self.work else "",
            WINDOW_TABLES if "widx" in self.work else "",
            STRIDED_COPIES.replace("STRIDED_CHUNK", f"(({self._buffer_elems(self.work['xwork'])}) / 8)")
            .replace("XWORK_BUF", f"{self.work['xwork']}Buf").replace("XIDX_BUF", f"{self.work['xidx']}Buf")
            if "xwork" in self.work else "",
            "    AscendC::TPipe pipe;",
            *decls,
            "    AscendC::LocalTensor<float> scalarTmp;",
            "};",
            "",
            f'extern "C" __global__ __aicore__ void {self.op_name}({entry_args})',
            "{",
            f"    KERNEL_TASK_TYPE_DEFAULT({KERNEL_TYPES[self.core_type]});",
            f"    {self.cls} op;",
            f"    op.Init({call_args});",
            "    op.Process();",
            "}",
            "",
        ]
        text = "\n".join(out)
        at = text.index(PROCESS_BODY)
        self.first_line = text.count("\n", 0, at) + 2    # the line after the marker
        return text[:at] + text[at + len(PROCESS_BODY) + 1:]

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
                        self._tile_decls[s.target] = UB_CTYPES[t.dtype]
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
        if self.core_type == "mixtaps":
            self._phases_by_kind(body)
            return
        groups: list[list] = []
        for s in body:   # consecutive single-core statements form one group
            if groups and not on_all_cores(s) and not on_all_cores(groups[-1][0]):
                groups[-1].append(s)
            else:
                groups.append([s])
        for i, g in enumerate(groups):
            self._group(g)
            if i + 1 < len(groups) and not is_phase_loop(g[0]):
                self.emit("AscendC::SyncAll();")

    def _group(self, g: list):
        """One group of top-level statements: a loop of phases (SyncAll after each), a phase, or
        statements run on core 0."""
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

    def _for_header(self, s: A.For):
        negative = isinstance(s.step, A.Unary) or (isinstance(s.step, A.Int) and s.step.value < 0)
        self.emit(f"for (int64_t {s.var} = {self.scalar(s.start)}; {s.var} {'>' if negative else '<'} "
                  f"{self.scalar(s.stop)}; {s.var} += {self.scalar(s.step)}) {{")

    def _on_kind(self, kind: str, lines: list[str]) -> list[str]:
        """``lines`` (Init or Process lines) run only on the cores of ``kind`` ("AIV" or "AIC") in a
        kernel whose two kinds run code of their own (mixtaps); as they are otherwise."""
        if self.core_type != "mixtaps" or not lines:
            return lines
        return [f"        if ASCEND_IS_{kind} {{"] + ["    " + line for line in lines] + ["        }"]

    def _phase(self, p: A.ParallelFor):
        if self.core_type in ("mix", "mixtaps") and \
                not (isinstance(p.extents[0], A.Name) and p.extents[0].id == "CORES"):
            # a phase without a product, dealt over every vector core (partition: 2 * CORES): each
            # AIV takes its own, GetBlockIdx() in [0, GetBlockNum() * GetTaskRation())
            self.emit(f"for (int64_t {p.vars[0]} = AscendC::GetBlockIdx(); {p.vars[0]} < {self.scalar(p.extents[0])}; "
                      f"{p.vars[0]} += AscendC::GetBlockNum() * AscendC::GetTaskRation()) {{")
            self.depth += 1
        elif self.core_type == "mix":
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
        self.stored_in_phase = set()
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
        take = self.takes.pop(name, None)
        if take is not None:     # a product tile started early (codegen/gemm.py): taken at its first use
            take()
            return
        t = self.tiles[name]
        self.emit(f"{name} = {t.home}.DeQue<{t.ctype}>();")

    def _deque_used(self, s) -> frozenset:
        """DeQue the pending tiles of this block that ``s`` uses; return those a loop ``s`` takes
        over instead (its body's first use of them is ``t = name``, and it loads them again)."""
        pending = self.pending[-1]
        carried = set()
        for name in sorted(pending & mentions(s)) if pending else ():
            if isinstance(s, A.For) and loop_carries(s, name):
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
            raise unsupported(f"statement {type(s).__name__}", s)

    def _assign(self, s: A.Assign):
        e = s.value
        if isinstance(e, A.Load):
            self.read_after_own_stores(e.src, "MTE3_MTE2")
            self._load(s.target, e)
            return
        if is_gemm(e):
            self._gemm_tile(s.target, e)
            return
        if isinstance(e, A.Call) and e.func in OPS and OPS[e.func].kind == "api":
            self._api(s.target, e)
            return
        if isinstance(e, A.Name) and e.id in self.tiles:   # another name for a tile (prefetch)
            src = self.tiles[e.id]
            self.emit(f"{s.target} = {e.id};")
            self.tiles[s.target] = Tile(src.ctype, src.dtype, src.rows, src.cols, src.pitch, src.home)
            self._freeze(s.target)
            return
        self.emit(f"{s.target} = {self.scalar(e)};")

