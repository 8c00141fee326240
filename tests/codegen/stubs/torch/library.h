// Stub of torch/library.h (the six-string binding includes it as MultiKernelBench's do).
#pragma once
#include "extension.h"
