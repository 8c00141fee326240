"""AscendC forms that NPUKernelBench's hand-written Foreach answers use and the simulator lacked, each in
a small kernel of our own checked against NumPy: the lib/math and lib/sigmoid header paths, the
element-wise advanced math APIs (Sin ... Erfc, Sign, Power, and the whole-tensor Log forms) in their
calCount / sharedTmpBuffer / whole-tensor overloads at fp32 and fp16 (Power also int32), level-0 Copy
with CopyRepeatParams, and API functions passed as function pointers (template arguments of
AscendC's exact function types), while a direct call's diagnostics still name the caller's line.
"""
from __future__ import annotations

import numpy as np
import pytest

from ascendcraft.sim import build_kernel, run_kernel

from sim_helpers import assert_close, poisoned

N = 256

# One kernel over DTYPE (a define): y = op(x, z). The includes are the paths the answers use.
MATH = """#include "kernel_operator.h"
#include "lib/math/kernel_operator_sin_intf.h"
#include "lib/math/kernel_operator_cos_intf.h"
#include "lib/math/kernel_operator_tan_intf.h"
#include "lib/math/kernel_operator_asin_intf.h"
#include "lib/math/kernel_operator_acos_intf.h"
#include "lib/math/kernel_operator_atan_intf.h"
#include "lib/math/kernel_operator_sinh_intf.h"
#include "lib/math/kernel_operator_cosh_intf.h"
#include "lib/math/kernel_operator_tanh_intf.h"
#include "lib/math/kernel_operator_erf_intf.h"
#include "lib/math/kernel_operator_erfc_intf.h"
#include "lib/math/kernel_operator_sign_intf.h"
#include "lib/math/kernel_operator_power_intf.h"
#include "lib/math/kernel_operator_log_intf.h"
#include "lib/sigmoid/kernel_operator_sigmoid_intf.h"
using namespace AscendC;

class MathOps {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR z, GM_ADDR y)
    {
        xGm.SetGlobalBuffer((__gm__ DTYPE *)x, N);
        zGm.SetGlobalBuffer((__gm__ DTYPE *)z, N);
        yGm.SetGlobalBuffer((__gm__ DTYPE *)y, N);
        pipe.InitBuffer(inQ, 1, 2 * N * sizeof(DTYPE));
        pipe.InitBuffer(outQ, 1, N * sizeof(DTYPE));
        pipe.InitBuffer(tmpBuf, 8192);
    }
    __aicore__ inline void Run(int32_t op)
    {
        LocalTensor<DTYPE> in = inQ.AllocTensor<DTYPE>();
        DataCopy(in, xGm, N);
        DataCopy(in[N], zGm, N);
        inQ.EnQue(in);
        in = inQ.DeQue<DTYPE>();
        LocalTensor<DTYPE> x = in[0];
        LocalTensor<DTYPE> z = in[N];
        x.SetSize(N);
        LocalTensor<DTYPE> y = outQ.AllocTensor<DTYPE>();
        LocalTensor<uint8_t> tmp = tmpBuf.Get<uint8_t>();
        const DTYPE two5 = static_cast<DTYPE>(2.5f);
        const DTYPE one5 = static_cast<DTYPE>(1.5f);
        switch (op) {
            case 0: Sin<DTYPE, false>(y, x, N); break;
            case 1: Cos(y, x, tmp, N); break;
            case 2: Tan(y, x); break;
            case 3: Asin<DTYPE, false>(y, x, tmp); break;
            case 4: Acos(y, x, N); break;
            case 5: Atan(y, x, N); break;
            case 6: Sinh(y, x, N); break;
            case 7: Cosh(y, x, tmp, N); break;
            case 8: Erf<DTYPE, false>(y, x, N); break;
            case 9: Erfc(y, x, N); break;
            case 10: Sign<DTYPE, false>(y, x, N); break;
            case 11: Log<DTYPE>(y, x); break;              // the whole-tensor forms (ForeachLog*)
            case 12: Log2<DTYPE, false>(y, x); break;
            case 13: Log10<DTYPE>(y, x); break;
            case 14: Power<DTYPE, false>(y, x, two5, static_cast<uint32_t>(N)); break;
            case 15: Power<DTYPE, false>(y, one5, x, N); break;
            case 16: Power(y, x, z, tmp, N); break;
            case 17: Power<DTYPE, false>(y, x, z); break;
            case 18: {   // level-0 Copy, as ForeachNorm: 64 elements of each of two repeats
                CopyRepeatParams params{1, 1, 8, 8};
                Duplicate(y, static_cast<DTYPE>(0), N);
                Copy(y, x, 64, 2, params);
                break;
            }
            default: Sigmoid(y, x); break;
        }
        outQ.EnQue(y);
        y = outQ.DeQue<DTYPE>();
        DataCopy(yGm, y, N);
        outQ.FreeTensor(y);
        inQ.FreeTensor(in);
    }

private:
    static constexpr uint32_t N = 256;
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQ;
    TQue<TPosition::VECOUT, 1> outQ;
    TBuf<TPosition::VECCALC> tmpBuf;
    GlobalTensor<DTYPE> xGm, zGm, yGm;
};

extern "C" __global__ __aicore__ void math_ops(GM_ADDR x, GM_ADDR z, GM_ADDR y, int32_t op)
{
    MathOps k;
    k.Init(x, z, y);
    k.Run(op);
}
"""

UNARY = {
    0: (np.sin, (-3, 3)), 1: (np.cos, (-3, 3)), 2: (np.tan, (-1.2, 1.2)), 3: (np.arcsin, (-0.95, 0.95)),
    4: (np.arccos, (-0.95, 0.95)), 5: (np.arctan, (-4, 4)), 6: (np.sinh, (-3, 3)), 7: (np.cosh, (-3, 3)),
    8: (lambda v: np.vectorize(__import__("math").erf)(v), (-2.5, 2.5)),
    9: (lambda v: np.vectorize(__import__("math").erfc)(v), (-2.5, 2.5)),
    10: (np.sign, (-2, 2)), 11: (np.log, (0.05, 4)), 12: (np.log2, (0.05, 4)), 13: (np.log10, (0.05, 4)),
    19: (lambda v: 1 / (1 + np.exp(-v)), (-5, 5)),
}
NAMES = {0: "Sin", 1: "Cos", 2: "Tan", 3: "Asin", 4: "Acos", 5: "Atan", 6: "Sinh", 7: "Cosh", 8: "Erf",
         9: "Erfc", 10: "Sign", 11: "Log", 12: "Log2", 13: "Log10", 19: "Sigmoid"}
DTYPES = {"float": np.float32, "half": np.float16}


@pytest.fixture(scope="module")
def arts():
    out = {}
    for name in ("float", "half", "int32_t"):
        a = build_kernel(MATH, "math_ops", defines={"DTYPE": name})
        assert a.warnings == []
        out[name] = a
    return out


def _run(art, x, z, op, dtype):
    res = run_kernel(art, [x, z, poisoned(N, dtype) if dtype != np.int32 else np.zeros(N, dtype), op], block_dim=1)
    assert res.ok, res.report()
    return res.outputs[2]


def _check(y, want, dtype):
    if dtype == np.float16:
        # computed in fp32 from the fp16 inputs, rounded once to fp16
        assert_close(y.astype(np.float32), want.astype(np.float16).astype(np.float32), np.float16)
    else:
        assert_close(y, want)


@pytest.mark.parametrize("dt", ["float", "half"])
@pytest.mark.parametrize("op", sorted(UNARY), ids=lambda o: NAMES[o])
def test_unary_math_api(arts, dt, op):
    f, (lo, hi) = UNARY[op]
    dtype = DTYPES[dt]
    rng = np.random.default_rng(op)
    x = rng.uniform(lo, hi, N).astype(dtype)
    if op == 10:
        x[:8] = 0
    y = _run(arts[dt], x, np.zeros(N, dtype), op, dtype)
    _check(y, f(x.astype(np.float64)), dtype)


@pytest.mark.parametrize("dt", ["float", "half"])
def test_power_forms(arts, dt):
    dtype = DTYPES[dt]
    rng = np.random.default_rng(3)
    x = rng.uniform(0.2, 3, N).astype(dtype)
    z = rng.uniform(-2, 2, N).astype(dtype)
    xd, zd = x.astype(np.float64), z.astype(np.float64)
    _check(_run(arts[dt], x, z, 14, dtype), xd ** 2.5, dtype)          # tensor ^ scalar
    _check(_run(arts[dt], x, z, 15, dtype), 1.5 ** xd, dtype)          # scalar ^ tensor
    _check(_run(arts[dt], x, z, 16, dtype), xd ** zd, dtype)           # tensor ^ tensor, sharedTmpBuffer
    _check(_run(arts[dt], x, z, 17, dtype), xd ** zd, dtype)           # whole tensor


def _ipow(b, e):
    """int32 Power as asc-devkit computes it: wrapping powers, trunc(1 / b^|e|) for e < 0 (0 where b^|e| = 0)."""
    r = pow(int(b), abs(int(e))) & 0xFFFFFFFF
    r = r - (1 << 32) if r >= 1 << 31 else r
    if e >= 0:
        return r
    return 0 if r == 0 else int(np.float32(1) / np.float32(r))


def test_power_int32_tensor_tensor(arts):
    rng = np.random.default_rng(7)
    x = rng.integers(-4, 5, N).astype(np.int32)
    z = rng.integers(-3, 9, N).astype(np.int32)
    x[:4], z[:4] = [2, 3, 65536, -1], [31, 21, 2, -7]   # wrap-around and a negative odd exponent
    y = _run(arts["int32_t"], x, z, 17, np.int32)
    np.testing.assert_array_equal(y, [_ipow(b, e) for b, e in zip(x, z)])


@pytest.mark.parametrize("dt", ["float", "half"])
def test_level0_copy_with_copy_repeat_params(arts, dt):
    dtype = DTYPES[dt]
    x = np.random.default_rng(1).standard_normal(N).astype(dtype)
    y = _run(arts[dt], x, x, 18, dtype)
    epr = 256 // np.dtype(dtype).itemsize              # elements per repeat
    want = np.zeros(N, dtype)
    for r in range(2):
        want[r * epr:r * epr + 64] = x[r * epr:r * epr + 64]
    np.testing.assert_array_equal(y, want)


def test_math_api_rejects_int32(arts):
    res = run_kernel(arts["int32_t"], [np.ones(N, np.int32), np.ones(N, np.int32), np.zeros(N, np.int32), 0],
                     block_dim=1)
    assert not res.ok
    assert any(d.rule == "dtype" and d.api == "Sin" for d in res.diagnostics), res.report()


# API functions as function pointers, in the forms of the answers' templates: AscendC's exact
# function types, bound to the bare name (Div, Adds, Sub, Exp) or a specialization (Sin<T, false>).
POINTERS = """#include "kernel_operator.h"
using namespace AscendC;

template <typename T> using NoScalarBinaryOp = void(const LocalTensor<T>&, const LocalTensor<T>&, const LocalTensor<T>&,
                                                    const int32_t&);
template <typename T> using LevelZeroOp = void(const LocalTensor<T>&, const LocalTensor<T>&, const LocalTensor<T>&,
                                               uint64_t, const uint8_t, const BinaryRepeatParams&);
template <typename T> using OneScalarBinaryOp = void(const LocalTensor<T>&, const LocalTensor<T>&, const T&,
                                                     const int32_t&);
template <typename T> using UnaryOp = void(const LocalTensor<T>&, const LocalTensor<T>&, const int32_t&);
template <typename T> using TriangleOp = void(const LocalTensor<T>&, const LocalTensor<T>&, const uint32_t);

template <typename T, NoScalarBinaryOp<T>* op> __aicore__ inline void Binary(
    const LocalTensor<T>& y, const LocalTensor<T>& x, const LocalTensor<T>& z, int32_t n) { op(y, x, z, n); }
template <typename T, LevelZeroOp<T>* op> __aicore__ inline void LevelZero(
    const LocalTensor<T>& y, const LocalTensor<T>& x, const LocalTensor<T>& z, int32_t n)
{
    BinaryRepeatParams p;
    op(y, x, z, 256 / sizeof(T), n * sizeof(T) / 256, p);
}
template <typename T, OneScalarBinaryOp<T>* op> __aicore__ inline void Scalar(
    const LocalTensor<T>& y, const LocalTensor<T>& x, T s, int32_t n) { op(y, x, s, n); }
template <typename T, UnaryOp<T>* op> __aicore__ inline void Unary(
    const LocalTensor<T>& y, const LocalTensor<T>& x, int32_t n) { op(y, x, n); }
template <typename T, TriangleOp<T>* op> __aicore__ inline void Triangle(
    const LocalTensor<T>& y, const LocalTensor<T>& x, uint32_t n) { op(y, x, n); }

extern "C" __global__ __aicore__ void pointers(GM_ADDR x, GM_ADDR z, GM_ADDR y, int32_t op, int32_t n)
{
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQ;
    TQue<TPosition::VECOUT, 1> outQ;
    pipe.InitBuffer(inQ, 1, 2 * 256 * sizeof(DTYPE));
    pipe.InitBuffer(outQ, 1, 256 * sizeof(DTYPE));
    GlobalTensor<DTYPE> xGm, zGm, yGm;
    xGm.SetGlobalBuffer((__gm__ DTYPE *)x, 256);
    zGm.SetGlobalBuffer((__gm__ DTYPE *)z, 256);
    yGm.SetGlobalBuffer((__gm__ DTYPE *)y, 256);
    LocalTensor<DTYPE> in = inQ.AllocTensor<DTYPE>();
    DataCopy(in, xGm, 256);
    DataCopy(in[256], zGm, 256);
    inQ.EnQue(in);
    in = inQ.DeQue<DTYPE>();
    LocalTensor<DTYPE> a = in[0], b = in[256];
    LocalTensor<DTYPE> c = outQ.AllocTensor<DTYPE>();
    const DTYPE s = static_cast<DTYPE>(1.5f);
    switch (op) {
        case 0: Binary<DTYPE, Div>(c, a, b, n); break;
        case 1: Binary<DTYPE, Max>(c, a, b, n); break;
        case 2: LevelZero<DTYPE, Sub>(c, a, b, n); break;
        case 3: LevelZero<DTYPE, Div<DTYPE, true>>(c, a, b, n); break;
        case 4: Scalar<DTYPE, Adds>(c, a, s, n); break;
        case 5: Scalar<DTYPE, Mins>(c, a, s, n); break;
        case 6: Unary<DTYPE, Exp>(c, a, n); break;
        case 7: Triangle<DTYPE, Sin<DTYPE, false>>(c, a, n); break;
        case 8: Triangle<DTYPE, Sigmoid>(c, a, n); break;
        case 9: Div(c, a, b, n); break;                           // direct calls: diagnostics at this line
        case 10: Sin(c, a, static_cast<uint32_t>(n)); break;
        default: Adds(c, a, s, n); break;
    }
    outQ.EnQue(c);
    c = outQ.DeQue<DTYPE>();
    DataCopy(yGm, c, 256);
    outQ.FreeTensor(c);
    inQ.FreeTensor(in);
}
"""

POINTER_WANT = {
    0: lambda x, z: x / z, 1: np.maximum, 2: lambda x, z: x - z, 3: lambda x, z: x / z,
    4: lambda x, z: x + 1.5, 5: lambda x, z: np.minimum(x, 1.5), 6: lambda x, z: np.exp(x),
    7: lambda x, z: np.sin(x), 8: lambda x, z: 1 / (1 + np.exp(-x)),
}


@pytest.fixture(scope="module")
def ptr_arts():
    out = {}
    for name in ("float", "half"):
        a = build_kernel(POINTERS, "pointers", defines={"DTYPE": name})
        assert a.warnings == []
        out[name] = a
    return out


def _run_ptr(art, dtype, op, n=N):
    rng = np.random.default_rng(op)
    x = rng.uniform(-2, 2, N).astype(dtype)
    z = rng.uniform(0.5, 2, N).astype(dtype)
    return x, z, run_kernel(art, [x, z, poisoned(N, dtype), op, n], block_dim=1)


@pytest.mark.parametrize("dt", ["float", "half"])
@pytest.mark.parametrize("op", sorted(POINTER_WANT))
def test_api_function_as_pointer(ptr_arts, dt, op):
    dtype = DTYPES[dt]
    x, z, res = _run_ptr(ptr_arts[dt], dtype, op)
    assert res.ok, res.report()
    _check(res.outputs[2], POINTER_WANT[op](x.astype(np.float64), z.astype(np.float64)), dtype)


def _line_of(src, needle):
    return next(i for i, text in enumerate(src.splitlines(), 1) if needle in text)


@pytest.mark.parametrize("op, api, needle", [(9, "Div", "case 9: Div(c, a, b, n);"),
                                             (10, "Sin", "case 10: Sin(c, a,"),
                                             (11, "Adds", "default: Adds(c, a, s, n);")])
def test_direct_call_diagnostic_names_the_callers_line(ptr_arts, op, api, needle):
    # 300 elements overrun the 256-element output buffer
    _, _, res = _run_ptr(ptr_arts["float"], np.float32, op, n=300)
    assert not res.ok
    errs = [d for d in res.diagnostics if d.severity == "error"]
    assert errs and errs[0].api == api, res.report()
    assert errs[0].line == _line_of(POINTERS, needle), res.report()


def test_pointer_call_diagnostic_is_reported_in_the_kernel(ptr_arts):
    # through a pointer there is no call-site line: the error names the API, at the last API call's line
    _, _, res = _run_ptr(ptr_arts["float"], np.float32, 0, n=300)
    assert not res.ok
    errs = [d for d in res.diagnostics if d.severity == "error"]
    assert errs and errs[0].api == "Div", res.report()
    assert errs[0].line is not None and errs[0].line <= len(POINTERS.splitlines())
