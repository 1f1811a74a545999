// A std::allocator whose vectors leave new elements default-initialised (for doubles and
// integers: not written) on resize, for large buffers that are written in full right after,
// often in parallel, and that zero-filling would write twice: the Hessian's blocks (a dense
// pile's are ~10 MB per Newton iteration), the LDLT's factor and entry map.
#pragma once

#include <memory>
#include <new>
#include <utility>

namespace concord {

template <typename T>
struct UninitialisedAllocator : std::allocator<T> {
    template <typename U>
    struct rebind {
        using other = UninitialisedAllocator<U>;
    };
    UninitialisedAllocator() = default;
    template <typename U>
    UninitialisedAllocator(const UninitialisedAllocator<U>&) noexcept {}
    template <typename U>
    void construct(U* p) noexcept {
        ::new (static_cast<void*>(p)) U;
    }
    template <typename U, typename... Args>
    void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};

}  // namespace concord
