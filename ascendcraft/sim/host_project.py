"""The layout of a CANN custom-operator project (an msopgen folder with ``op_host/`` and ``op_kernel/``) as the
simulator reads it, and the names that map between its OpDef and NumPy: data types, formats, the kernel
entry's name. See docs/simulator.md, "CANN projects (op_host on the simulator)"."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..cann_names import snake_case
from ..errors import UserError
from .signature import strip_comments

#: the files of a project the simulator reads, by extension
HOST_SOURCE_EXTS = (".cpp", ".cc", ".cxx")
TEXT_EXTS = HOST_SOURCE_EXTS + (".h", ".hpp", ".hh", ".inc", ".inl")
#: op_host files of CANN's aclnn op-API layer (the ``opapi`` library of an msopgen CMakeLists: aclnn_*.cpp,
#: *_l0.cpp, files on the opdev/aclnn headers): they call the NPU runtime, not the tiling, and are not built
_OPAPI_NAME = re.compile(r"^aclnn_|_l0\.(cpp|cc|cxx)$")
_OPAPI_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"](opdev/|aclnn/|aclnn_kernels/|aclnnop/|level[0-9]/)', re.M)


@dataclass(frozen=True)
class DType:
    """One ge::DataType: its enum value and name, the NumPy type of its arrays (float32 for bf16, whose
    values travel as bf16-exact float32), and the C type a kernel's ``DTYPE_<NAME>`` macro names."""

    name: str          # "float16"
    ge: int            # 1
    ge_name: str       # "DT_FLOAT16"
    numpy: np.dtype | None
    ctype: str         # "half"


# ge::DataType values: metadef inc/external/graph/types.h; the C types: asc-devkit
# cmake/asc/fwk_modules/util/ascendc_impl_build.py DTYPE_MAP (the -DDTYPE_<NAME>=<type> of a CANN build)
_DTYPES = (
    DType("float32", 0, "DT_FLOAT", np.dtype(np.float32), "float"),
    DType("float16", 1, "DT_FLOAT16", np.dtype(np.float16), "half"),
    DType("int8", 2, "DT_INT8", np.dtype(np.int8), "int8_t"),
    DType("int32", 3, "DT_INT32", np.dtype(np.int32), "int32_t"),
    DType("uint8", 4, "DT_UINT8", np.dtype(np.uint8), "uint8_t"),
    DType("int16", 6, "DT_INT16", np.dtype(np.int16), "int16_t"),
    DType("uint16", 7, "DT_UINT16", np.dtype(np.uint16), "uint16_t"),
    DType("uint32", 8, "DT_UINT32", np.dtype(np.uint32), "uint32_t"),
    DType("int64", 9, "DT_INT64", np.dtype(np.int64), "int64_t"),
    DType("uint64", 10, "DT_UINT64", np.dtype(np.uint64), "uint64_t"),
    DType("float64", 11, "DT_DOUBLE", np.dtype(np.float64), "double"),
    DType("bool", 12, "DT_BOOL", np.dtype(np.bool_), "bool"),
    DType("complex64", 16, "DT_COMPLEX64", np.dtype(np.complex64), "complex64"),
    DType("complex128", 17, "DT_COMPLEX128", np.dtype(np.complex128), "complex128"),
    DType("bfloat16", 27, "DT_BF16", np.dtype(np.float32), "bfloat16_t"),
    DType("int4", 29, "DT_INT4", None, "int4b_t"),
)
_ALIASES = {"float": "float32", "half": "float16", "double": "float64", "bf16": "bfloat16", "bool_": "bool"}
DTYPES = {d.name: d for d in _DTYPES}
_BY_GE_NAME = {d.ge_name: d for d in _DTYPES}

# ge::Format values (metadef types.h); a project names them FORMAT_<name>
FORMATS = {"NCHW": 0, "NHWC": 1, "ND": 2, "NC1HWC0": 3, "FRACTAL_Z": 4, "HWCN": 16, "NDHWC": 27, "FRACTAL_NZ": 29,
           "NCDHW": 30, "NDC1HWC0": 32, "FRACTAL_Z_3D": 33, "NC": 35, "NCL": 47}


def dtype(name) -> DType:
    """A data type by its NumPy name (``"float16"``, ``np.float16``), ge name (``"DT_FLOAT16"``) or alias."""
    if isinstance(name, DType):
        return name
    key = str(name) if isinstance(name, str) else np.dtype(name).name
    key = _ALIASES.get(key, key)
    if key in DTYPES:
        return DTYPES[key]
    if key in _BY_GE_NAME:
        return _BY_GE_NAME[key]
    raise UserError(f"unknown data type {name!r}", hint="use a NumPy name (float16, float32, int32, bool, ...), "
                                                        "bfloat16, or a ge name such as DT_FLOAT16")


def dtype_of_ge_name(ge_name: str) -> DType | None:
    return _BY_GE_NAME.get(ge_name)


def format_value(name) -> int:
    key = str(name).removeprefix("FORMAT_")
    if key not in FORMATS:
        raise UserError(f"unknown tensor format {name!r}", hint="known: " + ", ".join(FORMATS))
    return FORMATS[key]


@dataclass(frozen=True)
class Project:
    """The files of a project: every text file of ``op_host`` (``host_files``, by path relative to
    ``op_host``), those that are compiled (``host_sources``), and every text file of ``op_kernel``."""

    root: Path
    host_files: dict
    host_sources: tuple[str, ...]
    skipped_sources: tuple[str, ...]
    kernel_files: dict

    def kernel_source(self, op_type: str) -> tuple[str, str]:
        """(file name, text) of the kernel entry's file ``op_kernel/<snake>.cpp``."""
        name = snake_case(op_type) + ".cpp"
        if name not in self.kernel_files:
            have = ", ".join(sorted(f for f in self.kernel_files if f.endswith(".cpp"))) or "none"
            raise UserError(f"{self.root}: no op_kernel/{name} for the op {op_type}",
                            hint=f"the kernel of an msopgen project is op_kernel/<op in snake case>.cpp; .cpp files "
                                 f"found: {have}")
        return name, self.kernel_files[name]

    def tiling_header(self, op_type: str) -> tuple[str, str, str] | None:
        """(file, text, struct) of the op_host header that registers the op's tiling struct
        (REGISTER_TILING_DATA_CLASS(Op, Struct)), or that defines one and is named ``<snake>_tiling.h``."""
        pattern = re.compile(r"REGISTER_TILING_DATA_CLASS\s*\(\s*" + re.escape(op_type) + r"\s*,\s*(\w+)\s*\)")
        for name, text in sorted(self.host_files.items()):
            m = pattern.search(strip_comments(text))
            if m and not name.endswith(HOST_SOURCE_EXTS):
                return name, text, m.group(1)
        wanted = snake_case(op_type) + "_tiling.h"
        for name, text in sorted(self.host_files.items()):
            if Path(name).name == wanted:
                structs = re.findall(r"BEGIN_TILING_DATA_DEF\s*\(\s*(\w+)\s*\)", strip_comments(text))
                if structs:
                    return name, text, structs[-1]
        return None


def read_project(project_dir) -> Project:
    """The op_host and op_kernel files of ``project_dir``; a folder without ``op_host`` is a UserError."""
    root = Path(project_dir)
    host = root / "op_host"
    if not host.is_dir():
        raise UserError(f"{root} has no op_host folder",
                        hint="pass the folder of a CANN custom-operator project (msopgen): op_host/, op_kernel/")
    host_files = _text_files(host)
    sources, skipped = [], []
    for name in sorted(host_files):
        if not name.endswith(HOST_SOURCE_EXTS):
            continue
        opapi = (_OPAPI_NAME.search(Path(name).name) or name.startswith("op_api/")
                 or _OPAPI_INCLUDE.search(host_files[name]))
        (skipped if opapi else sources).append(name)
    if not sources:
        raise UserError(f"{host} has no source to build (.cpp/.cc)" + (f"; skipped as aclnn op-API files: "
                                                                        f"{', '.join(skipped)}" if skipped else ""))
    kernel = root / "op_kernel"
    return Project(root, host_files, tuple(sources), tuple(skipped), _text_files(kernel) if kernel.is_dir() else {})


def _text_files(folder: Path) -> dict[str, str]:
    out = {}
    for p in sorted(folder.rglob("*")):
        if p.is_file() and p.suffix in TEXT_EXTS:
            out[p.relative_to(folder).as_posix()] = p.read_text(errors="replace")
    return out
