// The server's elastic request thread pool: every job runs once, the pool
// grows with blocked jobs up to its cap and never beyond, shrinks back to its
// floor once idle, and shutdown or destruction runs what is queued.

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <semaphore>
#include <thread>
#include <vector>

#include "serve/worker_pool.hpp"

using namespace std::chrono_literals;

// Everything in a namespace of its own: the suite is built as one translation unit.
namespace worker_pool_test {

// Polls `condition` every millisecond until it holds or `limit` passes; the
// result says which (a state the pool reaches asynchronously).
template <class Condition>
bool eventually(Condition condition, std::chrono::milliseconds limit = 5s) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!condition()) {
        if (std::chrono::steady_clock::now() >= deadline) return false;
        std::this_thread::sleep_for(1ms);
    }
    return true;
}

// Jobs that block until the test hands each a permit, counting how many are
// running at once and the most that ever were.
struct BlockingJobs {
    std::atomic<int> started{0};
    std::atomic<int> running{0};
    std::atomic<int> finished{0};
    std::atomic<int> peak{0};
    std::counting_semaphore<> permits{0};

    std::function<void()> job() {
        return [this] {
            ++started;
            const int now = ++running;
            for (int seen = peak.load(); now > seen && !peak.compare_exchange_weak(seen, now);) {
            }
            permits.acquire();
            --running;
            ++finished;
        };
    }
};

using abci::serve::WorkerPool;

TEST_CASE("worker pool: 2000 jobs from four producers each run exactly once", "[serve][worker_pool]") {
    constexpr int kProducers = 4;
    constexpr int kJobsEach = 500;
    std::vector<std::atomic<int>> runs(kProducers * kJobsEach);
    std::atomic<int> done{0};
    WorkerPool pool(2, 8, 100ms);
    {
        std::vector<std::jthread> producers;
        for (int p = 0; p < kProducers; ++p) {
            producers.emplace_back([&, p] {
                for (int i = 0; i < kJobsEach; ++i) {
                    pool.enqueue([&, k = p * kJobsEach + i] {
                        ++runs[static_cast<std::size_t>(k)];
                        ++done;
                    });
                }
            });
        }
    }
    REQUIRE(eventually([&] { return done.load() == kProducers * kJobsEach; }));
    pool.shutdown();
    CHECK(done.load() == kProducers * kJobsEach);
    int wrong = 0;
    for (const auto& r : runs) wrong += r.load() != 1;
    CHECK(wrong == 0);
    CHECK(pool.threads() == 0);
}

TEST_CASE("worker pool: grows to run blocked jobs at once, never beyond its cap", "[serve][worker_pool]") {
    BlockingJobs jobs;
    WorkerPool pool(1, 4, 10s);  // no thread times out during the test
    CHECK(pool.threads() == 1);

    for (int i = 0; i < 3; ++i) pool.enqueue(jobs.job());
    CHECK(eventually([&] { return jobs.running.load() == 3; }));  // grown from one thread to three
    CHECK(pool.threads() <= 4);

    for (int i = 0; i < 3; ++i) pool.enqueue(jobs.job());
    CHECK(eventually([&] { return jobs.running.load() == 4; }));
    CHECK(pool.threads() == 4);
    // The two jobs beyond the cap wait in line: give them time they would
    // need to start if the pool wrongly grew.
    std::this_thread::sleep_for(50ms);
    CHECK(jobs.started.load() == 4);
    CHECK(pool.threads() == 4);

    // One job ends: exactly one waiting job takes its thread.
    jobs.permits.release();
    CHECK(eventually([&] { return jobs.started.load() == 5; }));
    CHECK(jobs.finished.load() == 1);
    CHECK(jobs.running.load() == 4);

    jobs.permits.release(5);
    CHECK(eventually([&] { return jobs.finished.load() == 6; }));
    CHECK(jobs.peak.load() == 4);
    CHECK(pool.threads() == 4);
}

TEST_CASE("worker pool: threads idle for the timeout end, down to the floor", "[serve][worker_pool]") {
    BlockingJobs jobs;
    WorkerPool pool(2, 6, 100ms);
    for (int i = 0; i < 6; ++i) pool.enqueue(jobs.job());
    REQUIRE(eventually([&] { return jobs.running.load() == 6; }));
    CHECK(pool.threads() == 6);

    jobs.permits.release(6);
    REQUIRE(eventually([&] { return jobs.finished.load() == 6; }));
    CHECK(eventually([&] { return pool.threads() == 2; }, 2s));
    // The floor stays: another idle timeout ends no more threads.
    std::this_thread::sleep_for(150ms);
    CHECK(pool.threads() == 2);

    // The pool still grows again (and joins the threads that ended meanwhile).
    for (int i = 0; i < 3; ++i) pool.enqueue(jobs.job());
    CHECK(eventually([&] { return jobs.running.load() == 3; }));
    CHECK(pool.threads() == 3);
    jobs.permits.release(3);
    CHECK(eventually([&] { return jobs.finished.load() == 9; }));
}

TEST_CASE("worker pool: shutdown runs the jobs still queued, then returns", "[serve][worker_pool]") {
    BlockingJobs blocker;
    std::atomic<int> ran{0};
    WorkerPool pool(1, 1, 10s);
    pool.enqueue(blocker.job());
    REQUIRE(eventually([&] { return blocker.running.load() == 1; }));
    for (int i = 0; i < 50; ++i) pool.enqueue([&] { ++ran; });  // queued behind the one busy thread
    CHECK(ran.load() == 0);

    std::jthread stopper([&] { pool.shutdown(); });
    REQUIRE(eventually([&] { return pool.stopping(); }));  // shutdown began while the jobs are still queued
    CHECK(ran.load() == 0);
    blocker.permits.release();
    stopper.join();
    CHECK(ran.load() == 50);
    CHECK(blocker.finished.load() == 1);
    CHECK(pool.threads() == 0);
    pool.shutdown();  // a second shutdown (as the destructor does) is harmless
}

TEST_CASE("worker pool: destruction without shutdown runs queued jobs and joins every thread",
          "[serve][worker_pool]") {
    SECTION("jobs still queued behind a busy thread") {
        std::atomic<int> ran{0};
        BlockingJobs blocker;
        {
            WorkerPool pool(1, 1, 10s);
            pool.enqueue(blocker.job());
            REQUIRE(eventually([&] { return blocker.running.load() == 1; }));
            for (int i = 0; i < 100; ++i) pool.enqueue([&] { ++ran; });
            blocker.permits.release();
        }
        CHECK(ran.load() == 100);
    }
    SECTION("threads that ended on their idle timeout, not joined yet") {
        BlockingJobs jobs;
        {
            WorkerPool pool(1, 4, 20ms);
            for (int i = 0; i < 4; ++i) pool.enqueue(jobs.job());
            REQUIRE(eventually([&] { return jobs.running.load() == 4; }));
            jobs.permits.release(4);
            REQUIRE(eventually([&] { return pool.threads() == 1; }));
        }
        CHECK(jobs.finished.load() == 4);
    }
}

}  // namespace worker_pool_test
