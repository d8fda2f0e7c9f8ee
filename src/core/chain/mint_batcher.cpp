#include "core/chain/mint_batcher.hpp"

#include "core/chain/tx_sender.hpp"
#include "core/error.hpp"

namespace abci::chain {

MintBatcher::MintBatcher(TokenContract& contract, TxSender& sender, BatchOptions options, Combine combine)
    : contract_(contract), sender_(sender), options_(options), combine_(std::move(combine)), thread_([this] { run(); }) {}

MintBatcher::~MintBatcher() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    arrived_.notify_all();
    thread_.join();
    auto error = std::make_exception_ptr(Error(ErrorKind::unavailable, "the mint batcher is shutting down"));
    for (auto& queued : queue_) queued.sent.set_exception(error);
}

PendingMint MintBatcher::mint(TokenContract::MintItem item, std::string purpose) {
    auto alone = [this, item, purpose] { return mint_now(contract_, sender_, item, purpose); };
    Queued queued{std::move(item), std::move(purpose), {}};
    PendingMint pending(queued.sent.get_future(), std::move(alone));
    {
        std::lock_guard lock(mutex_);
        if (stopping_) throw Error(ErrorKind::unavailable, "the mint batcher is shutting down");
        queue_.push_back(std::move(queued));
    }
    arrived_.notify_all();
    return pending;
}

void MintBatcher::run() {
    std::unique_lock lock(mutex_);
    for (;;) {
        arrived_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (stopping_) return;
        // The first mint waits out the window for company, unless the batch fills first.
        const auto deadline = std::chrono::steady_clock::now() + options_.window;
        arrived_.wait_until(lock, deadline, [this] { return stopping_ || queue_.size() >= options_.max_mints; });
        if (stopping_) return;
        std::vector<Queued> batch;
        while (!queue_.empty() && batch.size() < options_.max_mints) {
            batch.push_back(std::move(queue_.front()));
            queue_.pop_front();
        }
        lock.unlock();
        send(batch);
        lock.lock();
    }
}

namespace {

void send_alone(TokenContract& contract, TxSender& sender, const TokenContract::MintItem& item, std::string purpose,
                std::promise<std::shared_future<Receipt>>& sent) {
    try {
        sent.set_value(contract.mint(sender, item.to, item.id, item.amount, item.data, std::move(purpose)).share());
    } catch (...) {
        sent.set_exception(std::current_exception());
    }
}

}  // namespace

PendingMint mint_now(TokenContract& contract, TxSender& sender, TokenContract::MintItem item, std::string purpose) {
    std::promise<std::shared_future<Receipt>> sent;
    PendingMint pending(sent.get_future());
    send_alone(contract, sender, item, std::move(purpose), sent);
    return pending;
}

void MintBatcher::send(std::vector<Queued>& batch) {
    if (batch.size() == 1) return send_alone(contract_, sender_, batch[0].item, std::move(batch[0].purpose), batch[0].sent);
    std::vector<TokenContract::MintItem> items;
    std::vector<std::string> purposes;
    for (const auto& queued : batch) {
        items.push_back(queued.item);
        purposes.push_back(queued.purpose);
    }
    std::shared_future<Receipt> sent;
    try {
        sent = contract_.mint_many(sender_, items, combine_(purposes)).share();
    } catch (const Error& e) {
        // Anything but the contract refusing (the node unreachable, ...) fails them all.
        if (e.kind() != ErrorKind::chain_rejected && e.kind() != ErrorKind::conflict) {
            for (auto& queued : batch) queued.sent.set_exception(std::current_exception());
            return;
        }
        // Some element would revert: on their own, only that one fails.
        for (auto& queued : batch) send_alone(contract_, sender_, queued.item, std::move(queued.purpose), queued.sent);
        return;
    }
    for (auto& queued : batch) queued.sent.set_value(sent);
}

}  // namespace abci::chain
