"""A CANN project's host side on the simulator: the OpDef described, the project's own TilingFunc run on cases
(attributes, a tiling key by data type and by shape, a block dim below the core count, an absent optional input,
TilingParse's compile info, the platform of the chip profile). Projects: tests/sim/host/projects/."""
from __future__ import annotations

import struct
from pathlib import Path

import pytest

from ascendcraft.chips import load_chip
from ascendcraft.errors import UserError
from ascendcraft.sim.build import sandbox_support
from ascendcraft.sim.host import describe_project, run_tiling

PROJECTS = Path(__file__).parent / "projects"
SCALE_SHIFT = PROJECTS / "scale_shift"
WORKSPACE_DOUBLE = PROJECTS / "workspace_double"


def _scale_shift_fields(t) -> dict:
    names = ("totalLength", "blockLength", "tileLength", "hasBias", "alpha", "beta")
    return dict(zip(names, struct.unpack("<4I2f", t.tiling)))


def test_describe_reads_the_opdef():
    sig = describe_project(SCALE_SHIFT)
    assert (sig.name, sig.kernel_name) == ("ScaleShift", "scale_shift")
    assert [(p.name, p.param_type) for p in sig.inputs] == [("x", "REQUIRED"), ("bias", "OPTIONAL")]
    assert sig.inputs[0].dtypes == ("DT_FLOAT16", "DT_FLOAT") and sig.inputs[0].formats == ("ND", "ND")
    assert [(p.name, p.param_type, p.dtypes) for p in sig.outputs] == [("y", "REQUIRED", ("DT_FLOAT16", "DT_FLOAT"))]
    assert [(a.name, a.type, a.required, a.default) for a in sig.attrs] == [
        ("alpha", "float", False, 1.0), ("beta", "float", True, None)]
    assert sig.infer_shape and sig.infer_dtype == "InferDataType" and sig.tiling and not sig.tiling_parse
    assert sig.configs == ("ascend910b",) and sig.sources == ("scale_shift.cpp",)

    other = describe_project(WORKSPACE_DOUBLE)   # the IMPL_OP style: tiling and InferShape not in the OpDef
    assert other.tiling and other.tiling_parse and other.infer_shape and other.infer_dtype is None


def test_attributes_and_the_data_type_decide_the_tiling():
    half = run_tiling(SCALE_SHIFT, {"inputs": [{"shape": [3, 1000], "dtype": "float16"}],
                                    "attrs": {"alpha": 0.5, "beta": -2}})
    f = _scale_shift_fields(half)
    assert half.tiling_key == 1 and half.data_size == 24 and len(half.tiling) == 24
    assert (f["alpha"], f["beta"], f["hasBias"], f["totalLength"], f["tileLength"]) == (0.5, -2.0, 0, 3000, 2048)
    assert half.output_shapes == ((3, 1000),) and half.output_dtypes == ("float16",)   # InferShape, InferDataType
    single = run_tiling(SCALE_SHIFT, {"inputs": [{"shape": [3, 1000], "dtype": "float32"},
                                                 {"shape": [3, 1000], "dtype": "float32"}], "attrs": {"beta": 1}})
    g = _scale_shift_fields(single)
    assert single.tiling_key == 2 and g["tileLength"] == 1024 and g["hasBias"] == 1 and g["alpha"] == 1.0
    assert single.output_dtypes == ("float32",)
    assert half.sandboxed == sandbox_support()[0]


def test_block_dim_follows_the_input_and_the_chip():
    small = run_tiling(SCALE_SHIFT, {"inputs": [{"shape": [5000], "dtype": "float32"}], "attrs": {"beta": 0}})
    assert small.block_dim == 5 < load_chip("910B2").aiv_cores
    big = {"inputs": [{"shape": [64, 2048], "dtype": "float16"}], "attrs": {"beta": 0}}
    assert run_tiling(SCALE_SHIFT, big).block_dim == load_chip("910B2").aiv_cores == 48
    assert run_tiling(SCALE_SHIFT, big, chip="310P3").block_dim == load_chip("310P3").aic_cores == 8
    assert small.workspace_sizes == (16 << 20,) and small.system_workspace == 16 << 20 and small.user_workspace == 0


def test_tiling_key_by_shape_compile_info_and_user_workspace():
    aligned = run_tiling(WORKSPACE_DOUBLE, {"inputs": [{"shape": [4096], "dtype": "float32"}]})
    tail = run_tiling(WORKSPACE_DOUBLE, {"inputs": [{"shape": [3001], "dtype": "float32"}]})
    assert (aligned.tiling_key, tail.tiling_key) == (1, 2)
    assert struct.unpack("<3I", aligned.tiling) == (4096, 1024, 1024)   # GetTilingData<T>() set the data size
    assert (aligned.block_dim, tail.block_dim) == (4, 3)
    assert aligned.user_workspace == 4 * 1024 * 4 and tail.user_workspace == 3 * 1008 * 4
    assert tail.output_dtypes == ("float32",)   # no InferDataType: the OpDef's dtype table
    # TilingParse read the chip: on 310P3 (8 AI cores, no split) the same input takes 4 blocks too, a larger
    # one stops at 8
    assert run_tiling(WORKSPACE_DOUBLE, {"inputs": [{"shape": [65536], "dtype": "float32"}]},
                      chip="310P3").block_dim == 8


def test_case_errors_name_what_is_wrong():
    with pytest.raises(UserError, match="required attribute beta"):
        run_tiling(SCALE_SHIFT, {"inputs": [{"shape": [8], "dtype": "float16"}]})
    with pytest.raises(UserError, match="has no attribute 'gamma'"):
        run_tiling(SCALE_SHIFT, {"inputs": [{"shape": [8], "dtype": "float16"}], "attrs": {"beta": 0, "gamma": 1}})
    with pytest.raises(UserError, match="input x of ScaleShift is REQUIRED"):
        run_tiling(SCALE_SHIFT, {"inputs": [None], "attrs": {"beta": 0}})
    with pytest.raises(UserError, match="unknown data type"):
        run_tiling(SCALE_SHIFT, {"inputs": [{"shape": [8], "dtype": "float17"}], "attrs": {"beta": 0}})


def test_the_work_buffer_sizes_of_the_adv_api_tiling_helpers(tmp_path):
    """GetMeanMaxMinTmpSize and GetSigmoidMaxMinTmpSize, called from a TilingFunc, give the sizes of
    asc-devkit's formulas (half accumulated in float: the partials' blocks plus a float copy of the row)."""
    import shutil
    project = tmp_path / "scale_shift"
    shutil.copytree(SCALE_SHIFT, project)
    host = project / "op_host" / "scale_shift.cpp"
    text = host.read_text().replace('#include "tiling/platform/platform_ascendc.h"',
                                    '#include "tiling/platform/platform_ascendc.h"\n#include "tiling/tiling_api.h"')
    text = text.replace("    tiling.set_totalLength(total);\n    tiling.set_blockLength(blockLength);\n    tiling.set_tileLength(tile);", """
    uint32_t meanMax = 0, meanMin = 0, sigMax = 0, sigMin = 0;
    AscendC::GetMeanMaxMinTmpSize(total, elem, 4, false, meanMax, meanMin);
    AscendC::GetSigmoidMaxMinTmpSize(ge::Shape(std::vector<int64_t>{total}), elem, false, sigMax, sigMin);
    tiling.set_totalLength(meanMax);
    tiling.set_blockLength(sigMax);
    tiling.set_tileLength(sigMin);""")
    host.write_text(text)
    t = _scale_shift_fields(run_tiling(project, {"inputs": [{"shape": [3, 1000], "dtype": "float16"}],
                                                 "attrs": {"beta": 1}}))
    # 3000 halves: 47 repeats of 64 floats -> 64 bytes of partials, plus 3008 floats
    assert (t["totalLength"], t["blockLength"], t["tileLength"]) == (64 + 3008 * 4, 6000, 256)
