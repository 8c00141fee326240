#pragma once
#include "../matmul_intf.h"
