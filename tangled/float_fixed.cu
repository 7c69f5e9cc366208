// float_fixed.cu: a float sum with atomics against one in a fixed order: their times, and how their results vary
// runs: 3   (the results vary from run to run, and the times are medians with their fastest and slowest launches)
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

// Stop at the first failing CUDA call and say which one it was: an error left
// unchecked shows up much later as a wrong result, far from its cause.
#define CHECK(call)                                                        \
  do {                                                                     \
    cudaError_t check_status_ = (call);                                    \
    if (check_status_ != cudaSuccess) {                                    \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, \
              cudaGetErrorString(check_status_));                          \
      exit(1);                                                             \
    }                                                                      \
  } while (0)
#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <functional>
#include <set>
#include <vector>

const int THREADS = 256;         // threads per block, for every kernel of the chapter
// A fixed, well-mixed function of the index: "random" data that is the same
// in every run (the finalizer of MurmurHash3), on the CPU or on the GPU.
__host__ __device__ static unsigned scramble(unsigned k) {
  k ^= k >> 16;
  k *= 0x85ebca6bu;
  k ^= k >> 13;
  k *= 0xc2b2ae35u;
  k ^= k >> 16;
  return k;
}
const int TIMED_LAUNCHES = 21;   // an odd count, so that the median is one of them

// Keeps the GPU busy for ns nanoseconds. Launched before each timed launch,
// it lets the host enqueue the reset, the events and the launch before the
// GPU reaches them, so that the first event is not stamped while the GPU
// still waits for the host to send the launch.
__global__ void hold_gpu(unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  while (now - start < ns);
}

// A timing, in milliseconds: the median of the timed launches, and the
// fastest and the slowest of them. Where only the median matters, it stands
// for its median.
struct Timing {
  float ms, fastest, slowest;
  operator float() const { return ms; }
};
// How the programs print a timing, "0.0753 ms (0.0741 to 0.0770)": make run
// reads the numbers in the brackets as the range of the one before them.
// printf("%s\n", timed(t).text): the text lives until the end of the statement.
struct TimedText {
  char text[64];
};
static TimedText timed(Timing t) {
  TimedText s;
  snprintf(s.text, sizeof s.text, "%.4f ms (%.4f to %.4f)", t.ms, t.fastest, t.slowest);
  return s;
}

// The GPU time of TIMED_LAUNCHES launches after one warm-up: their median,
// fastest and slowest. reset() runs before every launch, outside the timed
// span, so that each launch finds its output in the same state. Both must
// only enqueue work (no call that waits for the GPU), or the hold is lost.
// hold = false leaves out the hold: the experiment that shows what it is for.
template <typename Reset, typename Launch>
static Timing time_ms(Reset reset, Launch launch, bool hold = true) {
  cudaEvent_t begin, end;
  CHECK(cudaEventCreate(&begin));
  CHECK(cudaEventCreate(&end));
  reset();
  launch();                                  // warm-up: loads the module, caches what fits
  std::vector<float> ms(TIMED_LAUNCHES);
  for (float &t : ms) {
    if (hold) {
      hold_gpu<<<1, 1>>>(200000);            // 0.2 ms, far longer than enqueuing the rest takes
      CHECK(cudaGetLastError());
    }
    reset();
    CHECK(cudaEventRecord(begin));
    launch();
    CHECK(cudaEventRecord(end));
    CHECK(cudaEventSynchronize(end));        // wait until the GPU has passed the second event
    CHECK(cudaEventElapsedTime(&t, begin, end));
  }
  CHECK(cudaEventDestroy(begin));
  CHECK(cudaEventDestroy(end));
  std::sort(ms.begin(), ms.end());
  return {ms[TIMED_LAUNCHES / 2], ms.front(), ms.back()};
}
// Sum the THREADS values of a block, one per thread, as a tree in shared
// memory partial[0 .. THREADS): at each step the lower half of the active
// threads adds in the upper half. Every thread of the block must call it with
// its own value. BARRIER = false leaves out the barrier between steps: a
// deliberate bug.
template <typename T, bool BARRIER = true>
__device__ T block_sum(T *partial, T mine) {
  // Before the store: more threads would write past the end, or two rows share one slot.
  assert(blockDim.x == THREADS && blockDim.y == 1 && blockDim.z == 1);
  const int t = threadIdx.x;
  partial[t] = mine;
  __syncthreads();                       // all values stored before any is read
  for (int half = THREADS / 2; half > 0; half /= 2) {
    if (t < half) partial[t] += partial[t + half];
    if constexpr (BARRIER) __syncthreads();   // this step done before the next reads it
  }
  return partial[0];
}
// As many blocks of kernel k, at THREADS threads each (or threads, with
// shared_bytes of shared memory allocated at launch), as the GPU holds at once.
template <typename Kernel>
static int full_grid(Kernel k, int threads = THREADS, size_t shared_bytes = 0) {
  int device = 0, sms = 0, per_sm = 0;
  CHECK(cudaGetDevice(&device));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, threads, shared_bytes));
  return per_sm * sms;
}

// The registers that each thread of kernel k needs, one of the limits on how
// many blocks a multiprocessor holds.
template <typename Kernel>
static int registers(Kernel k) {
  cudaFuncAttributes a;
  CHECK(cudaFuncGetAttributes(&a, k));
  return a.numRegs;
}
// Pass 1 of both float sums: each thread adds its grid-stride share in a
// fixed order, the block's tree adds the threads' sums. ATOMIC: thread 0 adds
// the block's sum into the total with an atomic, in whatever order the blocks
// arrive. Otherwise it stores it in the block's own slot, for pass 2.
template <bool ATOMIC>
__global__ void float_pass1(const float *__restrict__ x, size_t n, float *out) {
  __shared__ float partial[THREADS];
  float mine = 0.0f;
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) mine += x[i];
  const float sum = block_sum<float>(partial, mine);
  if (threadIdx.x == 0) {
    if constexpr (ATOMIC) atomicAdd(out, sum);
    else out[blockIdx.x] = sum;
  }
}

// Pass 2: one block adds the blocks' slots, each thread a fixed set of them in
// a fixed order, then the tree. Nothing in either pass depends on timing.
__global__ void float_pass2(const float *partials, int blocks, float *total) {
  __shared__ float partial[THREADS];
  float s = 0.0f;
  for (int b = threadIdx.x; b < blocks; b += THREADS) s += partials[b];
  const float sum = block_sum<float>(partial, s);
  if (threadIdx.x == 0) *total = sum;
}

int main() {
  // 64M floats, 256 MiB, of four magnitudes from 0.001 to 1000, mixed.
  const size_t n = (size_t)64 << 20;
  const float scale[] = {1e-3f, 1e-1f, 1e1f, 1e3f};
  std::vector<float> x(n);
  double exact = 0;
  for (size_t k = 0; k < n; k++) {
    const unsigned h = scramble((unsigned)k);
    x[k] = (float)(h % 1000) * scale[h >> 30];
    exact += x[k];
  }
  float *d_x, *d_partials, *d_total;
  const int grid = full_grid(float_pass1<false>);
  CHECK(cudaMalloc(&d_x, n * sizeof(float)));
  CHECK(cudaMalloc(&d_partials, grid * sizeof(float)));
  CHECK(cudaMalloc(&d_total, sizeof(float)));
  CHECK(cudaMemcpy(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  auto reset = [&] { CHECK(cudaMemsetAsync(d_total, 0, sizeof(float))); };
  auto atomic = [&] {
    float_pass1<true><<<grid, THREADS>>>(d_x, n, d_total);
    CHECK(cudaGetLastError());
  };
  auto fixed = [&] {
    float_pass1<false><<<grid, THREADS>>>(d_x, n, d_partials);
    CHECK(cudaGetLastError());
    float_pass2<<<1, THREADS>>>(d_partials, grid, d_total);
    CHECK(cudaGetLastError());
  };
  // Each way's time, then its results over TIMED_LAUNCHES launches: how many
  // different ones (by their bits), and how far the furthest is from the
  // double sum.
  bool ok = true;
  const std::pair<const char *, std::function<void()>> ways[] = {{"one atomic per block", atomic},
                                                                 {"two fixed-order passes", fixed}};
  size_t distinct[2];
  for (int w = 0; w < 2; w++) {
    const char *label = ways[w].first;
    printf("%s: %s\n", label, timed(time_ms(reset, ways[w].second)).text);
    std::set<unsigned> bits;
    double worst = 0;
    for (int r = 0; r < TIMED_LAUNCHES; r++) {
      reset();
      ways[w].second();
      float total;
      CHECK(cudaMemcpy(&total, d_total, sizeof total, cudaMemcpyDeviceToHost));
      unsigned b;
      memcpy(&b, &total, sizeof b);
      bits.insert(b);
      worst = std::max(worst, std::fabs(total - exact) / exact);
    }
    distinct[w] = bits.size();
    printf("%s, different results in %d launches: %zu\n", label, TIMED_LAUNCHES, distinct[w]);
    printf("%s, largest relative difference from the double sum: %.1e\n", label, worst);
    ok = ok && worst < 1e-5;   // float's own precision is about 6e-8 per addition
  }
  printf("double sum on the CPU: %.1f\n", exact);
  CHECK(cudaFree(d_x));
  CHECK(cudaFree(d_partials));
  CHECK(cudaFree(d_total));
  ok = ok && distinct[1] == 1;
  puts(ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
