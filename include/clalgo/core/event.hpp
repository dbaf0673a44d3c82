// What a clalgo call that does not wait returns: an event made only when it is asked for. A call's commands make
// no OpenCL event (on an H100, NVIDIA's driver launched in 4.2-4.6 µs without one, 5.6-6.4 µs with one); where
// the program wants one, a marker is enqueued on the call's queue at that moment, and it completes once the call's
// commands (and whatever the queue held before the marker) have completed. Calls back to back on one queue share
// one such pending event until it is asked for, so that a call allocates nothing for its Event.
//   clalgo::Event done = clalgo::sort(q, keys);   // no OpenCL event made yet
//   done.wait();                                   // or: cl::Event e = done;  (a marker, made once, then kept)
// On a queue made with CL_QUEUE_PROFILING_ENABLE, calls make their last command's event, so that its profiling
// times are the command's own.
#pragma once

#include <clalgo/core/config.hpp>
#include <clalgo/core/error.hpp>

#include <atomic>
#include <memory>
#include <mutex>
#include <utility>

namespace clalgo {

class Event;

namespace detail {

/// An event of a queue's calls, made (a marker) when first asked for.
struct PendingEvent {
    explicit PendingEvent(cl::CommandQueue q) : queue(std::move(q)) {}
    std::mutex mutex;
    cl::CommandQueue queue;
    cl::Event event;
    /// Set before the marker is enqueued: a call whose commands were enqueued before may share this event only
    /// while it is still false (the marker then follows the call's commands).
    std::atomic<bool> asked{false};
};

/// Kept once per command queue (with its clalgo::Queue handles): the pending event its latest calls share.
struct PendingSlot {
    std::mutex mutex;
    std::shared_ptr<PendingEvent> latest;
};

}  // namespace detail

/// What a clalgo call that does not wait returns: an OpenCL event made only when one is asked for.
class Event {
public:
    /// No work: converts to a null cl::Event, and wait() returns at once.
    Event() = default;

    /// An event already made.
    Event(cl::Event event) : event_(std::move(event)) {}  // NOLINT: implicit, so a cl::Event is an Event

    /// Completes once every command enqueued on `queue` so far has completed; made when first asked for.
    static Event after(const cl::CommandQueue& queue) {
        Event pending;
        pending.pending_ = std::make_shared<detail::PendingEvent>(queue);
        return pending;
    }

    /// Like after(queue), sharing `slot`'s pending event where no one has asked for it yet (no allocation, no
    /// retain of the queue): `slot` must be the queue's own (clalgo::Queue keeps it).
    static Event after(const cl::CommandQueue& queue, detail::PendingSlot& slot) {
        Event pending;
        std::lock_guard<std::mutex> lock(slot.mutex);
        if (!slot.latest || slot.latest->asked.load()) slot.latest = std::make_shared<detail::PendingEvent>(queue);
        pending.pending_ = slot.latest;
        return pending;
    }

    /// The OpenCL event, made now where it was not yet (a marker on the call's queue, which is then flushed, so
    /// that another queue may wait for it); the same one every time. By value: a handle (a retain), never a
    /// reference into an Event that may be a temporary.
    cl::Event get() const {
        if (!pending_) return event_;
        std::lock_guard<std::mutex> lock(pending_->mutex);
        if (!pending_->event()) {
            pending_->asked.store(true);  // before the marker: later calls no longer share this event
            try {
                pending_->queue.enqueueMarkerWithWaitList(nullptr, &pending_->event);
                pending_->queue.flush();
            } catch (const cl::Error& error) {
                detail::rethrow(error, "making the event of a clalgo call (a marker)");
            }
        }
        return pending_->event;
    }

    /// The OpenCL event (see get()), so that an Event goes wherever a cl::Event does.
    operator cl::Event() const { return get(); }  // NOLINT: implicit, so an Event is a cl::Event

    /// Waits until the call's work has completed (nothing to wait for where the Event is empty).
    void wait() const {
        const cl::Event event = get();
        if (!event()) return;
        try {
            event.wait();
        } catch (const cl::Error& error) {
            detail::rethrow(error, "waiting for a clalgo call");
        }
    }

    /// Whether the Event is yet to be made from the commands of `queue` (then a later command of that in-order queue
    /// needs no wait for it).
    bool pending_on(const cl::CommandQueue& queue) const { return pending_ && pending_->queue() == queue(); }

    /// Whether the OpenCL event exists already (a call on a profiling queue, or one asked for before).
    bool made() const {
        if (!pending_) return event_() != nullptr;
        std::lock_guard<std::mutex> lock(pending_->mutex);
        return pending_->event() != nullptr;
    }

private:
    cl::Event event_;
    /// shared by the copies, and by later calls of the queue until asked for, so that one marker serves them all
    std::shared_ptr<detail::PendingEvent> pending_;
};

}  // namespace clalgo
