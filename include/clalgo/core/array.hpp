// Typed device memory. Array<T> owns a buffer; ArrayView<T> is a sub-range (offset + length) of one, usable
// wherever an array is, kernel arguments included. Nothing is copied unless asked: moving an Array is cheap,
// copying it is an error (use clone), and a view shares the buffer.
//   auto x = clalgo::to_device(q, std::vector<float>{1, 2, 3});
//   clalgo::Array<float> y(q, x.size());
//   x.copy_to(q, y);  y.fill(q, 0.0f);  auto tail = x.view(1, 2);
//   std::vector<float> back = x.to_host(q);
//   clalgo::Array<float> scratch(q, n, clalgo::pooled);   // drawn from the context's MemoryPool, given back at the end
#pragma once

#include <clalgo/core/config.hpp>
#include <clalgo/core/context.hpp>
#include <clalgo/core/device_memory.hpp>
#include <clalgo/core/error.hpp>
#include <clalgo/core/memory_pool.hpp>
#include <clalgo/core/queue.hpp>
#include <clalgo/core/types.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace clalgo {

template <class T>
class Array;

/// Asks an Array for a buffer from the context's MemoryPool: `clalgo::Array<float> x(q, n, clalgo::pooled)`.
struct Pooled {
    explicit constexpr Pooled() = default;
};
inline constexpr Pooled pooled{};

namespace detail {
/// For clalgo's own results and temporaries, whose first use is a command on the queue they are drawn for: a
/// pooled buffer drawn in queue order (MemoryPool::allocate), reused at once by the next such draw for that queue.
struct PooledInQueueOrder {
    explicit constexpr PooledInQueueOrder() = default;
};
inline constexpr PooledInQueueOrder pooled_in_queue_order{};
}  // namespace detail

/// A typed range [offset, offset + size) of a device buffer. Views do not own memory but keep the buffer alive.
template <class T>
class ArrayView {
    static_assert(std::is_trivially_copyable_v<T>, "clalgo arrays hold trivially copyable types");

public:
    /// The element type.
    using value_type = T;

    ArrayView() = default;
    /// `size` elements of `buffer`, starting at element `offset`.
    ArrayView(cl::Buffer buffer, std::size_t offset, std::size_t size)
        : buffer_(std::move(buffer)), offset_(offset), size_(size) {}

    /// How many elements.
    std::size_t size() const noexcept { return size_; }
    /// Whether it holds no element.
    bool empty() const noexcept { return size_ == 0; }
    /// Offset of the first element from the start of the buffer, in elements.
    std::size_t offset() const noexcept { return offset_; }
    /// The size in bytes.
    std::size_t bytes() const noexcept { return size_ * sizeof(T); }
    /// The underlying buffer (null for an empty array).
    const cl::Buffer& buffer() const noexcept { return buffer_; }

    /// The sub-range [offset, offset + length) of this range.
    ArrayView<T> view(std::size_t offset, std::size_t length) const {
        if (offset > size_ || length > size_ - offset)
            throw std::out_of_range("clalgo: view [" + std::to_string(offset) + ", " +
                                    std::to_string(offset) + " + " + std::to_string(length) +
                                    ") lies outside an array of " + std::to_string(size_) + " elements");
        return ArrayView<T>(buffer_, offset_ + offset, length);
    }
    /// The whole range, as a view.
    ArrayView<T> view() const { return *this; }

    /// Copies the elements to host memory at `destination` (size() elements); blocks until done.
    void read(const Queue& queue, T* destination, const std::vector<cl::Event>& wait = {}) const {
        if (size_ == 0) return;
        detail::enqueue_with_memory_retry(
            queue,
            [&] {
                queue.get().enqueueReadBuffer(buffer_, CL_TRUE, offset_ * sizeof(T), bytes(), destination,
                                              detail::wait_list(wait));
            },
            [] { return std::string("reading an array back to the host"); });
    }

    /// The elements, copied to a new host vector; blocks until done.
    std::vector<T> to_host(const Queue& queue, const std::vector<cl::Event>& wait = {}) const {
        std::vector<T> host(size_);
        read(queue, host.data(), wait);
        return host;
    }

    /// One element, copied to the host; blocks until done.
    T read_at(const Queue& queue, std::size_t index, const std::vector<cl::Event>& wait = {}) const {
        T value;
        view(index, 1).read(queue, &value, wait);
        return value;
    }

    /// Copies size() elements from host memory at `source`; blocks until done.
    void write(const Queue& queue, const T* source, const std::vector<cl::Event>& wait = {}) const {
        if (size_ == 0) return;
        detail::enqueue_with_memory_retry(
            queue,
            [&] {
                queue.get().enqueueWriteBuffer(buffer_, CL_TRUE, offset_ * sizeof(T), bytes(), source,
                                               detail::wait_list(wait));
            },
            [] { return std::string("writing an array from the host"); });
    }

    /// Copies `source` (exactly size() elements) into the array; blocks until done.
    void write(const Queue& queue, const std::vector<T>& source, const std::vector<cl::Event>& wait = {}) const {
        if (source.size() != size_)
            throw std::invalid_argument("clalgo: writing " + std::to_string(source.size()) +
                                        " host elements into an array of " + std::to_string(size_));
        write(queue, source.data(), wait);
    }

    /// Sets every element to `value`; returns the event of the fill.
    Event fill(const Queue& queue, const T& value, const std::vector<cl::Event>& wait = {}) const {
        if (size_ == 0) return detail::marker(queue, wait);
        cl::Event done;
        auto filling = [] { return std::string("filling an array"); };
        if constexpr ((sizeof(T) & (sizeof(T) - 1)) == 0 && sizeof(T) <= 128) {
            cl::Event* slot = detail::event_slot(queue, done);
            detail::enqueue_with_memory_retry(
                queue,
                [&] {
                    queue.get().enqueueFillBuffer(buffer_, value, offset_ * sizeof(T), bytes(), detail::wait_list(wait),
                                                  slot);
                },
                filling);
        } else {
            // clEnqueueFillBuffer takes patterns of power-of-two sizes only: write a repeated block instead
            const std::size_t block = std::min<std::size_t>(size_, (std::size_t(1) << 20) / sizeof(T) + 1);
            const std::vector<T> pattern(block, value);
            for (std::size_t at = 0; at < size_; at += block) {
                const std::size_t count = std::min(block, size_ - at);
                detail::enqueue_with_memory_retry(
                    queue,
                    [&] {
                        queue.get().enqueueWriteBuffer(buffer_, CL_TRUE, (offset_ + at) * sizeof(T), count * sizeof(T),
                                                       pattern.data(), at == 0 ? detail::wait_list(wait) : nullptr);
                    },
                    filling);
            }
            return detail::marker(queue, {});
        }
        return detail::call_event(queue, std::move(done));
    }

    /// Copies the elements into `destination`, which must have the same size; returns the event of the copy.
    Event copy_to(const Queue& queue, const ArrayView<T>& destination, const std::vector<cl::Event>& wait = {}) const {
        if (destination.size() != size_)
            throw std::invalid_argument("clalgo: copying " + std::to_string(size_) + " elements into an array of " +
                                        std::to_string(destination.size()));
        if (size_ == 0) return detail::marker(queue, wait);
        cl::Event done;
        cl::Event* slot = detail::event_slot(queue, done);
        detail::enqueue_with_memory_retry(
            queue,
            [&] {
                queue.get().enqueueCopyBuffer(buffer_, destination.buffer(), offset_ * sizeof(T),
                                              destination.offset() * sizeof(T), bytes(), detail::wait_list(wait), slot);
            },
            [] { return std::string("copying an array"); });
        return detail::call_event(queue, std::move(done));
    }

    /// A new array holding a copy of these elements.
    Array<T> clone(const Queue& queue) const;

protected:
    /// The buffer that holds the elements.
    cl::Buffer buffer_;
    /// The first element's offset in the buffer, in elements.
    std::size_t offset_ = 0;
    /// How many elements.
    std::size_t size_ = 0;
};

/// An owning array of `size` elements of T in device memory. Move-only; views share its buffer.
template <class T>
class Array : public ArrayView<T> {
public:
    Array() = default;

    /// `size` uninitialised elements. Throws DeviceMemoryError where a device of the context cannot hold them, also
    /// after the context's memory pool released its cached buffers.
    Array(const Context& context, std::size_t size) : ArrayView<T>(allocate(context, size), 0, size) {}
    /// Likewise; in a context of several devices the memory is placed on `queue`'s device.
    Array(const Queue& queue, std::size_t size) : Array(queue.context(), size) {
        detail::place_on_device(queue, this->buffer_);
    }

    /// `size` uninitialised elements in a buffer of the context's MemoryPool (a plain one where the pool is off),
    /// given back when the array is destroyed; the pool reuses it once the work enqueued on `queue` before then
    /// has completed. Work on other queues that uses the array must be complete before the array is destroyed.
    Array(const Queue& queue, std::size_t size, Pooled) : Array(queue, size, false) {}

    /// clalgo's own draws (detail::pooled_in_queue_order): the buffer goes back without a marker, and a later draw
    /// in queue order for the same queue may take it at once.
    Array(const Queue& queue, std::size_t size, detail::PooledInQueueOrder) : Array(queue, size, true) {}

    Array(const Array&) = delete;
    Array& operator=(const Array&) = delete;
    /// Takes the other array's buffer; the other is left empty.
    Array(Array&& other) noexcept : ArrayView<T>(std::move(other)), lease_(std::move(other.lease_)) { other.release(); }
    /// Takes the other array's buffer; the other is left empty.
    Array& operator=(Array&& other) noexcept {
        if (this != &other) {
            ArrayView<T>::operator=(std::move(other));
            lease_ = std::move(other.lease_);
            other.release();
        }
        return *this;
    }

    /// Whether the buffer came from a MemoryPool and goes back to it.
    bool pooled() const noexcept { return lease_.pooled(); }

private:
    Array(const Queue& queue, std::size_t size, bool in_queue_order) {
        if (size == 0) return;
        check(queue.context(), size);
        lease_ = MemoryPool::of(queue.context()).allocate(queue, size * sizeof(T), in_queue_order);
        this->buffer_ = lease_.buffer();
        this->size_ = size;
    }

    void release() noexcept {
        this->buffer_ = cl::Buffer();
        this->offset_ = 0;
        this->size_ = 0;
    }

    static cl::Buffer allocate(const Context& context, std::size_t size) {
        if (size == 0) return cl::Buffer();
        check(context, size);
        return detail::allocate_buffer(context, size * sizeof(T), what(size));
    }

    /// Throws DeviceMemoryError where a device of the context cannot hold `size` elements in one buffer.
    static void check(const Context& context, std::size_t size) {
        if (size > std::size_t(-1) / sizeof(T))
            throw DeviceMemoryError("clalgo: an array of " + std::to_string(size) + " elements does not fit in memory");
        const std::size_t bytes = size * sizeof(T);
        for (const auto& device : context.devices()) {
            const auto& info = context.info(device);
            if (bytes > info.max_allocation_bytes)
                throw DeviceMemoryError(detail::allocation_failure(
                    context, bytes, what(size), "more than '" + info.name + "' allows in one buffer",
                    detail::memory_pool_of(context)(false), false));
        }
    }

    static std::string what(std::size_t size) { return "an array of " + std::to_string(size) + " x " + type_label(); }

    static std::string type_label() {
        try {
            return type_name<T>();
        } catch (const std::invalid_argument&) {
            return std::to_string(sizeof(T)) + "-byte elements";
        }
    }

    detail::PooledBuffer lease_;  ///< the pool's loan, where the buffer came from a pool
};

template <class T>
Array<T> ArrayView<T>::clone(const Queue& queue) const {
    Array<T> copy(queue, size_);
    copy_to(queue, copy);
    return copy;
}

/// A new device array holding a copy of `count` host elements; blocks until the copy is done.
template <class T>
Array<T> to_device(const Queue& queue, const T* data, std::size_t count) {
    Array<T> array(queue, count);
    array.write(queue, data);
    return array;
}

template <class T>
Array<T> to_device(const Queue& queue, const std::vector<T>& data) {
    return to_device(queue, data.data(), data.size());
}

}  // namespace clalgo
