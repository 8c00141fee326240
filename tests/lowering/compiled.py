"""The lowering tests' one step: a kernel and an op file of the test's own, compiled and verified
on the simulator at both shape sets."""
import ascendcraft


def compile_verified(tmp_path, kernel: str, op: str, trials: int = 3, model_time: bool = False):
    (tmp_path / "k.dsl").write_text(kernel.lstrip("\n"))
    (tmp_path / "op.py").write_text(op)
    k = ascendcraft.compile(tmp_path / "k.dsl", tmp_path / "op.py", trials=trials, model_time=model_time)
    assert k.report["backend_verification"]["verdict"] == "PASS"
    assert k.report["backend_second_shapes_verification"]["verdict"] == "PASS"
    return k
