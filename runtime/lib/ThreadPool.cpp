//===- ThreadPool.cpp - The CPU thread pool of generated kernels ----------===//
//
// octet_parallel_for runs fn(ctx, begin, end) over [0, n) on a persistent
// pool of worker threads plus the calling thread. Work is handed out in
// chunks from an atomic counter (dynamic scheduling: the tiles of a GEMM do
// not all cost the same, and other processes share the cores), each chunk
// the remaining tasks over twice the threads (guided scheduling: few large
// chunks first, single tasks at the end, so the threads finish together). The
// pool is created on first use with OCTET_NUM_THREADS threads (default: the
// hardware concurrency); octet_set_num_threads changes it between calls.
// A parallel_for issued from inside a task runs serially on that thread.
//
//===----------------------------------------------------------------------===//

#include "octet/Runtime/OctetRuntime.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

namespace {

using TaskFn = void (*)(void *, int64_t, int64_t);

/// True on a thread that is running a task of the pool.
thread_local bool insideTask = false;

int32_t defaultThreadCount() {
  if (const char *env = std::getenv("OCTET_NUM_THREADS")) {
    int value = std::atoi(env);
    if (value > 0)
      return value;
  }
  unsigned hw = std::thread::hardware_concurrency();
  return hw ? static_cast<int32_t>(hw) : 1;
}

/// How long an idle worker, and the caller waiting for the workers, spin
/// before sleeping on a condition variable. Waking a sleeping thread costs
/// tens of microseconds (futex wake, scheduler); a model runs hundreds of
/// short parallel loops back to back, so the workers are usually still
/// spinning when the next one starts.
constexpr auto kSpin = std::chrono::microseconds(100);

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

/// Spins until `ready()` or kSpin has passed; true when ready.
template <typename Ready> bool spinUntil(Ready ready) {
  auto start = std::chrono::steady_clock::now();
  for (int i = 0;; ++i) {
    if (ready())
      return true;
    cpuRelax();
    if ((i & 63) == 63) {
      if (std::chrono::steady_clock::now() - start > kSpin)
        return false;
      // More threads than free cores: let the ones with work run.
      std::this_thread::yield();
    }
  }
}

class Pool {
public:
  explicit Pool(int32_t threads) { start(threads); }
  ~Pool() { stopWorkers(); }

  int32_t size() const { return static_cast<int32_t>(workers.size()) + 1; }

  void resize(int32_t threads) {
    std::lock_guard<std::mutex> callLock(callMutex);
    stopWorkers();
    start(threads);
  }

  void run(int64_t n, TaskFn fn, void *ctx) {
    std::lock_guard<std::mutex> callLock(callMutex);
    // Every worker has finished the previous job (pending was 0), so the
    // job can be rewritten; the release on generation publishes it.
    job = {fn, ctx, n, 2 * static_cast<int64_t>(size())};
    next.store(0, std::memory_order_relaxed);
    pending.store(static_cast<int32_t>(workers.size()),
                  std::memory_order_relaxed);
    {
      std::lock_guard<std::mutex> lock(mutex);
      generation.fetch_add(1, std::memory_order_release);
    }
    if (sleepers.load(std::memory_order_acquire) > 0)
      wake.notify_all();
    work(job);
    auto finished = [&] {
      return pending.load(std::memory_order_acquire) == 0;
    };
    if (spinUntil(finished))
      return;
    std::unique_lock<std::mutex> lock(mutex);
    done.wait(lock, finished);
  }

private:
  struct Job {
    TaskFn fn = nullptr;
    void *ctx = nullptr;
    int64_t n = 0;
    int64_t shares = 2; ///< A chunk is the remaining tasks / shares.
  };

  void start(int32_t threads) {
    stopping.store(false, std::memory_order_relaxed);
    uint64_t seen = generation.load(std::memory_order_relaxed);
    for (int32_t i = 1; i < threads; ++i)
      workers.emplace_back([this, seen] { loop(seen); });
  }

  void stopWorkers() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping.store(true, std::memory_order_relaxed);
      generation.fetch_add(1, std::memory_order_release);
    }
    wake.notify_all();
    for (std::thread &t : workers)
      t.join();
    workers.clear();
  }

  void work(const Job &j) {
    insideTask = true;
    int64_t begin = next.load(std::memory_order_relaxed);
    while (begin < j.n) {
      // Guided: a share of what is left (at least one task). A two-thread
      // GEMM of 44 tiles took chunks of 5 (9 chunks: 25 tiles against 19);
      // now 11, 8, 6, ..., 1.
      int64_t chunk = (j.n - begin) / j.shares;
      int64_t end = begin + (chunk > 1 ? chunk : 1);
      if (!next.compare_exchange_weak(begin, end, std::memory_order_relaxed))
        continue; // begin now holds the current counter
      j.fn(j.ctx, begin, end);
      begin = next.load(std::memory_order_relaxed);
    }
    insideTask = false;
  }

  void loop(uint64_t seen) {
    for (;;) {
      auto changed = [&] {
        return generation.load(std::memory_order_acquire) != seen;
      };
      if (!spinUntil(changed)) {
        std::unique_lock<std::mutex> lock(mutex);
        sleepers.fetch_add(1, std::memory_order_acq_rel);
        wake.wait(lock, changed);
        sleepers.fetch_sub(1, std::memory_order_acq_rel);
      }
      seen = generation.load(std::memory_order_acquire);
      if (stopping.load(std::memory_order_relaxed))
        return;
      work(job);
      if (pending.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lock(mutex);
        done.notify_one();
      }
    }
  }

  std::mutex callMutex; ///< One parallel_for at a time.
  std::mutex mutex;     ///< Guards the sleeps (wake, done).
  std::condition_variable wake, done;
  std::vector<std::thread> workers;
  Job job;
  std::atomic<int64_t> next{0};
  std::atomic<int32_t> pending{0};
  std::atomic<int32_t> sleepers{0};
  std::atomic<uint64_t> generation{0};
  std::atomic<bool> stopping{false};
};

Pool &pool() {
  static Pool *p = new Pool(defaultThreadCount()); // Never destroyed: tasks
  return *p; // may still run from other static destructors at exit.
}

} // namespace

extern "C" void octet_parallel_for(int64_t n,
                                   void (*fn)(void *, int64_t, int64_t),
                                   void *ctx) {
  if (n <= 0)
    return;
  if (n == 1 || insideTask || pool().size() == 1) {
    fn(ctx, 0, n);
    return;
  }
  pool().run(n, fn, ctx);
}

extern "C" int32_t octet_get_num_threads(void) { return pool().size(); }

extern "C" void octet_set_num_threads(int32_t threads) {
  if (threads < 1)
    threads = defaultThreadCount();
  if (threads != pool().size())
    pool().resize(threads);
}

extern "C" void *octet_cpu_scratch(int32_t slot, int64_t bytes) {
  struct Buffer {
    void *data = nullptr;
    int64_t size = 0;
  };
  struct Buffers {
    Buffer slots[4];
    ~Buffers() {
      for (Buffer &b : slots)
        std::free(b.data);
    }
  };
  thread_local Buffers buffers;
  if (slot < 0 || slot >= 4 || bytes < 0)
    return nullptr;
  Buffer &b = buffers.slots[slot];
  if (b.size < bytes) {
    std::free(b.data);
    int64_t size = (bytes + 4095) / 4096 * 4096;
    b.data = std::aligned_alloc(64, static_cast<size_t>(size));
    b.size = b.data ? size : 0;
  }
  return b.data;
}
