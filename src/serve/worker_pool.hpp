#pragma once
// The server's request threads. A mint request holds its thread until its
// transaction is mined, so a burst of N mints needs N threads at once or it
// waits in line behind the chain: the pool grows with demand up to its cap
// and lets threads that sat idle for a while go.

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <list>
#include <mutex>
#include <thread>
#include <vector>

namespace abci::serve {

class WorkerPool final : public httplib::TaskQueue {
public:
    /// Starts `min_threads` threads at once; grows to `max_threads` when a job
    /// arrives and no thread is idle; a thread beyond `min_threads` idle for
    /// `idle_timeout` ends. Requires 1 <= min_threads <= max_threads.
    WorkerPool(std::size_t min_threads, std::size_t max_threads,
               std::chrono::milliseconds idle_timeout = std::chrono::seconds(30));
    /// Runs the jobs still queued, then joins every thread (as shutdown()).
    ~WorkerPool() override;
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    /// Queues `job`; thread-safe. Jobs beyond the cap wait for a free thread.
    void enqueue(std::function<void()> job) override;
    /// Stops taking threads' time once the queue is empty and joins them all.
    void shutdown() override;

    /// Threads alive now (for tests and logs).
    [[nodiscard]] std::size_t threads() const;
    /// Whether shutdown() has begun (for tests and logs).
    [[nodiscard]] bool stopping() const;

private:
    void work(std::list<std::thread>::iterator self);
    void reap_finished(std::unique_lock<std::mutex>& lock);

    const std::size_t min_threads_;
    const std::size_t max_threads_;
    const std::chrono::milliseconds idle_timeout_;
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<std::function<void()>> jobs_;
    std::list<std::thread> threads_;                         // alive or not yet joined
    std::vector<std::list<std::thread>::iterator> finished_;  // ended, to be joined
    std::size_t idle_ = 0;
    bool stopping_ = false;
};

}  // namespace abci::serve
