// ascendcraft AscendC CPU simulator, host side: the include path "exe_graph/runtime/infer_shape_range_context.h" (the gert contexts, shapes and tensors).
#pragma once
#include "../../asc_sim/host/context.h"
