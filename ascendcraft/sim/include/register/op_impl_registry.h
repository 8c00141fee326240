// ascendcraft AscendC CPU simulator, host side: the include path "register/op_impl_registry.h" (gert::OpImplRegisterV2, IMPL_OP, IMPL_OP_OPTILING, IMPL_OP_INFERSHAPE).
#pragma once
#include "../asc_sim/host/op_def.h"
