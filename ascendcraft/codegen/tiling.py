"""The tiling struct of a lowered kernel, in the CANN 8.x macro style (ascendc_api.md 5.1)."""
from __future__ import annotations

from .spec import KernelSpec


def render_tiling_header(spec: KernelSpec) -> str:
    # 8-byte fields first, then 4-byte floats: every field is naturally aligned (5.1).
    fields = sorted(spec.tiling_fields, key=lambda f: f.ctype != "int64_t")
    body = "\n".join(f"TILING_DATA_FIELD_DEF({f.ctype}, {f.name});" for f in fields)
    return (f'#include "register/tilingdata_base.h"\n\nnamespace optiling {{\n'
            f"BEGIN_TILING_DATA_DEF({spec.tiling_struct})\n{body}\nEND_TILING_DATA_DEF;\n\n"
            f"REGISTER_TILING_DATA_CLASS({spec.op_type}, {spec.tiling_struct})\n}}  // namespace optiling\n")
