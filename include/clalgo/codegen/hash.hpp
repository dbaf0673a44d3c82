// A 64-bit FNV-1a hash, for cache file names and checksums (the full key is stored and compared too, so a
// collision can cost a rebuild but never a wrong program).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace clalgo::detail {

class Fnv1a {
public:
    Fnv1a& add(std::string_view bytes) { return add(bytes.data(), bytes.size()); }
    Fnv1a& add(const void* data, std::size_t size) {
        const auto* bytes = static_cast<const unsigned char*>(data);
        for (std::size_t k = 0; k < size; ++k) {
            state_ ^= bytes[k];
            state_ *= 0x100000001b3ull;
        }
        return *this;
    }
    std::uint64_t value() const { return state_; }
    std::string hex() const {
        char text[17];
        std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(state_));
        return text;
    }

private:
    std::uint64_t state_ = 0xcbf29ce484222325ull;
};

}  // namespace clalgo::detail
