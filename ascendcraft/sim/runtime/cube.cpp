// ascendcraft AscendC CPU simulator: the bodies of cube.h's functions, compiled once per
// library version and linked into every kernel (build.py), so a kernel's build compiles only itself.
#include "kernel_operator.h"

namespace asc_sim {

const char* quant_name(QuantMode_t q) {
    switch (q) {
        case NoQuant: return "NoQuant";
        case F322F16: return "F322F16";
        case F322BF16: return "F322BF16";
        case DEQF16: return "DEQF16";
        case VDEQF16: return "VDEQF16";
        case QF322B8_PRE: return "QF322B8_PRE";
        case VQF322B8_PRE: return "VQF322B8_PRE";
        case REQ8: return "REQ8";
        case VREQ8: return "VREQ8";
        default: return "QuantMode_t";
    }
}

void check_src_loaded(const char* api, const Loc& loc, int sp, uint32_t lo, uint32_t hi, bool any) {
    if (!any)
        fail("uninit-read", api, loc,
             fmt("%s reads src bytes 0x%x..0x%x of %s, none of which anything wrote since the buffer was allocated",
                 api, lo, hi, space_name(sp)));
}

}  // namespace asc_sim

namespace AscendC {

void SetHF32Mode(HF32Mode mode, ::asc_sim::Loc asc_loc_) {
    asc_sim::enter("SetHF32Mode", asc_loc_);
    if (mode == HF32Mode::ENABLE)
        asc_sim::fail("unsupported", "SetHF32Mode", asc_loc_,
                      "SetHF32Mode(ENABLE): HF32 rounding of fp32 Mmad inputs is not simulated (Mmad computes full fp32)");
}

}  // namespace AscendC
