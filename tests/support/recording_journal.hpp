#pragma once
// A chain::TxJournal that keeps what the sender recorded and settled, in
// memory: for tests of the sender alone (the service's journal is the store's).

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/chain/tx_journal.hpp"

namespace abci::test {

// Every version the sender journaled and what it settled each as.
class RecordingJournal final : public chain::TxJournal {
public:
    // Runs inside record(), after the versions are written and before the sender broadcasts them.
    std::function<void()> on_record;

    void record(const std::vector<chain::SignedTx>& txs) override {
        {
            std::lock_guard lock(mutex_);
            if (closed_) throw chain::JournalClosed(ErrorKind::unavailable, *closed_);
            for (const auto& tx : txs) recorded_.push_back(tx);
        }
        if (on_record) on_record();
    }
    void settle(const std::vector<chain::Settlement>& settlements) noexcept override {
        std::lock_guard lock(mutex_);
        for (const auto& s : settlements) status_[s.hash] = s.status;
    }
    void reopen(const eth::Hash32& hash) noexcept override {
        std::lock_guard lock(mutex_);
        status_.erase(hash);
    }
    // Which chain the sender is on is the store's to keep (the lane's row).
    void record_genesis(const eth::Hash32&) noexcept override {}

    /// From now on record() throws JournalClosed (a lane lost to another server).
    void close(const std::string& why) {
        std::lock_guard lock(mutex_);
        closed_ = why;
    }

    [[nodiscard]] std::vector<chain::SignedTx> recorded() const {
        std::lock_guard lock(mutex_);
        return recorded_;
    }
    /// How many versions were recorded with `nonce` (the first and its replacements).
    [[nodiscard]] std::size_t versions_of(std::uint64_t nonce) const {
        std::lock_guard lock(mutex_);
        std::size_t n = 0;
        for (const auto& tx : recorded_) n += tx.nonce == nonce;
        return n;
    }
    [[nodiscard]] std::optional<chain::TxStatus> status(const eth::Hash32& hash) const {
        std::lock_guard lock(mutex_);
        const auto it = status_.find(hash);
        return it == status_.end() ? std::nullopt : std::optional(it->second);
    }

private:
    mutable std::mutex mutex_;
    std::vector<chain::SignedTx> recorded_;
    std::map<eth::Hash32, chain::TxStatus> status_;
    std::optional<std::string> closed_;
};

}  // namespace abci::test
