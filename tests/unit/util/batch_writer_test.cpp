// util::BatchWriter: every appended item written once, in order; what is
// appended during a write goes out together in the next batch; a failed write
// is offered again, unless an item is refused, which alone is dropped;
// flush() is read-your-writes; the destructor writes the rest.

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "core/util/batch_writer.hpp"

namespace abci::util {
namespace {

using namespace std::chrono_literals;

// What the writer was given, batch by batch, guarded for the test thread.
struct Sink {
    std::mutex mutex;
    std::vector<std::vector<int>> batches;

    void take(std::vector<int>& batch) {
        std::lock_guard lock(mutex);
        batches.push_back(batch);
    }
    std::vector<int> all() {
        std::lock_guard lock(mutex);
        std::vector<int> out;
        for (const auto& b : batches) out.insert(out.end(), b.begin(), b.end());
        return out;
    }
};

const auto no_errors = [](const std::exception& e) { FAIL_CHECK(e.what()); };
const auto no_drops = [](int item, const std::exception& e) { FAIL_CHECK(item << ": " << e.what()); };

TEST_CASE("batch writer: items of many threads are written once each, each thread's in order", "[util]") {
    Sink sink;
    {
        BatchWriter<int> writer([&](std::vector<int>& b) { sink.take(b); }, no_errors, no_drops, 1ms);
        std::vector<std::thread> threads;
        for (int t = 0; t < 8; ++t)
            threads.emplace_back([&, t] {
                for (int i = 0; i < 500; ++i) writer.append(t * 1000 + i);
            });
        for (auto& th : threads) th.join();
    }  // the destructor writes what is still queued
    const auto all = sink.all();
    REQUIRE(all.size() == 8 * 500);
    std::vector<int> next(8, 0);
    for (const int v : all) {
        const int t = v / 1000;
        CHECK(v % 1000 == next[t]);  // in order, none twice, none skipped
        next[t] = v % 1000 + 1;
    }
}

TEST_CASE("batch writer: what is appended while a batch is written goes out as one batch", "[util]") {
    Sink sink;
    std::mutex gate_mutex;
    std::condition_variable gate;
    bool writing = false, open = false;
    BatchWriter<int> writer(
        [&](std::vector<int>& b) {
            std::unique_lock lock(gate_mutex);
            writing = true;
            gate.notify_all();
            gate.wait(lock, [&] { return open; });
            sink.take(b);
        },
        no_errors, no_drops, 0ms);
    writer.append(0);
    {
        // The writer holds the batch {0} and waits at the gate.
        std::unique_lock lock(gate_mutex);
        gate.wait(lock, [&] { return writing; });
    }
    for (int i = 1; i <= 100; ++i) writer.append(i);
    {
        std::lock_guard lock(gate_mutex);
        open = true;
    }
    gate.notify_all();
    REQUIRE(writer.flush(10s));
    std::lock_guard lock(sink.mutex);
    REQUIRE(sink.batches.size() == 2);
    CHECK(sink.batches[0] == std::vector<int>{0});
    CHECK(sink.batches[1].size() == 100);
    CHECK(sink.batches[1].front() == 1);
    CHECK(sink.batches[1].back() == 100);
}

TEST_CASE("batch writer: a failed write is offered again, reported, and nothing is lost", "[util]") {
    Sink sink;
    std::atomic<int> failures_left{2};
    std::vector<std::string> errors;
    std::mutex errors_mutex;
    BatchWriter<int> writer(
        [&](std::vector<int>& b) {
            if (failures_left.fetch_sub(1) > 0) throw std::runtime_error("disk is full");
            sink.take(b);
        },
        [&](const std::exception& e) {
            std::lock_guard lock(errors_mutex);
            errors.emplace_back(e.what());
        },
        no_drops, 1ms);
    for (int i = 0; i < 10; ++i) writer.append(i);
    REQUIRE(writer.flush(10s));
    CHECK(sink.all() == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
    std::lock_guard lock(errors_mutex);
    CHECK(errors == std::vector<std::string>{"disk is full", "disk is full"});
}

TEST_CASE("batch writer: flush gives up after its timeout while writes keep failing", "[util]") {
    std::atomic<bool> failing{true};
    Sink sink;
    BatchWriter<int> writer(
        [&](std::vector<int>& b) {
            if (failing) throw std::runtime_error("locked");
            sink.take(b);
        },
        [](const std::exception&) {}, no_drops, 1ms);
    writer.append(7);
    CHECK_FALSE(writer.flush(50ms));
    failing = false;
    CHECK(writer.flush(10s));
    CHECK(sink.all() == std::vector<int>{7});
}

TEST_CASE("batch writer: an item refused alone is dropped once, and the items around and after it are written",
          "[util]") {
    Sink sink;
    std::mutex mutex;
    std::vector<int> dropped;
    int writes = 0;
    BatchWriter<int> writer(
        [&](std::vector<int>& b) {
            {
                std::lock_guard lock(mutex);
                ++writes;
            }
            // As a database refuses a row (a CHECK, a value out of range): the whole batch fails.
            if (std::find(b.begin(), b.end(), 3) != b.end()) throw Error(ErrorKind::internal, "row 3 refused");
            sink.take(b);
        },
        no_errors,
        [&](int item, const std::exception&) {
            std::lock_guard lock(mutex);
            dropped.push_back(item);
        },
        1ms);
    for (int i = 0; i < 10; ++i) writer.append(i);
    REQUIRE(writer.flush(10s));
    for (int i = 10; i < 16; ++i) writer.append(i);
    REQUIRE(writer.flush(10s));
    std::this_thread::sleep_for(50ms);  // time enough for a retry that should not come
    CHECK(sink.all() == std::vector<int>{0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
    std::lock_guard lock(mutex);
    CHECK(dropped == std::vector<int>{3});
    // The failed batch once, then each of its items alone, then what came after: never the refused item again.
    CHECK(writes <= 2 + 10 + 6);
}

TEST_CASE("batch writer: while the destination is unreachable every item is kept, and written once it is back",
          "[util]") {
    Sink sink;
    std::atomic<int> failures_left{3};
    std::atomic<int> errors{0};
    BatchWriter<int> writer(
        [&](std::vector<int>& b) {
            if (failures_left.fetch_sub(1) > 0) throw Error(ErrorKind::unavailable, "the database is down");
            sink.take(b);
        },
        [&](const std::exception&) { ++errors; }, no_drops, 1ms);
    for (int i = 0; i < 5; ++i) writer.append(i);
    REQUIRE(writer.flush(10s));
    CHECK(sink.all() == std::vector<int>{0, 1, 2, 3, 4});
    CHECK(errors == 3);
}

}  // namespace
}  // namespace abci::util
