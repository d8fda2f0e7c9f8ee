#include "serve/worker_pool.hpp"

#include <system_error>

namespace abci::serve {

WorkerPool::WorkerPool(std::size_t min_threads, std::size_t max_threads, std::chrono::milliseconds idle_timeout)
    : min_threads_(min_threads), max_threads_(max_threads), idle_timeout_(idle_timeout) {
    std::lock_guard lock(mutex_);
    for (std::size_t i = 0; i < min_threads_; ++i) {
        threads_.emplace_back();
        threads_.back() = std::thread(&WorkerPool::work, this, std::prev(threads_.end()));
    }
}

WorkerPool::~WorkerPool() { shutdown(); }

void WorkerPool::enqueue(std::function<void()> job) {
    std::unique_lock lock(mutex_);
    jobs_.push_back(std::move(job));
    reap_finished(lock);
    // Idle threads outnumbering the queued jobs take them; otherwise one more thread.
    if (idle_ < jobs_.size() && threads_.size() < max_threads_ && !stopping_) {
        threads_.emplace_back();
        try {
            threads_.back() = std::thread(&WorkerPool::work, this, std::prev(threads_.end()));
            return;
        } catch (const std::system_error&) {
            // Out of threads (a process or memory limit): the job waits for a running one.
            threads_.pop_back();
        }
    }
    lock.unlock();
    wake_.notify_one();
}

void WorkerPool::shutdown() {
    std::list<std::thread> all;
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    std::unique_lock lock(mutex_);
    // Threads may still end (and be listed as finished) until they are all joined.
    while (!threads_.empty()) {
        all.splice(all.end(), threads_);
        finished_.clear();
        lock.unlock();
        for (auto& t : all) t.join();
        all.clear();
        lock.lock();
    }
}

std::size_t WorkerPool::threads() const {
    std::lock_guard lock(mutex_);
    return threads_.size() - finished_.size();
}

bool WorkerPool::stopping() const {
    std::lock_guard lock(mutex_);
    return stopping_;
}

void WorkerPool::reap_finished(std::unique_lock<std::mutex>& lock) {
    if (finished_.empty()) return;
    std::list<std::thread> done;
    for (auto it : finished_) done.splice(done.end(), threads_, it);
    finished_.clear();
    lock.unlock();
    for (auto& t : done) t.join();  // each has left work(): joining is immediate
    lock.lock();
}

void WorkerPool::work(std::list<std::thread>::iterator self) {
    std::unique_lock lock(mutex_);
    for (;;) {
        ++idle_;
        const bool woken = wake_.wait_for(lock, idle_timeout_, [this] { return stopping_ || !jobs_.empty(); });
        --idle_;
        if (jobs_.empty()) {
            if (stopping_) return;
            // Idle for the whole timeout: the pool shrinks back towards its floor.
            if (!woken && threads_.size() - finished_.size() > min_threads_) {
                finished_.push_back(self);
                return;
            }
            continue;
        }
        auto job = std::move(jobs_.front());
        jobs_.pop_front();
        lock.unlock();
        job();
        lock.lock();
    }
}

}  // namespace abci::serve
