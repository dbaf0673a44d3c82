// Runs a build on a thread with a stack of its own. The OpenCL compilers run in the calling process and recurse
// over the code they parse; the caller's thread may have a small stack (a pool's worker, a language runtime's
// thread), and the code clalgo lets through (codegen/code_shape.hpp) may need up to about 26 MiB of it. The
// thread's stack is only reserved: memory is committed as the compiler touches it. Where threads cannot be given
// a stack size (not POSIX), the build runs on the calling thread.
//   detail::on_compiler_stack([&] { program.build({device}, options.c_str()); });
#pragma once

#include <cstddef>
#include <exception>
#include <functional>

#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#endif

namespace clalgo::detail {

/// The stack a build runs on.
inline constexpr std::size_t compiler_stack_bytes = std::size_t(128) << 20;

/// Calls `work` on a thread with compiler_stack_bytes of stack and waits for it; rethrows what it threw.
inline void on_compiler_stack(const std::function<void()>& work) {
#if defined(__unix__) || defined(__APPLE__)
    struct Job {
        const std::function<void()>* work;
        std::exception_ptr failure;
    } job{&work, nullptr};
    auto run = [](void* argument) -> void* {
        auto* job = static_cast<Job*>(argument);
        try {
            (*job->work)();
        } catch (...) {
            job->failure = std::current_exception();
        }
        return nullptr;
    };
    pthread_attr_t attributes;
    pthread_t thread;
    bool started = false;
    if (pthread_attr_init(&attributes) == 0) {
        started = pthread_attr_setstacksize(&attributes, compiler_stack_bytes) == 0 &&
                  pthread_create(&thread, &attributes, run, &job) == 0;
        pthread_attr_destroy(&attributes);
    }
    if (!started) {  // no thread to be had (a process at its limit): build here
        work();
        return;
    }
    pthread_join(thread, nullptr);
    if (job.failure) std::rethrow_exception(job.failure);
#else
    work();
#endif
}

}  // namespace clalgo::detail
