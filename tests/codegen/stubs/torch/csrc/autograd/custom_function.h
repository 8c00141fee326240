// Stub of torch/csrc/autograd/custom_function.h (included by the six-string binding).
#pragma once
