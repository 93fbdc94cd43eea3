//===- ThreadPoolTest.cpp - Tests for octet_parallel_for -------------------===//
//
// The pool every generated kernel and octet-parallelize-loops task runs on:
// each index of [0, n) runs exactly once, the call returns only when all
// of them have, nested calls run serially, and resizing between calls
// keeps those guarantees. Many short calls back to back exercise the
// spinning hand-over (workers and caller wait without sleeping for a
// while); calls spaced out let the workers fall asleep and be woken.
//
//===----------------------------------------------------------------------===//

#include "octet/Runtime/OctetRuntime.h"

#include "gtest/gtest.h"

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace {

struct Counts {
  std::vector<std::atomic<int>> hits;
  std::atomic<int64_t> calls{0};
  explicit Counts(int64_t n) : hits(static_cast<size_t>(n)) {}
};

void countTask(void *ctx, int64_t begin, int64_t end) {
  auto *c = static_cast<Counts *>(ctx);
  ASSERT_LE(0, begin);
  ASSERT_LT(begin, end);
  ASSERT_LE(end, static_cast<int64_t>(c->hits.size()));
  for (int64_t i = begin; i < end; ++i)
    c->hits[static_cast<size_t>(i)].fetch_add(1, std::memory_order_relaxed);
  c->calls.fetch_add(1, std::memory_order_relaxed);
}

void expectEachOnce(const Counts &c) {
  for (size_t i = 0; i < c.hits.size(); ++i)
    ASSERT_EQ(c.hits[i].load(), 1) << "index " << i;
}

class ThreadPool : public ::testing::TestWithParam<int32_t> {
protected:
  void SetUp() override { octet_set_num_threads(GetParam()); }
  void TearDown() override { octet_set_num_threads(0); }
};

TEST_P(ThreadPool, EveryIndexOnce) {
  EXPECT_EQ(octet_get_num_threads(), GetParam());
  for (int64_t n : {1, 2, 3, 7, 64, 1000, 100003}) {
    Counts c(n);
    octet_parallel_for(n, countTask, &c);
    expectEachOnce(c);
  }
}

TEST_P(ThreadPool, EmptyRangeRunsNothing) {
  Counts c(1);
  octet_parallel_for(0, countTask, &c);
  octet_parallel_for(-5, countTask, &c);
  EXPECT_EQ(c.calls.load(), 0);
}

TEST_P(ThreadPool, ManyShortCallsBackToBack) {
  // The workers are still spinning when the next call starts.
  for (int round = 0; round < 20000; ++round) {
    Counts c(37);
    octet_parallel_for(37, countTask, &c);
    expectEachOnce(c);
  }
}

TEST_P(ThreadPool, CallsAfterTheWorkersSleep) {
  // Longer than the spin: the workers sleep and must be woken.
  for (int round = 0; round < 5; ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    Counts c(4096);
    octet_parallel_for(4096, countTask, &c);
    expectEachOnce(c);
  }
}

struct Nested {
  Counts inner{64};
  std::atomic<int> outer{0};
};

void nestedTask(void *ctx, int64_t begin, int64_t end) {
  auto *n = static_cast<Nested *>(ctx);
  for (int64_t i = begin; i < end; ++i) {
    n->outer.fetch_add(1);
    if (i == 0)
      // From inside a task: runs serially on this thread, as one call.
      octet_parallel_for(64, countTask, &n->inner);
  }
}

TEST_P(ThreadPool, NestedCallRunsSerially) {
  Nested n;
  octet_parallel_for(16, nestedTask, &n);
  EXPECT_EQ(n.outer.load(), 16);
  expectEachOnce(n.inner);
  EXPECT_EQ(n.inner.calls.load(), 1);
}

TEST_P(ThreadPool, ResizeBetweenCalls) {
  for (int32_t threads : {1, 3, GetParam()}) {
    octet_set_num_threads(threads);
    EXPECT_EQ(octet_get_num_threads(), threads);
    Counts c(513);
    octet_parallel_for(513, countTask, &c);
    expectEachOnce(c);
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, ThreadPool, ::testing::Values(1, 2, 4));

} // namespace
