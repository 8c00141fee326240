// ascendcraft AscendC CPU simulator, host side: the include path "register/op_def_registry.h" (OpDef, OP_ADD, IMPL_OP_*, the gert contexts).
#pragma once
#include "../asc_sim/host/op_def.h"
