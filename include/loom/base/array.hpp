// Array<T>: a contiguous buffer bound to one executor, either owning its memory or a view
// of memory somebody else owns. Copies between executors go through Executor::copy_from.
//
// A view of external memory (a NumPy buffer, a tensor of another GPU library) may hold a
// keep-alive: a shared_ptr to whatever owns the memory. The view holds it for as long as it
// views the memory, and so does whatever the view is moved into (a Csr built from viewed
// arrays); it is released when that last holder is destroyed or stops viewing (resized,
// assigned an array of another size), after the work queued on a device executor has
// finished. Copies of a view are deep, owning copies and do not hold it.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

#include "loom/base/error.hpp"
#include "loom/base/executor.hpp"
#include "loom/base/types.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom {

template <typename T>
class Array {
public:
    using value_type = T;

    Array() = default;

    /// Uninitialized owning array of `size` elements on `exec`.
    Array(std::shared_ptr<const Executor> exec, size_type size)
        : exec_(std::move(exec)), size_(size)
    {
        if (size < 0) {
            throw BadInput("loom::Array", "negative size " + std::to_string(size));
        }
        if (size > 0) {
            data_ = static_cast<T*>(exec_->alloc_bytes(sizeof(T) * size));
        }
    }

    /// Owning array on `exec` holding a copy of host values.
    Array(std::shared_ptr<const Executor> exec, std::initializer_list<T> values)
        : Array(std::move(exec), std::vector<T>(values))
    {}
    Array(std::shared_ptr<const Executor> exec, const std::vector<T>& host_values)
        : Array(std::move(exec), static_cast<size_type>(host_values.size()))
    {
        copy_bytes_from_host(host_values.data(), size_);
    }

    /// Deep copy of `other` placed on `exec` (which may differ from other's executor).
    Array(std::shared_ptr<const Executor> exec, const Array& other)
        : Array(std::move(exec), other.size())
    {
        if (size_ > 0) {
            exec_->copy_from(*other.exec_, sizeof(T) * size_, other.data_, data_);
        }
    }

    /// Non-owning view of `size` elements at `data`, which must live on `exec`. `keep_alive`
    /// (the owner of the memory, may be empty) is held while the memory is viewed.
    static Array view(std::shared_ptr<const Executor> exec, size_type size, T* data,
                      std::shared_ptr<const void> keep_alive = {})
    {
        if (size < 0) {
            throw BadInput("loom::Array::view", "negative size " + std::to_string(size));
        }
        Array a;
        a.exec_ = std::move(exec);
        a.size_ = size;
        a.data_ = data;
        a.owning_ = false;
        a.keep_alive_ = std::move(keep_alive);
        return a;
    }

    Array(const Array& other) : Array(other.exec_, other) {}
    Array(Array&& other) noexcept { swap(other); }
    /// Copy assignment copies the values; this keeps its executor (takes other's if it has none).
    Array& operator=(const Array& other)
    {
        if (this != &other) {
            auto exec = exec_ ? exec_ : other.exec_;
            if (!owning_ && size_ == other.size_) {
                if (size_ > 0) exec_->copy_from(*other.exec_, sizeof(T) * size_, other.data_, data_);
            } else {
                Array tmp(exec, other);
                swap(tmp);
            }
        }
        return *this;
    }
    Array& operator=(Array&& other) noexcept
    {
        Array tmp(std::move(other));
        swap(tmp);
        return *this;
    }
    ~Array() { release(); }

    void swap(Array& other) noexcept
    {
        std::swap(exec_, other.exec_);
        std::swap(size_, other.size_);
        std::swap(data_, other.data_);
        std::swap(owning_, other.owning_);
        std::swap(keep_alive_, other.keep_alive_);
    }

    size_type size() const noexcept { return size_; }
    bool empty() const noexcept { return size_ == 0; }
    T* data() noexcept { return data_; }
    const T* data() const noexcept { return data_; }
    const T* const_data() const noexcept { return data_; }
    bool is_owning() const noexcept { return owning_; }
    const std::shared_ptr<const Executor>& executor() const noexcept { return exec_; }

    /// Discards the contents and makes this an owning array of `size` elements.
    void resize_and_reset(size_type size)
    {
        if (size == size_ && owning_) return;
        Array tmp(exec_, size);
        swap(tmp);
    }

    /// The values copied to host memory.
    std::vector<T> to_host() const
    {
        std::vector<T> out(static_cast<std::size_t>(size_));
        if (size_ > 0) {
            host_executor()->copy_from(*exec_, sizeof(T) * size_, data_, out.data());
        }
        return out;
    }

    /// Sets every element to `value` (a kernel on the array's executor).
    void fill(const T& value);

    /// Element access for host arrays only (checked in debug builds).
    T& operator[](size_type i) noexcept { return data_[i]; }
    const T& operator[](size_type i) const noexcept { return data_[i]; }

private:
    static std::shared_ptr<const Executor> host_executor();
    void copy_bytes_from_host(const T* src, size_type n)
    {
        if (n > 0) exec_->copy_from(*host_executor(), sizeof(T) * n, src, data_);
    }
    void release() noexcept
    {
        if (owning_ && data_ != nullptr) exec_->free_bytes(data_);
        if (keep_alive_ && exec_ && !exec_->is_host()) {
            // The owner may free or reuse the memory at once: let queued kernels finish first.
            try {
                exec_->synchronize();
            } catch (...) {
                // Nothing to report from a destructor; the device error resurfaces later.
            }
        }
        data_ = nullptr;
        size_ = 0;
        keep_alive_.reset();
    }

    std::shared_ptr<const Executor> exec_;
    size_type size_ = 0;
    T* data_ = nullptr;
    bool owning_ = true;
    std::shared_ptr<const void> keep_alive_;  ///< the viewed memory's owner, if given
};

namespace detail {
std::shared_ptr<const Executor> host_executor();
}

/// `array` itself when it already lives in exec's memory, else a copy placed on exec: for
/// constructors that take arrays by value from wherever the caller built them.
template <typename T>
Array<T> moved_to(const std::shared_ptr<const Executor>& exec, Array<T> array)
{
    if (array.executor() && array.executor()->same_memory_as(*exec)) return array;
    return Array<T>(exec, array);
}

template <typename T>
std::shared_ptr<const Executor> Array<T>::host_executor()
{
    return detail::host_executor();
}

}  // namespace loom

LOOM_PUBLIC_END
