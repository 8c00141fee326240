// ascendcraft AscendC CPU simulator, host side: the include path "exe_graph/runtime/continuous_vector.h" (the gert contexts, shapes and tensors).
#pragma once
#include "../../asc_sim/host/context.h"
