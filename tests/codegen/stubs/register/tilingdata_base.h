// Stub of CANN's register/tilingdata_base.h: a struct with set_/get_ accessors and serialization.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#define BEGIN_TILING_DATA_DEF(name)                                                         \
    struct name {                                                                           \
        void SaveToBuffer(void* data, size_t capacity) const { std::memcpy(data, this, capacity); } \
        size_t GetDataSize() const { return sizeof(*this); }
#define TILING_DATA_FIELD_DEF(type, field)          \
    type field##_;                                  \
    void set_##field(type value) { field##_ = value; } \
    type get_##field() const { return field##_; }
#define END_TILING_DATA_DEF }
#define REGISTER_TILING_DATA_CLASS(op, cls) using op##RegisteredTiling = cls;
