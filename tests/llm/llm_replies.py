"""Canned model replies for the offline tests (all for tests/data/tasks/leaky_relu.py: x f32[8, 257], slope 0.2)."""
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
LEAKY_OP = TESTS / "data" / "tasks" / "leaky_relu.py"
SOFTMAX_OP = TESTS / "data" / "cli" / "softmax_op.py"   # rows of 70000 values: longer than the UB

KERNEL = """\
kernel leaky_relu(x: gm f32[B, N], negative_slope: f32 = 0.01) -> (y: gm f32[B, N]):
    const T = 8192
    const TW = minimum(N, T)
    const RB = maximum(1, T // TW)
    for rb, cb in parallel(cdiv(B, RB), cdiv(N, TW)):
        r = rb * RB
        c = cb * TW
        t = load(x[r:r + RB, c:c + TW])
        store(y[r:r + RB, c:c + TW], where(t >= 0.0, t, t * negative_slope))
"""

GOOD = f"Here is the kernel.\n\n```dsl\n{KERNEL}```\n"

# the kernel line lacks its colon
PARSE_ERROR = "```dsl\n" + KERNEL.replace("(y: gm f32[B, N]):", "(y: gm f32[B, N])", 1) + "```\n"

# a name that does not exist
CHECK_ERROR = "```dsl\n" + KERNEL.replace("t * negative_slope", "t * slope_typo") + "```\n"

# the slope hard-coded to a wrong value: runs, but the negative half is wrong
MISMATCH = "```dsl\n" + KERNEL.replace("t * negative_slope", "t * 0.3") + "```\n"

NO_CODE = "I would write a kernel that applies leaky ReLU element-wise over tiles of the input."

SOFTMAX_KERNEL = (TESTS / "data" / "cli" / "softmax.dsl").read_text()
SOFTMAX_WHOLE_ROW = (TESTS / "data" / "cli" / "softmax_whole_row.dsl").read_text()

# right in the interpreter, but a padded window of a computed tile has no AscendC selection rule
# (docs/dsl.md): fails at "lower" (the window's max of zeros and -inf padding is 0)
UNLOWERABLE = "```dsl\n" + KERNEL.replace(
    "        store(y[r:r + RB, c:c + TW], where(t >= 0.0, t, t * negative_slope))",
    "        u = where(t >= 0.0, t, t * negative_slope)\n"
    "        store(y[r:r + RB, c:c + TW], u + sum(window_max(zeros((8,), f32), kernel=(3,), padding=1)))") + "```\n"

# the same op, one block walking the rows in 64-wide pieces: verifies, but slower than KERNEL
SLOW_KERNEL = """\
kernel leaky_relu(x: gm f32[B, N], negative_slope: f32 = 0.01) -> (y: gm f32[B, N]):
    const T = 64
    for i in parallel(1):
        for r in range(B):
            for c in range(0, N, T):
                t = load(x[r:r + 1, c:c + T])
                store(y[r:r + 1, c:c + T], where(t >= 0.0, t, t * negative_slope))
"""
SLOW = f"A first kernel.\n\n```dsl\n{SLOW_KERNEL}```\n"
