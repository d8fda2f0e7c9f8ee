#pragma once
// Writes items appended by many threads in batches on a thread of its own,
// so that the appending threads never wait for the write. A lone item is
// written at once; under load a batch is written at most every `spacing`, so
// a burst of appends costs one write per spacing instead of one per item
// (and, for SQLite, one commit, which is what invalidates every other
// connection's page cache).

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace abci::util {

template <class Item>
class BatchWriter {
public:
    /// `write` receives the items appended since the last batch, oldest
    /// first, and either writes them all or throws; after a throw the same
    /// items (and any appended since) are offered again after `spacing`, so
    /// nothing appended is lost while the process lives. `on_error` is told
    /// about each failure (on the writer thread; it must not throw).
    /// At most `max_queued` items wait: beyond that append() blocks until the
    /// writer has caught up, which bounds memory when writes fail for long.
    BatchWriter(std::function<void(std::vector<Item>&)> write, std::function<void(const std::exception&)> on_error,
                std::chrono::milliseconds spacing, std::size_t max_queued = 100'000)
        : write_(std::move(write)),
          on_error_(std::move(on_error)),
          spacing_(spacing),
          max_queued_(std::max<std::size_t>(1, max_queued)),
          thread_([this] { run(); }) {}

    BatchWriter(const BatchWriter&) = delete;
    BatchWriter& operator=(const BatchWriter&) = delete;

    /// Writes what is still queued (trying once more if a write fails), then stops.
    ~BatchWriter() {
        {
            std::lock_guard lock(mutex_);
            stopping_ = true;
        }
        wake_.notify_all();
        thread_.join();
    }

    /// Queues `item` for the next batch. Thread-safe; returns at once unless
    /// `max_queued` items are already waiting.
    void append(Item item) {
        std::unique_lock lock(mutex_);
        progress_.wait(lock, [&] { return queue_.size() < max_queued_ || stopping_; });
        queue_.push_back(std::move(item));
        ++appended_;
        lock.unlock();
        wake_.notify_one();
    }

    /// Waits until every item appended before the call has been written
    /// (read-your-writes for the process that appended them), or `timeout`
    /// passed while writes kept failing; true in the first case.
    [[nodiscard]] bool flush(std::chrono::milliseconds timeout) {
        std::unique_lock lock(mutex_);
        const std::uint64_t target = appended_;
        flush_requested_ = true;
        wake_.notify_one();
        return progress_.wait_for(lock, timeout, [&] { return written_ >= target; });
    }

private:
    void run() {
        using Clock = std::chrono::steady_clock;
        auto last_write = Clock::now() - spacing_;
        std::unique_lock lock(mutex_);
        for (;;) {
            wake_.wait(lock, [&] { return !queue_.empty() || stopping_; });
            if (queue_.empty()) return;  // stopping, nothing left
            // Under load, let the batch fill until `spacing` has passed since the last write.
            wake_.wait_until(lock, last_write + spacing_, [&] { return stopping_ || flush_requested_; });
            flush_requested_ = false;
            std::vector<Item> batch;
            batch.swap(queue_);
            lock.unlock();
            last_write = Clock::now();
            bool written = false;
            try {
                write_(batch);
                written = true;
            } catch (const std::exception& e) {
                on_error_(e);
            }
            lock.lock();
            if (written) {
                written_ += batch.size();
            } else {
                // Keep the order: the failed batch goes back in front of what came meanwhile.
                batch.insert(batch.end(), std::make_move_iterator(queue_.begin()), std::make_move_iterator(queue_.end()));
                queue_.swap(batch);
                if (stopping_) {
                    // One last try at stop; what still fails is lost with the process, as on a crash.
                    std::vector<Item> last;
                    last.swap(queue_);
                    lock.unlock();
                    try {
                        write_(last);
                    } catch (const std::exception& e) {
                        on_error_(e);
                    }
                    lock.lock();
                    written_ = appended_;
                    progress_.notify_all();
                    return;
                }
            }
            progress_.notify_all();
        }
    }

    std::function<void(std::vector<Item>&)> write_;
    std::function<void(const std::exception&)> on_error_;
    const std::chrono::milliseconds spacing_;
    const std::size_t max_queued_;
    std::mutex mutex_;
    std::condition_variable wake_;      // the writer: items queued, flush or stop requested
    std::condition_variable progress_;  // appenders and flushers: a batch was written
    std::vector<Item> queue_;
    std::uint64_t appended_ = 0;
    std::uint64_t written_ = 0;  // items written (or given up at stop), in append order
    bool flush_requested_ = false;
    bool stopping_ = false;
    std::thread thread_;  // last: started once everything above is ready
};

}  // namespace abci::util
