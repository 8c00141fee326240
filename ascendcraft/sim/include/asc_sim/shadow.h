// ascendcraft AscendC CPU simulator: the shadow of local memory (which bytes hold a value) and
// garbage: bytes nothing wrote since their buffer was allocated and every result computed from them.
// Bodies in runtime/shadow.cpp.
#pragma once
#include "core.h"

namespace asc_sim {

// A byte holds a value once something wrote it; a byte nothing wrote, and every result computed from
// one, is garbage. Computing on garbage is allowed (the hardware does it: a tail lane, a whole-block
// copy), what reads garbage where it matters is not.
void mark_written(int sp, uint32_t addr, uint64_t bytes);
void mark_unwritten(int sp, uint32_t addr, uint64_t bytes);
// Marks the bytes as holding a value or garbage, whatever the current op read.
void mark_holds(int sp, uint32_t addr, uint64_t bytes, bool value);
// A local copy moves the values and the garbage alike.
void copy_shadow(int dst_sp, uint32_t dst, int src_sp, uint32_t src, uint64_t bytes);
// Offset of the first byte of [addr, addr + bytes) in space `sp` that holds no value, or -1.
int64_t first_unwritten(int sp, uint32_t addr, uint64_t bytes);
// A vector op's source: garbage read is a warning (`uninit-read`) and makes what the op writes
// garbage (mark_written; the lane-to-lane ops mark each lane by its own sources).
void check_written(const char* api, const Loc& loc, const char* operand, int sp, uint32_t addr,
                   uint64_t bytes, uint32_t elem_size);
// A read where garbage is wrong at once (a scalar read, the cube's operands): an error.
void require_written(const char* api, const Loc& loc, const char* operand, int sp, uint32_t addr,
                     uint64_t bytes, uint32_t elem_size);

// A copy to GM of local bytes that hold no value: into an output, those bytes hold garbage until a
// copy of values replaces them, and an output that ends the core's run with garbage is an error
// (`uninit-read`, check_gm_garbage, with the copy's line and the first garbage read); elsewhere (a
// workspace) a warning with the line.
void check_copied_out(const char* api, const Loc& loc, int sp, uint32_t addr, uint64_t bytes,
                      uint32_t elem_size, const void* gm_dst);
// At the end of a core's run: its outputs' bytes that still hold garbage (errors).
void check_gm_garbage();

}  // namespace asc_sim
