// PlanCache: analysis that kernels keep on a container between calls (a load-balancing
// partition, row statistics, a vendor workspace). One slot per plan type, so kernel families
// and backends never overwrite each other's plans. Lookups are thread-safe; a copied or moved
// container starts with an empty cache, and a container drops its plans whenever its pattern
// is handed out for writing.
#pragma once

#include <memory>
#include <mutex>
#include <typeindex>
#include <utility>
#include <vector>

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom {

class PlanCache {
public:
    PlanCache() = default;
    PlanCache(const PlanCache&) noexcept {}
    PlanCache(PlanCache&&) noexcept {}
    PlanCache& operator=(const PlanCache&) noexcept
    {
        clear();
        return *this;
    }
    PlanCache& operator=(PlanCache&&) noexcept
    {
        clear();
        return *this;
    }

    /// The stored plan of type T when still_valid(plan) holds; otherwise the one make()
    /// returns (a std::shared_ptr<T>), which replaces it. make() runs under the cache's lock.
    template <typename T, typename Valid, typename Make>
    std::shared_ptr<T> obtain(Valid&& still_valid, Make&& make)
    {
        std::lock_guard<std::mutex> lock(mutex_);
        const std::type_index key(typeid(T));
        for (auto& [type, plan] : plans_) {
            if (type != key) continue;
            auto typed = std::static_pointer_cast<T>(plan);
            if (still_valid(*typed)) return typed;
            typed = make();
            plan = typed;
            return typed;
        }
        std::shared_ptr<T> made = make();
        plans_.emplace_back(key, made);
        return made;
    }

    void clear() noexcept
    {
        std::lock_guard<std::mutex> lock(mutex_);
        plans_.clear();
    }

private:
    std::mutex mutex_;
    std::vector<std::pair<std::type_index, std::shared_ptr<void>>> plans_;
};

}  // namespace loom

LOOM_PUBLIC_END
