#pragma once
// Combines work that many threads submit at the same time into batches, the
// way a database does group commit: the first caller to find no batch running
// runs the batch of everything queued so far, and keeps running the batches
// that queue up meanwhile until none is left; the others wait for their
// result. A lone item runs at once: no thread of its own, no timer, no window.

#include <algorithm>
#include <cstddef>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace abci::util {

template <class Item, class Result>
class Combiner {
public:
    /// `run` receives a batch of at most `max_batch` items and returns one
    /// result per item, in order; whatever it throws is thrown to every caller
    /// of that batch. It is called on a submitting thread, one batch at a time.
    using RunBatch = std::function<std::vector<Result>(std::vector<Item>&)>;

    Combiner(RunBatch run, std::size_t max_batch) : run_(std::move(run)), max_batch_(std::max<std::size_t>(1, max_batch)) {}
    Combiner(const Combiner&) = delete;
    Combiner& operator=(const Combiner&) = delete;

    /// Queues `item` and returns its result once its batch has run. Thread-safe.
    [[nodiscard]] Result submit(Item item) {
        auto mine = std::make_shared<Pending>(Pending{std::move(item), {}});
        auto result = mine->result.get_future();
        {
            std::unique_lock lock(mutex_);
            queue_.push_back(std::move(mine));
            if (!running_) run_queued(lock);
        }
        return result.get();
    }

private:
    struct Pending {
        Item item;
        std::promise<Result> result;
    };

    void run_queued(std::unique_lock<std::mutex>& lock) {
        running_ = true;
        while (!queue_.empty()) {
            const auto n = static_cast<std::ptrdiff_t>(std::min(queue_.size(), max_batch_));
            std::vector<std::shared_ptr<Pending>> batch(queue_.begin(), queue_.begin() + n);
            queue_.erase(queue_.begin(), queue_.begin() + n);
            lock.unlock();
            std::vector<Item> items;
            items.reserve(batch.size());
            for (auto& p : batch) items.push_back(std::move(p->item));
            std::vector<Result> results;
            std::exception_ptr error;
            try {
                results = run_(items);
                if (results.size() != batch.size())
                    throw std::logic_error("a combined batch returned a result count other than its size");
            } catch (...) {
                error = std::current_exception();
            }
            for (std::size_t i = 0; i < batch.size(); ++i) {
                if (error)
                    batch[i]->result.set_exception(error);
                else
                    batch[i]->result.set_value(std::move(results[i]));
            }
            lock.lock();
        }
        running_ = false;
    }

    RunBatch run_;
    const std::size_t max_batch_;
    std::mutex mutex_;
    std::vector<std::shared_ptr<Pending>> queue_;
    bool running_ = false;
};

}  // namespace abci::util
