#include "concord/world/al_contact_memory.hpp"

#include <cmath>
#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace concord {

namespace {

// First element of each system body in an element -> body array built body by body.
std::vector<int> first_of_each_body(const std::vector<int>& element_body, std::size_t bodies) {
    std::vector<int> begin(bodies, 0);
    for (std::size_t i = element_body.size(); i-- > 0;)
        begin[static_cast<std::size_t>(element_body[i])] = static_cast<int>(i);
    return begin;
}

}  // namespace

AlMemoryNames::AlMemoryNames(const ContactSurface& surface, const std::vector<int>& bodies,
                             int num_planes)
    : surface_(surface),
      bodies_(bodies),
      num_planes_(num_planes),
      face_begin_(first_of_each_body(surface.mesh.face_body, bodies.size())),
      edge_begin_(first_of_each_body(surface.mesh.edge_body, bodies.size())) {}

AlMemoryEntry AlMemoryNames::name(const AlConstraint& c) const {
    AlMemoryEntry e;
    e.kind = c.key.kind;
    e.lambda = c.lambda;
    e.inactive = c.inactive;
    const auto& vb = surface_.body_vertex_begin;
    auto vertex = [&](int v, int& body, int& local) {
        const int k = surface_.body_of_vertex(v);
        body = bodies_[static_cast<std::size_t>(k)];
        local = v - vb[static_cast<std::size_t>(k)];
    };
    auto element = [&](const std::vector<int>& element_body, const std::vector<int>& begin, int i,
                       int& body, int& local) {
        const int k = element_body[static_cast<std::size_t>(i)];
        body = bodies_[static_cast<std::size_t>(k)];
        local = i - begin[static_cast<std::size_t>(k)];
    };
    switch (c.key.kind) {
    case AlPairKey::PointTriangle:
        vertex(c.key.a, e.body_a, e.prim_a);
        element(surface_.mesh.face_body, face_begin_, c.key.b, e.body_b, e.prim_b);
        break;
    case AlPairKey::EdgeEdge:
        element(surface_.mesh.edge_body, edge_begin_, c.key.a, e.body_a, e.prim_a);
        element(surface_.mesh.edge_body, edge_begin_, c.key.b, e.body_b, e.prim_b);
        break;
    default:
        vertex(c.key.a, e.body_a, e.prim_a);
        e.body_b = -1;
        e.prim_b = c.key.b;
        break;
    }
    return e;
}

bool AlMemoryNames::key(const AlMemoryEntry& e, AlPairKey& out) const {
    auto system_body = [&](int world) {
        const auto it = std::lower_bound(bodies_.begin(), bodies_.end(), world);
        return it != bodies_.end() && *it == world ? static_cast<int>(it - bodies_.begin()) : -1;
    };
    const int ka = system_body(e.body_a);
    const int kb = e.kind == AlPairKey::PointPlane ? 0 : system_body(e.body_b);
    if (ka < 0 || kb < 0) return false;
    const auto a = static_cast<std::size_t>(ka), b = static_cast<std::size_t>(kb);
    out.kind = e.kind;
    switch (e.kind) {
    case AlPairKey::PointTriangle:
        out.a = surface_.body_vertex_begin[a] + e.prim_a;
        out.b = face_begin_[b] + e.prim_b;
        break;
    case AlPairKey::EdgeEdge:
        out.a = edge_begin_[a] + e.prim_a;
        out.b = edge_begin_[b] + e.prim_b;
        break;
    default:
        out.a = surface_.body_vertex_begin[a] + e.prim_a;
        out.b = e.prim_b;
        break;
    }
    // Primitives out of their body's range (a checkpoint written for other meshes) are not
    // this system's pairs.
    auto in = [](int i, const std::vector<int>& body_of, int body) {
        return i >= 0 && static_cast<std::size_t>(i) < body_of.size() &&
               body_of[static_cast<std::size_t>(i)] == body;
    };
    switch (e.kind) {
    case AlPairKey::PointTriangle:
        return e.prim_a >= 0 && e.prim_b >= 0 && in(out.a, surface_.mesh.vertex_body, ka) &&
               in(out.b, surface_.mesh.face_body, kb);
    case AlPairKey::EdgeEdge:
        return e.prim_a >= 0 && e.prim_b >= 0 && in(out.a, surface_.mesh.edge_body, ka) &&
               in(out.b, surface_.mesh.edge_body, kb);
    default:
        return e.prim_a >= 0 && in(out.a, surface_.mesh.vertex_body, ka) && e.prim_b >= 0 &&
               e.prim_b < num_planes_;
    }
}

std::vector<AlConstraint> AlMemoryNames::constraints_in(const AlContactMemory& memory) const {
    // Entries are ordered by (kind, body_a, ...): those of one kind and first body are one run.
    std::vector<AlConstraint> out;
    auto before = [](int kind, int body) {
        return [=](const AlMemoryEntry& e) {
            return e.kind < kind || (e.kind == kind && e.body_a < body);
        };
    };
    for (int kind : {AlPairKey::PointTriangle, AlPairKey::EdgeEdge, AlPairKey::PointPlane}) {
        auto from = memory.begin();
        for (int body : bodies_) {
            from = std::partition_point(from, memory.end(), before(kind, body));
            const auto to = std::partition_point(from, memory.end(), before(kind, body + 1));
            for (auto it = from; it != to; ++it) {
                AlConstraint c;
                if (!key(*it, c.key)) continue;
                c.lambda = it->lambda;
                c.inactive = it->inactive;
                out.push_back(c);
            }
            from = to;
        }
    }
    return out;
}

namespace {
constexpr std::uint32_t kMemoryFormat = 1;

template <typename T>
void put(std::vector<std::uint8_t>& out, T v) {
    const std::size_t at = out.size();
    out.resize(at + sizeof(T));
    std::memcpy(out.data() + at, &v, sizeof(T));
}
template <typename T>
T get(const std::vector<std::uint8_t>& in, std::size_t& at) {
    if (in.size() - at < sizeof(T)) throw std::runtime_error("contact multipliers: truncated");
    T v;
    std::memcpy(&v, in.data() + at, sizeof(T));
    at += sizeof(T);
    return v;
}
}  // namespace

std::vector<std::uint8_t> al_memory_bytes(const AlContactMemory& m) {
    std::vector<std::uint8_t> out;
    put(out, kMemoryFormat);
    put(out, static_cast<std::uint64_t>(m.size()));
    for (const AlMemoryEntry& e : m) {
        for (std::int32_t v : {e.kind, e.body_a, e.prim_a, e.body_b, e.prim_b, e.inactive}) put(out, v);
        put(out, e.lambda);
    }
    return out;
}

AlContactMemory al_memory_from_bytes(const std::vector<std::uint8_t>& bytes) {
    std::size_t at = 0;
    if (get<std::uint32_t>(bytes, at) != kMemoryFormat)
        throw std::runtime_error("contact multipliers: unknown format");
    const auto n = get<std::uint64_t>(bytes, at);
    constexpr std::size_t kEntryBytes = 6 * 4 + 8;
    if (n > (bytes.size() - at) / kEntryBytes)
        throw std::runtime_error("contact multipliers: count exceeds the bytes left");
    AlContactMemory m(static_cast<std::size_t>(n));
    for (AlMemoryEntry& e : m) {
        e.kind = get<std::int32_t>(bytes, at);
        e.body_a = get<std::int32_t>(bytes, at);
        e.prim_a = get<std::int32_t>(bytes, at);
        e.body_b = get<std::int32_t>(bytes, at);
        e.prim_b = get<std::int32_t>(bytes, at);
        e.inactive = get<std::int32_t>(bytes, at);
        e.lambda = get<double>(bytes, at);
        if (e.kind < 0 || e.kind > 2 || !(e.lambda >= 0.0) || !std::isfinite(e.lambda) || e.inactive < 0)
            throw std::runtime_error("contact multipliers: malformed entry");
    }
    if (at != bytes.size()) throw std::runtime_error("contact multipliers: trailing bytes");
    if (!std::is_sorted(m.begin(), m.end()))
        throw std::runtime_error("contact multipliers: entries out of order");
    return m;
}

}  // namespace concord
