// Host threads of a DeviceSet, where CLALGO_DEVICE_THREADS=1: a multi-device call enqueues each device's commands
// on a thread of its own, as separate processes do. The first device's part runs on the calling thread; the
// others on threads made at the set's first such call and kept until its last copy is gone. Nothing blocking
// runs on them: NVIDIA's OpenCL serialised the devices' blocking reads when threads made them.
//   detail::DeviceThreads threads(3);
//   threads.run(4, [&](std::size_t k) { partial[k] = kernel(queue[k], share[k]); });  // k = 0 here, 1-3 there
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace clalgo::detail {

/// A fixed set of worker threads; see the header's first lines. Thread-safe: calls from several threads may run
/// at once (each waits for its own work). Work that itself calls run runs all of its parts on its own thread.
class DeviceThreads {
public:
    explicit DeviceThreads(std::size_t workers) : workers_(workers) {
        for (std::size_t w = 0; w < workers; ++w) threads_.emplace_back([this, w] { serve(workers_[w]); });
    }
    DeviceThreads(const DeviceThreads&) = delete;
    DeviceThreads& operator=(const DeviceThreads&) = delete;
    ~DeviceThreads() {
        for (auto& worker : workers_) {
            std::lock_guard<std::mutex> lock(worker.mutex);
            worker.stopping = true;
            worker.wake.notify_one();
        }
        for (auto& thread : threads_) thread.join();
    }

    /// Runs work(k) for every k in [0, count): k = 0 on the calling thread, k on worker k - 1 (the rest, past the
    /// workers, on the calling thread too); returns when all are done and rethrows the exception of the lowest k
    /// that threw.
    void run(std::size_t count, const std::function<void(std::size_t)>& work) {
        if (count <= 1 || workers_.empty() || inside_worker()) {
            for (std::size_t k = 0; k < count; ++k) work(k);
            return;
        }
        Call call{&work, {}, {}, 0, std::vector<std::exception_ptr>(count)};
        const std::size_t given = std::min(count - 1, workers_.size());
        call.remaining = given;
        for (std::size_t k = 1; k <= given; ++k) {
            Worker& worker = workers_[k - 1];
            std::lock_guard<std::mutex> lock(worker.mutex);
            worker.tasks.push_back(Task{&call, k});
            worker.wake.notify_one();
        }
        for (std::size_t k = 0; k < count; ++k) {
            if (k >= 1 && k <= given) continue;
            try {
                work(k);
            } catch (...) {
                call.errors[k] = std::current_exception();
            }
        }
        {
            std::unique_lock<std::mutex> lock(call.mutex);
            call.done.wait(lock, [&] { return call.remaining == 0; });
        }
        for (const auto& error : call.errors)
            if (error) std::rethrow_exception(error);
    }

private:
    struct Call {
        const std::function<void(std::size_t)>* work;
        std::mutex mutex;
        std::condition_variable done;
        std::size_t remaining;
        std::vector<std::exception_ptr> errors;
    };
    struct Task {
        Call* call;
        std::size_t k;
    };
    struct Worker {
        std::mutex mutex;
        std::condition_variable wake;
        std::deque<Task> tasks;
        bool stopping = false;
    };

    static bool& inside_worker() {
        thread_local bool inside = false;
        return inside;
    }

    static void serve(Worker& worker) {
        inside_worker() = true;
        for (;;) {
            Task task;
            {
                std::unique_lock<std::mutex> lock(worker.mutex);
                worker.wake.wait(lock, [&] { return worker.stopping || !worker.tasks.empty(); });
                if (worker.tasks.empty()) return;  // stopping, nothing left
                task = worker.tasks.front();
                worker.tasks.pop_front();
            }
            try {
                (*task.call->work)(task.k);
            } catch (...) {
                task.call->errors[task.k] = std::current_exception();
            }
            std::lock_guard<std::mutex> lock(task.call->mutex);
            if (--task.call->remaining == 0) task.call->done.notify_one();
        }
    }

    std::deque<Worker> workers_;  ///< a deque: workers do not move while their threads hold them
    std::vector<std::thread> threads_;
};

}  // namespace clalgo::detail
