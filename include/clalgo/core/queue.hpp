// An in-order command queue on one device of a Context; every clalgo call takes one.
//   clalgo::Queue q(ctx);                                  // first device of the context
//   clalgo::Queue timed(ctx, ctx.device(), CL_QUEUE_PROFILING_ENABLE);
//   clalgo::Queue mine(existing_cl_command_queue);          // wrap the program's own queue
#pragma once

#include <clalgo/core/config.hpp>
#include <clalgo/core/context.hpp>
#include <clalgo/core/environment.hpp>
#include <clalgo/core/error.hpp>
#include <clalgo/core/event.hpp>

#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace clalgo {

namespace detail {

/// What every clalgo::Queue that wraps one command queue shares: the pending event of its latest calls (Event).
struct QueueShared {
    PendingSlot pending;
};

/// One token per live command queue, shared by every clalgo::Queue that wraps it: state kept per queue (kernel
/// scratch) holds it weakly, and is dropped once no Queue wraps the queue any more.
inline std::shared_ptr<QueueShared> queue_identity(cl_command_queue queue) {
    static std::mutex mutex;
    static std::map<cl_command_queue, std::weak_ptr<QueueShared>> identities;
    std::lock_guard<std::mutex> lock(mutex);
    for (auto it = identities.begin(); it != identities.end();)
        it = it->second.expired() ? identities.erase(it) : std::next(it);
    if (auto existing = identities[queue].lock()) return existing;
    auto identity = std::make_shared<QueueShared>();
    identities[queue] = identity;
    return identity;
}

}  // namespace detail

/// An in-order command queue on one device of a Context; every clalgo call that runs something takes one.
class Queue {
public:
    /// A new in-order queue on a device of the context (the first where none is given). `properties` may hold
    /// CL_QUEUE_PROFILING_ENABLE; out-of-order queues are not supported.
    explicit Queue(const Context& context, cl_command_queue_properties properties = 0)
        : Queue(context, context.device(), properties) {}

    /// A new in-order queue on `device`, which must be a device of the context.
    Queue(const Context& context, const cl::Device& device, cl_command_queue_properties properties = 0)
        : context_(context), device_(device) {
        reject_out_of_order(properties);
        try {
            queue_ = cl::CommandQueue(context.get(), device, properties);
            profiling_ = (properties & CL_QUEUE_PROFILING_ENABLE) != 0;
        } catch (const cl::Error& error) {
            detail::rethrow(error, "creating a command queue");
        }
        shared_ = detail::queue_identity(queue_());
        identity_ = shared_;
        events_at_once_ = profiling_ || detail::environment_flag("CLALGO_EAGER_EVENTS");
    }

    /// Wraps a queue the program already has (it must be in order).
    explicit Queue(const cl::CommandQueue& queue)
        : context_(cl::Context(queue.getInfo<CL_QUEUE_CONTEXT>())),
          device_(queue.getInfo<CL_QUEUE_DEVICE>()),
          queue_(queue) {
        const auto properties = queue.getInfo<CL_QUEUE_PROPERTIES>();
        reject_out_of_order(properties);
        profiling_ = (properties & CL_QUEUE_PROFILING_ENABLE) != 0;
        shared_ = detail::queue_identity(queue_());
        identity_ = shared_;
        events_at_once_ = profiling_ || detail::environment_flag("CLALGO_EAGER_EVENTS");
    }

    /// The wrapped OpenCL command queue.
    const cl::CommandQueue& get() const noexcept { return queue_; }
    /// The queue's context.
    const Context& context() const noexcept { return context_; }
    /// The queue's device.
    const cl::Device& device() const noexcept { return device_; }
    /// The facts clalgo read of the queue's device.
    const DeviceInfo& info() const { return context_.info(device_); }

    /// Whether the queue was made with CL_QUEUE_PROFILING_ENABLE: calls then make their events at once (Event).
    bool profiling() const noexcept { return profiling_; }

    /// Whether calls make their events at once (a profiling queue, CLALGO_EAGER_EVENTS=1 when the Queue was made,
    /// or set_events_at_once) rather than when one is asked for.
    bool events_at_once() const noexcept { return events_at_once_; }
    /// Calls on this Queue (not on copies made before) make their events at once: for work that another queue
    /// waits for while more is enqueued here, since an event made later also waits for that later work.
    /// A profiling queue always does.
    void set_events_at_once(bool on) noexcept { events_at_once_ = on || profiling_; }

    /// Waits until everything enqueued so far has finished.
    void finish() const { queue_.finish(); }
    /// Sends what is enqueued to the device, without waiting.
    void flush() const { queue_.flush(); }

    /// Shared by every Queue that wraps the same command queue, and alive exactly as long as one of them is.
    const std::shared_ptr<const void>& identity() const noexcept { return identity_; }

    /// The pending event its calls share (Event::after), the same for every Queue of the command queue.
    detail::PendingSlot& pending_slot() const noexcept { return shared_->pending; }

private:
    static void reject_out_of_order(cl_command_queue_properties properties) {
        if (properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
            throw std::invalid_argument("clalgo::Queue: out-of-order queues are not supported; use an in-order queue");
    }

    Context context_;
    cl::Device device_;
    cl::CommandQueue queue_;
    bool profiling_ = false;
    bool events_at_once_ = false;
    std::shared_ptr<detail::QueueShared> shared_;
    std::shared_ptr<const void> identity_;  ///< shared_, as an opaque token
};

/// Events an operation must wait for: `kernel(q, x, y, clalgo::wait_for({event_a, event_b}))`.
struct WaitFor {
    /// OpenCL events to wait for.
    std::vector<cl::Event> events;
    /// clalgo Events not made yet: the call makes (and flushes) those of other queues, and needs none of its own
    /// queue's, which the in-order queue runs first anyway.
    std::vector<Event> pending = {};
};

/// Makes a WaitFor from events; pass it among a kernel call's arguments.
inline WaitFor wait_for(std::vector<cl::Event> events) { return WaitFor{std::move(events)}; }
inline WaitFor wait_for(const cl::Event& event) { return WaitFor{{event}}; }
inline WaitFor wait_for(const Event& event) {
    if (event.made()) return WaitFor{{event.get()}};
    return WaitFor{{}, {event}};
}

namespace detail {
/// The wait list to hand to CLHPP: nullptr when empty, as OpenCL requires.
inline const std::vector<cl::Event>* wait_list(const std::vector<cl::Event>& events) {
    return events.empty() ? nullptr : &events;
}

/// Appends to `list` what a command on `queue` that must follow `event` waits for: nothing where the event is empty
/// or not yet made of `queue` itself (its in-order commands run first anyway); else the event, made now.
inline void append_wait(const Queue& queue, const Event& event, std::vector<cl::Event>& list) {
    if (event.pending_on(queue.get())) return;
    cl::Event made = event.get();
    if (made()) list.push_back(std::move(made));
}

/// `wait`'s events as a wait list for a command on `queue`, appended to `list` (see append_wait; no null events).
inline void append_wait_list(const Queue& queue, const WaitFor& wait, std::vector<cl::Event>& list) {
    for (const auto& event : wait.events)
        if (event()) list.push_back(event);
    for (const auto& event : wait.pending) append_wait(queue, event, list);
}

inline std::vector<cl::Event> wait_list(const Queue& queue, const WaitFor& wait) {
    std::vector<cl::Event> list;
    append_wait_list(queue, wait, list);
    return list;
}

/// Where a call's last command puts its event: the event itself where the queue makes them at once (profiling),
/// elsewhere nowhere (the call returns call_event's lazily made one).
inline cl::Event* event_slot(const Queue& queue, cl::Event& slot) { return queue.events_at_once() ? &slot : nullptr; }

/// What a call returns after its last command, given the slot that event_slot handed out.
inline Event call_event(const Queue& queue, cl::Event slot) {
    if (slot()) return Event(std::move(slot));
    return Event::after(queue.get(), queue.pending_slot());
}

/// The wait list of a command on `queue` that must follow `event` (see append_wait).
inline std::vector<cl::Event> wait_list_for(const Queue& queue, const Event& event) {
    std::vector<cl::Event> list;
    append_wait(queue, event, list);
    return list;
}

/// Completes once `events` have; for calls that have nothing to launch (no command where there is nothing to wait
/// for: the in-order queue orders the call's result after the earlier commands).
inline Event marker(const Queue& queue, const std::vector<cl::Event>& events) {
    if (events.empty() && !queue.events_at_once()) return Event::after(queue.get(), queue.pending_slot());
    cl::Event done;
    try {
        queue.get().enqueueMarkerWithWaitList(wait_list(events), &done);
    } catch (const cl::Error& error) {
        rethrow(error, "enqueueing a marker");
    }
    return done;
}
}  // namespace detail

}  // namespace clalgo
