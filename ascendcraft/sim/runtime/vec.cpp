// ascendcraft AscendC CPU simulator: the bodies of vec.h's functions, compiled once per
// library version and linked into every kernel (build.py), so a kernel's build compiles only itself.
#include "kernel_operator.h"

namespace asc_sim {

std::string dt_list(int dts) {
    std::string r;
    const char* names[] = {"half", "float", "int16_t", "int32_t", "uint16_t", "bfloat16_t", "uint8_t", "int8_t", "uint32_t"};
    for (int i = 0; i < 9; ++i)
        if (dts & (1 << i)) r += (r.empty() ? "" : ", ") + std::string(names[i]);
    return r;
}

void vec_schedule(uint64_t bytes, double cpr, int r0, int r1, int w0, uint64_t elems) {
    Deps d;
    d.rd[0] = r0;
    d.rd[1] = r1;
    d.wr[0] = w0;
    schedule(Pipe::V, vec_cycles(bytes, cpr), d);
    S().stats.vec_elems += elems;
}

}  // namespace asc_sim
