#pragma once
// Writes items appended by many threads in batches on a thread of its own,
// so that the appending threads never wait for the write. A lone item is
// written at once; under load a batch is written at most every `spacing`, so
// a burst of appends costs one write per spacing instead of one per item
// (and, for SQLite, one commit, which is what invalidates every other
// connection's page cache). An item the destination refuses is given up
// alone; the writer never retries it for ever nor loses the others for it.

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "core/error.hpp"

namespace abci::util {

template <class Item>
class BatchWriter {
public:
    /// `write` receives the items appended since the last batch, oldest
    /// first, and either writes them all or throws. What it throws decides
    /// what becomes of them:
    /// - an abci::Error of a kind that says the items themselves are at fault
    ///   (anything but unavailable or timeout: the database refused a row):
    ///   the batch is written again one item at a time, so that the others
    ///   are written, and the item refused alone is given up and handed to
    ///   `on_dropped` once: one bad item never blocks those after it;
    /// - anything else (the database is unreachable, busy, full): the same
    ///   items (and any appended since) are offered again after `spacing`,
    ///   doubled after each failure in a row up to a second, so nothing
    ///   appended is lost while the process lives; `on_error` is told about
    ///   each such failure.
    /// Both are called on the writer thread and must not throw.
    /// At most `max_queued` items wait: beyond that append() blocks until the
    /// writer has caught up, which bounds memory when writes fail for long.
    BatchWriter(std::function<void(std::vector<Item>&)> write, std::function<void(const std::exception&)> on_error,
                std::function<void(const Item&, const std::exception&)> on_dropped, std::chrono::milliseconds spacing,
                std::size_t max_queued = 100'000)
        : write_(std::move(write)),
          on_error_(std::move(on_error)),
          on_dropped_(std::move(on_dropped)),
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

    /// Waits until every item appended before the call has been written (or
    /// given up as refused): read-your-writes for the process that appended
    /// them, or `timeout` passed while writes kept failing; true in the first case.
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
        auto pause = spacing_;
        std::unique_lock lock(mutex_);
        for (;;) {
            wake_.wait(lock, [&] { return !queue_.empty() || stopping_; });
            if (queue_.empty()) return;  // stopping, nothing left
            // Under load, let the batch fill until `spacing` has passed since
            // the last write; after a failed one, longer each time (up to
            // kMaxPause): an unreachable database is not asked 200 times a second.
            wake_.wait_until(lock, last_write + pause, [&] { return stopping_ || flush_requested_; });
            flush_requested_ = false;
            std::vector<Item> batch;
            batch.swap(queue_);
            lock.unlock();
            last_write = Clock::now();
            const std::size_t done = attempt(batch);
            lock.lock();
            written_ += done;
            pause = done == batch.size() ? spacing_ : std::min(std::max(pause * 2, kMinPause), kMaxPause);
            if (done < batch.size()) {
                // Keep the order: what failed goes back in front of what came meanwhile.
                batch.erase(batch.begin(), batch.begin() + static_cast<std::ptrdiff_t>(done));
                batch.insert(batch.end(), std::make_move_iterator(queue_.begin()), std::make_move_iterator(queue_.end()));
                queue_.swap(batch);
                if (stopping_) {
                    // One last try at stop; what still fails is lost with the process, as on a crash.
                    std::vector<Item> last;
                    last.swap(queue_);
                    lock.unlock();
                    (void)attempt(last);
                    lock.lock();
                    written_ = appended_;
                    progress_.notify_all();
                    return;
                }
            }
            progress_.notify_all();
        }
    }

    /// Whether `e` says the items are at fault rather than the place they go to.
    static bool refused_items(const std::exception& e) {
        const auto* error = dynamic_cast<const Error*>(&e);
        return error && error->kind() != ErrorKind::unavailable && error->kind() != ErrorKind::timeout;
    }

    /// Writes `batch`; how many of its first items are done with (written, or
    /// given up as refused); the rest failed for the destination's fault (unreachable, busy) and are kept.
    std::size_t attempt(std::vector<Item>& batch) {
        try {
            write_(batch);
            return batch.size();
        } catch (const std::exception& e) {
            if (!refused_items(e)) {
                on_error_(e);
                return 0;
            }
        }
        // An item was refused: each alone, to find which.
        for (std::size_t i = 0; i < batch.size(); ++i) {
            std::vector<Item> one{batch[i]};
            try {
                write_(one);
            } catch (const std::exception& e) {
                if (!refused_items(e)) {
                    on_error_(e);
                    return i;
                }
                on_dropped_(batch[i], e);
            }
        }
        return batch.size();
    }

    static constexpr std::chrono::milliseconds kMinPause{1}, kMaxPause{1000};

    std::function<void(std::vector<Item>&)> write_;
    std::function<void(const std::exception&)> on_error_;
    std::function<void(const Item&, const std::exception&)> on_dropped_;
    const std::chrono::milliseconds spacing_;
    const std::size_t max_queued_;
    std::mutex mutex_;
    std::condition_variable wake_;      // the writer: items queued, flush or stop requested
    std::condition_variable progress_;  // appenders and flushers: a batch was written
    std::vector<Item> queue_;
    std::uint64_t appended_ = 0;
    std::uint64_t written_ = 0;  // items written (or given up: refused, or at stop), in append order
    bool flush_requested_ = false;
    bool stopping_ = false;
    std::thread thread_;  // last: started once everything above is ready
};

}  // namespace abci::util
