// ascendcraft AscendC CPU simulator, host harness: the JSON it answers with (host_main.cpp includes it once).
#pragma once
#include <cstdio>
#include <string>
#include "asc_sim/host/context.h"

namespace asc_sim_host {
namespace {
std::string jstr(const std::string& s) {
    std::string o = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') {
            o += '\\';
            o += static_cast<char>(c);
        } else if (c < 0x20 || c >= 0x7f) {
            char b[8];
            std::snprintf(b, sizeof b, "\\u%04x", c);
            o += b;
        } else {
            o += static_cast<char>(c);
        }
    }
    return o + "\"";
}
std::string jnum(double v) {
    if (v != v) return "\"nan\"";
    if (v > 1e308 || v < -1e308) return v > 0 ? "\"inf\"" : "\"-inf\"";
    char b[64];
    std::snprintf(b, sizeof b, "%.9g", v);
    return b;
}
template <class V, class F> std::string jlist(V& v, F f) {
    std::string o = "[";
    for (size_t i = 0; i < v.size(); ++i) o += (i ? "," : "") + f(v[i]);
    return o + "]";
}
std::string jdims(const gert::Shape& s) {
    std::string o = "[";
    for (size_t i = 0; i < s.GetDimNum(); ++i) o += (i ? "," : "") + std::to_string(s.GetDim(i));
    return o + "]";
}
std::string hex(const uint8_t* p, size_t n) {
    static const char* d = "0123456789abcdef";
    std::string o;
    o.reserve(n * 2);
    for (size_t i = 0; i < n; ++i) {
        o += d[p[i] >> 4];
        o += d[p[i] & 15];
    }
    return o;
}

}  // namespace
}  // namespace asc_sim_host
