// ascendcraft AscendC CPU simulator: the bodies of copy.h's functions, compiled once per
// library version and linked into every kernel (build.py), so a kernel's build compiles only itself.
#include "kernel_operator.h"

namespace AscendC {

void asc_sim_check_pad_supported(const char* api, const asc_sim::Loc& loc) {
    if (!asc_sim::S().cfg.data_copy_pad)
        asc_sim::fail("unsupported-api", api, loc,
                      asc_sim::fmt("DataCopyPad is not supported on %s (no data_move_pad instruction)",
                                   asc_sim::S().cfg.chip.c_str()));
}

void asc_sim_check_pad_count(const char* api, const asc_sim::Loc& loc, uint32_t count) {
    if (count > 4095)
        asc_sim::fail("param-range", api, loc,
                      asc_sim::fmt("DataCopyPad: blockCount=%u is outside the documented range [0, 4095]; split the "
                                   "copy", count));
}

}  // namespace AscendC
