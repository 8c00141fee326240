// The host side of the test operator's kernels: the tiling and the launch wrappers.
#pragma once
#include <cstdint>

#ifndef GM_ADDR
#define GM_ADDR uint8_t*
#endif

struct LeakyTiling {
    int64_t blocks = 1;
    uint32_t perBlock = 0, tile = 0;
};

LeakyTiling leaky_tiling(int64_t total, int64_t elementBytes);
void launch_leaky_float(GM_ADDR x, GM_ADDR y, int64_t total, LeakyTiling t, float slope, void* stream);
void launch_leaky_half(GM_ADDR x, GM_ADDR y, int64_t total, LeakyTiling t, float slope, void* stream);
