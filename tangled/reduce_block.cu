// reduce_block.cu: sum 16M digits with a shared-memory tree per block, one atomicAdd per block
// runs: 1   (each time is the median of its launches, printed with the fastest and the slowest)
#include <algorithm>
#include <cassert>
#include <cstring>
#include <initializer_list>
#include <vector>
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

const int N = 1 << 24;
const int THREADS = 256;
const int BLOCKS = N / THREADS;   // one thread per element (N is a multiple of THREADS)
const int WARP = 32;
const int MOST_SUMS = N / WARP;   // the most sums a variant leaves: one per warp
const unsigned DIGITS = 10;       // the elements are the digits 0 to 9

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

// How a block or a warp sends its sum. Send::atomic, the kernel as written:
// into the one total, with an atomic whose result is not used. The other two
// are experiments. Send::atomic_waits: the same atomic, but its result is
// compared, so the thread must wait for the old value to come back.
// Send::store: no atomic at all, a plain store into a slot of its own.
enum class Send { atomic, atomic_waits, store };

template <Send HOW>
__device__ void send_sum(unsigned long long *out, int slot, unsigned long long sum) {
  if constexpr (HOW == Send::atomic) {
    atomicAdd(out, sum);
  } else if constexpr (HOW == Send::atomic_waits) {
    if (atomicAdd(out, sum) == ~0ull) out[1] = 0;   // never true, but it needs the old value
  } else {
    out[slot] = sum;
  }
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

template <bool BARRIER, Send HOW>
__global__ void reduce_block(const unsigned *x, unsigned long long *out, int n) {
  __shared__ unsigned partial[THREADS];
  const int idx = blockIdx.x * THREADS + threadIdx.x;
  const unsigned sum = block_sum<unsigned, BARRIER>(partial, idx < n ? x[idx] : 0u);
  if (threadIdx.x == 0) send_sum<HOW>(out, blockIdx.x, sum);   // one per block
}

template <bool BARRIER, Send HOW>
static void launch_block(const unsigned *d_x, unsigned long long *d_out) {
  reduce_block<BARRIER, HOW><<<BLOCKS, THREADS>>>(d_x, d_out, N);
  CHECK(cudaGetLastError());
}

// The experiment that separates the loads from the tree: each thread loads
// its element as reduce_block does, and neither the tree nor an update
// follows. No digit passes the test, which keeps the compiler from dropping
// the load.
__global__ void loads_only(const unsigned *x, unsigned long long *out, int n) {
  const int idx = blockIdx.x * THREADS + threadIdx.x;
  const unsigned v = idx < n ? x[idx] : 0u;
  if (v == ~0u) out[blockIdx.x] = v;
}

static void launch_loads(const unsigned *d_x, unsigned long long *d_out) {
  loads_only<<<BLOCKS, THREADS>>>(d_x, d_out, N);
  CHECK(cudaGetLastError());
}

// Make the first n of the N digits, copy them to the GPU, and return their sum
// computed on the CPU.
static unsigned long long upload_digits(unsigned **d_x, int n = N) {
  std::vector<unsigned> x(n);
  unsigned long long sum = 0;
  for (int k = 0; k < n; k++) {
    x[k] = scramble(k) % DIGITS;
    sum += x[k];
  }
  CHECK(cudaMalloc(d_x, n * sizeof(unsigned)));
  CHECK(cudaMemcpy(*d_x, x.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
  return sum;
}

// One variant of the sum: its label, its launch, and how many sums it leaves
// in the output: 1 (the total), or one per block or per warp when it stores
// them instead of adding them up with atomics; the CPU adds those. 0: it sums
// nothing (an experiment that only loads), and there is no sum to check.
struct Reduction {
  const char *label;
  void (*launch)(const unsigned *, unsigned long long *);
  int sums;
};

// Time each variant (the median of TIMED_LAUNCHES launches after a warm-up),
// check its sum, print its time and the bandwidth at which it read the input,
// and return the exit status. The whole output, MOST_SUMS slots, is cleared
// before every launch of every variant, so each launch starts from the same
// state.
static int run_reductions(std::initializer_list<Reduction> variants) {
  unsigned *d_x;
  const unsigned long long expected = upload_digits(&d_x);
  unsigned long long *d_out;
  const size_t out_bytes = MOST_SUMS * sizeof(unsigned long long);
  CHECK(cudaMalloc(&d_out, out_bytes));

  bool ok = true;
  for (const Reduction &r : variants) {
    const Timing t = time_ms([&] { CHECK(cudaMemset(d_out, 0, out_bytes)); },
                             [&] { r.launch(d_x, d_out); });
    std::vector<unsigned long long> sums(r.sums);
    CHECK(cudaMemcpy(sums.data(), d_out, r.sums * sizeof(unsigned long long),
                     cudaMemcpyDeviceToHost));
    unsigned long long total = 0;
    for (unsigned long long s : sums) total += s;
    const double bytes = N * sizeof(unsigned);   // read once; the GB/s of the slowest launch first
    printf("%s: %s\n", r.label, timed(t).text);
    printf("%s, bandwidth: %.0f GB/s (%.0f to %.0f)\n", r.label, bytes / (t.ms * 1e6),
           bytes / (t.slowest * 1e6), bytes / (t.fastest * 1e6));
    if (r.sums > 0 && total != expected) {
      fprintf(stderr, "%s: GPU sum %llu, CPU sum %llu\n", r.label, total, expected);
      ok = false;
    }
  }
  CHECK(cudaFree(d_x));
  CHECK(cudaFree(d_out));
  printf("CPU sum: %llu\n", expected);
  puts(ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}

// One launch of the tree with one atomic per block, for the sanitizer, which
// makes each launch slow, on the first ONCE digits. BARRIER = false is the
// missing-barrier demonstration: a wrong sum is its expected outcome, so it
// prints both sums and no verdict.
const int ONCE = N / 256;   // 256 blocks
template <bool BARRIER>
static int run_once() {
  unsigned *d_x;
  const unsigned long long expected = upload_digits(&d_x, ONCE);
  unsigned long long *d_total;
  CHECK(cudaMalloc(&d_total, sizeof(unsigned long long)));
  CHECK(cudaMemset(d_total, 0, sizeof(unsigned long long)));
  reduce_block<BARRIER, Send::atomic><<<ONCE / THREADS, THREADS>>>(d_x, d_total, ONCE);
  CHECK(cudaGetLastError());
  unsigned long long total = 0;
  CHECK(cudaMemcpy(&total, d_total, sizeof(total), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_x));
  CHECK(cudaFree(d_total));

  printf("GPU sum %llu, CPU sum %llu\n", total, expected);
  printf("difference: %lld\n", (long long)(total - expected));
  if (!BARRIER) {
    puts("NOT CHECKED: without the barrier the tree is a race");
    return 0;
  }
  puts(total == expected ? "PASS" : "FAIL");
  return total == expected ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--once") == 0) return run_once<true>();
  if (argc == 2 && strcmp(argv[1], "--no-barrier") == 0) return run_once<false>();
  if (argc != 1) {
    fprintf(stderr, "usage: %s [--once | --no-barrier]\n", argv[0]);
    return 2;
  }
  return run_reductions({{"one atomic per block", launch_block<true, Send::atomic>, 1},
                         {"one atomic per block, its result used",
                          launch_block<true, Send::atomic_waits>, 1},
                         {"block sums stored, no atomic", launch_block<true, Send::store>, BLOCKS},
                         {"the loads alone, no tree, no atomic", launch_loads, 0}});
}
