// A message between the controller and the workers of a distributed run: a flat byte buffer
// written and read in the same order. Numbers travel as their exact bytes, so a value decoded on
// the other side is bit-identical to the one encoded (in-process and MPI runs agree exactly).
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "concord/math/types.hpp"

namespace concord {

using Bytes = std::vector<std::uint8_t>;

class MessageWriter {
  public:
    template <typename T>
    MessageWriter& put(const T& v) {
        static_assert(std::is_trivially_copyable_v<T>);
        const std::size_t at = bytes_.size();
        bytes_.resize(at + sizeof(T));
        std::memcpy(bytes_.data() + at, &v, sizeof(T));
        return *this;
    }
    MessageWriter& put_vector(const VecX& v) {
        put(static_cast<std::int64_t>(v.size()));
        for (Eigen::Index i = 0; i < v.size(); ++i) put(v[i]);
        return *this;
    }
    template <typename T>
    MessageWriter& put_list(const std::vector<T>& v) {
        put(static_cast<std::int64_t>(v.size()));
        for (const T& x : v) put(x);
        return *this;
    }
    MessageWriter& put_vec3(const Vec3& x) { return put(x.x()).put(x.y()).put(x.z()); }
    /// Room for `bytes` more bytes (a message whose size is known before it is written).
    MessageWriter& reserve(std::size_t bytes) {
        bytes_.reserve(bytes_.size() + bytes);
        return *this;
    }
    Bytes take() { return std::move(bytes_); }

  private:
    Bytes bytes_;
};

class MessageReader {
  public:
    explicit MessageReader(const Bytes& bytes) : bytes_(bytes) {}
    template <typename T>
    T get() {
        static_assert(std::is_trivially_copyable_v<T>);
        if (pos_ + sizeof(T) > bytes_.size()) throw std::runtime_error("truncated message");
        T v;
        std::memcpy(&v, bytes_.data() + pos_, sizeof(T));
        pos_ += sizeof(T);
        return v;
    }
    VecX get_vector() {
        const auto n = get<std::int64_t>();
        if (n < 0 || static_cast<std::uint64_t>(n) > (bytes_.size() - pos_) / sizeof(double))
            throw std::runtime_error("truncated message");
        VecX v(n);
        for (std::int64_t i = 0; i < n; ++i) v[i] = get<double>();
        return v;
    }
    template <typename T>
    std::vector<T> get_list() {
        const auto n = get<std::int64_t>();
        if (n < 0 || static_cast<std::uint64_t>(n) > (bytes_.size() - pos_) / sizeof(T))
            throw std::runtime_error("truncated message");
        std::vector<T> v(static_cast<std::size_t>(n));
        for (auto& x : v) x = get<T>();
        return v;
    }
    Vec3 get_vec3() {
        const double x = get<double>();
        const double y = get<double>();
        const double z = get<double>();
        return {x, y, z};
    }
    bool done() const { return pos_ == bytes_.size(); }

  private:
    const Bytes& bytes_;
    std::size_t pos_ = 0;
};

}  // namespace concord
