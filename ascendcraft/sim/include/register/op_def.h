// ascendcraft AscendC CPU simulator, host side: the include path "register/op_def.h" (ops::OpDef and its builders).
#pragma once
#include "../asc_sim/host/op_def.h"
