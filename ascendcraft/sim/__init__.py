"""AscendC CPU simulator (backend ``sim``): the AscendC API re-implemented in C++ headers,
hardware-rule checks, a sandboxed runner and a cost model.  See docs/simulator.md."""
from .cost import COST_CONSTANTS, CostReport, CoreCost
from .build import KernelArtifact, SimBuildError, build_kernel, cache_dir
from .result import Diagnostic, SimResult
from .runner import GmSpec, gm, run_kernel

__all__ = ["build_kernel", "run_kernel", "SimResult", "Diagnostic", "KernelArtifact", "SimBuildError", "CostReport",
           "CoreCost", "GmSpec", "gm", "cache_dir", "COST_CONSTANTS"]
