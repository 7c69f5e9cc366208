// reduce_memory.cu: the sum of chapter 1 at the speed of memory, step by step, against CUB, at 16 MiB to 1 GiB
// runs: 1   (each time is the median of its launches, printed with the fastest and the slowest)
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
#include <climits>
#include <cstring>
#include <string>
#include <thread>
#include <vector>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cub/cub.cuh>

const int THREADS = 256;         // threads per block, for every kernel of the chapter
const int WARP = 32;
const int WARPS = THREADS / WARP;
const unsigned DIGITS = 10;      // the elements are the digits 0 to 9, as in chapter 1
// The input sizes, in MiB of 4-byte elements: one that an L2 of more than
// 16 MiB holds, chapter 1's, and two at least twice today's L2s.
const int SIZES_MIB[] = {16, 64, 256, 1024};
const int SIZES = sizeof SIZES_MIB / sizeof *SIZES_MIB;
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
// x[k] = make(k) for every k < n, by a grid-stride loop: the GPU makes an input
// of any size in a few milliseconds.
template <typename T, typename Make>
__global__ void make_input(T *x, size_t n, Make make) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n; k += stride) x[k] = make(k);
}

template <typename T, typename Make>
static void launch_make_input(T *d_x, size_t n, Make make) {
  make_input<<<1024, 256>>>(d_x, n, make);
  CHECK(cudaGetLastError());
}

static unsigned cpu_cores() { return std::max(1u, std::thread::hardware_concurrency()); }

// Runs part(first, last, slice) on one slice of [0, n) for each of the
// cpu_cores(), all at once, slice numbering them from 0.
template <typename Part>
static void on_every_core(size_t n, Part part) {
  const unsigned cores = cpu_cores();
  std::vector<std::thread> threads;
  for (unsigned c = 0; c < cores; c++) threads.emplace_back(part, n * c / cores, n * (c + 1) / cores, c);
  for (std::thread &t : threads) t.join();
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
static void launch_baseline(const unsigned *x, size_t n, unsigned long long *out) {
  assert(n <= (size_t)INT_MAX);   // chapter 1's kernel counts its elements in an int
  reduce_block<true, Send::atomic><<<(unsigned)((n + THREADS - 1) / THREADS), THREADS>>>(x, out, (int)n);
  CHECK(cudaGetLastError());
}
// Each thread adds every stride-th element into a register, then the block's
// tree of chapter 1 adds the threads' sums, and one atomic sends the block's.
__global__ void reduce_stride(const unsigned *__restrict__ x, size_t n, unsigned long long *out) {
  __shared__ unsigned partial[THREADS];
  unsigned mine = 0;
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) mine += x[i];
  const unsigned sum = block_sum<unsigned>(partial, mine);
  if (threadIdx.x == 0) atomicAdd(out, (unsigned long long)sum);
}
// How a warp adds its 32 values: with five shuffles, with the one instruction
// of compute capability 8.0 on (a build for an older GPU, such as nvcc's
// default one, uses the shuffles instead), or with the cooperative groups library.
enum class WarpAdd { shuffle, redux, groups };

template <WarpAdd HOW, typename T = unsigned>
__device__ T warp_sum(T v) {
  if constexpr (HOW == WarpAdd::shuffle) {
    for (int offset = WARP / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;   // lane 0 holds the sum
  } else if constexpr (HOW == WarpAdd::redux) {
#if __CUDA_ARCH__ >= 800
    return __reduce_add_sync(0xffffffffu, v);   // every lane holds the sum
#else
    return warp_sum<WarpAdd::shuffle, T>(v);    // built for an older GPU: no such instruction
#endif
  } else {
    namespace cg = cooperative_groups;
    return cg::reduce(cg::tiled_partition<WARP>(cg::this_thread_block()), v, cg::plus<T>());
  }
}

// A block's sum of values of type T, in thread 0: each warp adds its lanes,
// lane 0 of each warp stores one value in shared memory, one barrier, and the
// first warp adds those. It needs blocks of THREADS threads in one dimension
// (WARPS slots), which it checks, and a block's sum that fits in T: the sums
// of the chapter are 32-bit up to a block's, and only the total is 64-bit.
template <WarpAdd HOW, typename T = unsigned>
__device__ T block_sum_by_warps(T mine) {
  assert(blockDim.x == THREADS && blockDim.y == 1 && blockDim.z == 1);
  __shared__ T warp_sums[WARPS];
  const int lane = threadIdx.x % WARP, warp = threadIdx.x / WARP;
  mine = warp_sum<HOW, T>(mine);
  if (lane == 0) warp_sums[warp] = mine;
  __syncthreads();
  return warp == 0 ? warp_sum<HOW, T>(lane < WARPS ? warp_sums[lane] : T(0)) : T(0);
}

// The block's sum sent into the total with one atomic.
template <WarpAdd HOW>
__device__ void send_block_sum(unsigned mine, unsigned long long *out) {
  const unsigned s = block_sum_by_warps<HOW>(mine);
  if (threadIdx.x == 0) atomicAdd(out, (unsigned long long)s);
}

// Chapter 1's baseline with this block sum: still one element per thread,
// but one barrier instead of nine. An experiment, not a step.
__global__ void reduce_one_each(const unsigned *x, size_t n, unsigned long long *out) {
  const size_t idx = blockIdx.x * (size_t)THREADS + threadIdx.x;
  send_block_sum<WarpAdd::shuffle>(idx < n ? x[idx] : 0u, out);
}
// One load of a V through the read-only path (__ldg), as CUB's loads go.
// HINT (16-byte loads, compute capability 8.0 on) also leaves it out of L1
// and asks the L2 to fetch the 256 bytes around it from memory at once
// (PTX's L2::256B); a build for compute capability below 8.0 leaves it out.
template <bool HINT, typename V>
__device__ V load(const V *p) {
#if __CUDA_ARCH__ >= 800
  if constexpr (HINT && sizeof(V) == 16) {
    uint4 v;
    asm("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
        : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
    return v;
  }
#endif
  return __ldg(p);
}
// The compute capability that the kernels were built for (__CUDA_ARCH__ / 10,
// so 90 for 9.0): a build for compute capability below 8.0 leaves out the
// hint and __reduce_add_sync.
__global__ void built_for(unsigned *arch) {
#ifdef __CUDA_ARCH__
  *arch = __CUDA_ARCH__ / 10;
#endif
}
__device__ unsigned add_up(unsigned v) { return v; }
__device__ unsigned add_up(uint4 v) { return v.x + v.y + v.z + v.w; }

// A thread's share of x's n elements. V is what one load brings: unsigned (4
// bytes) or uint4 (16 bytes). Each thread asks for IN_FLIGHT loads per
// iteration before it adds them, into as many accumulators, so that no
// addition waits for a load that it does not need (the machine code shows
// how many it issues before the first addition). HINT: loads with the L2
// hint of the read ceiling. Any start and length: the elements before x's
// first V-aligned address (a V load needs one) and after the last whole V are
// added one per thread. The sum is 32-bit: the caller checks that it fits.
template <typename V, int IN_FLIGHT, bool HINT>
__device__ unsigned thread_sum(const unsigned *__restrict__ x, size_t n) {
  constexpr int PER = sizeof(V) / sizeof(unsigned);
  const size_t skip = (sizeof(V) - reinterpret_cast<size_t>(x) % sizeof(V)) % sizeof(V) / sizeof(unsigned);
  const size_t head = skip < n ? skip : n;
  const V *xv = reinterpret_cast<const V *>(x + head);
  const size_t nv = (n - head) / PER, stride = (size_t)gridDim.x * blockDim.x;
  const size_t me = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  unsigned acc[IN_FLIGHT] = {};
  size_t i = me;
  for (; i + (IN_FLIGHT - 1) * stride < nv; i += IN_FLIGHT * stride) {
    V v[IN_FLIGHT];
#pragma unroll
    for (int u = 0; u < IN_FLIGHT; u++) v[u] = load<HINT>(&xv[i + u * stride]);
#pragma unroll
    for (int u = 0; u < IN_FLIGHT; u++) acc[u] += add_up(v[u]);
  }
  for (; i < nv; i += stride) acc[0] += add_up(xv[i]);   // fewer than IN_FLIGHT left
  if (me < head) acc[0] += x[me];                                   // the head: at most PER - 1 elements
  if (me < n - head - nv * PER) acc[0] += x[head + nv * PER + me];  // the tail: as many
  unsigned mine = 0;
#pragma unroll
  for (int u = 0; u < IN_FLIGHT; u++) mine += acc[u];
  return mine;
}

// The fast reduction: each thread's share, then the block's sum by warps,
// sent with one atomic.
template <typename V, int IN_FLIGHT, WarpAdd HOW, bool HINT = false>
__global__ void reduce_fast(const unsigned *__restrict__ x, size_t n, unsigned long long *out) {
  send_block_sum<HOW>(thread_sum<V, IN_FLIGHT, HINT>(x, n), out);
}
// The blocks' slots and the ticket counter of the one-launch sum. It needs a
// grid of at most MAX_SLOTS blocks, which it checks, and one launch at a
// time: two in flight at once would share them, and a launch that stops
// midway leaves the ticket counter wrong for the next.
const int MAX_SLOTS = 1 << 14;
__device__ unsigned long long slots[MAX_SLOTS];
__device__ unsigned tickets;

// The final reduction's loads, but each block stores its sum in its slot, and
// the last block to take a ticket adds every slot, in a fixed order, into *out.
template <typename V, int IN_FLIGHT>
__global__ void reduce_one_launch(const unsigned *__restrict__ x, size_t n, unsigned long long *out) {
  assert(gridDim.x <= MAX_SLOTS);
  __shared__ bool last;
  const unsigned s = block_sum_by_warps<WarpAdd::shuffle>(thread_sum<V, IN_FLIGHT, false>(x, n));
  if (threadIdx.x == 0) {
    slots[blockIdx.x] = s;
    __threadfence();                                          // the slot, then the ticket
    last = atomicInc(&tickets, gridDim.x - 1) == gridDim.x - 1;   // the last wraps it to 0
    __threadfence();                                          // the ticket, then the slots read
  }
  __syncthreads();
  if (!last) return;
  unsigned long long t = 0;                                   // each thread a fixed set, in order
  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) t += __ldcg(&slots[b]);
  t = block_sum_by_warps<WarpAdd::shuffle>(t);                // then the block's fixed tree
  if (threadIdx.x == 0) *out = t;
}
// CUB's device-wide sum, with its temporary storage allocated once, before
// any timing: the first call only asks how much it needs.
struct CubSum {
  void *temp = nullptr;
  size_t bytes = 0;
  void prepare(const unsigned *x, size_t n, unsigned long long *out) {
    CHECK(cub::DeviceReduce::Sum(nullptr, bytes, x, out, (long long)n));
    CHECK(cudaMalloc(&temp, bytes));
  }
  void launch(const unsigned *x, size_t n, unsigned long long *out) {
    CHECK(cub::DeviceReduce::Sum(temp, bytes, x, out, (long long)n));
  }
  ~CubSum() { if (temp) CHECK(cudaFree(temp)); }
};

// The same with a 32-bit total (and a 32-bit length): a 4-byte accumulator,
// with which CUB gives each thread more elements (the digits' total at 1 GiB
// stays below 2^32, which the caller checks).
struct CubSum32 {
  void *temp = nullptr;
  size_t bytes = 0;
  void prepare(const unsigned *x, size_t n, unsigned *out) {
    assert(n <= (size_t)INT_MAX);
    CHECK(cub::DeviceReduce::Sum(nullptr, bytes, x, out, (int)n));
    CHECK(cudaMalloc(&temp, bytes));
  }
  void launch(const unsigned *x, size_t n, unsigned *out) {
    CHECK(cub::DeviceReduce::Sum(temp, bytes, x, out, (int)n));
  }
  ~CubSum32() { if (temp) CHECK(cudaFree(temp)); }
};
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
// The ceiling: every 16 bytes of the input read once, by a grid that the GPU
// holds at once, each thread asking for IN_FLIGHT loads per iteration before
// it uses any (how many are under way at once, the compiler decides), and
// nothing done with the bytes but an exclusive-or. The store, which happens
// only when the exclusive-or of all a thread's words is all ones (never for
// the digits), keeps the compiler from dropping the loads.
template <int IN_FLIGHT, bool HINT = false>
__global__ void read_only(const uint4 *__restrict__ x, size_t n4, unsigned *sink) {
  unsigned acc = 0;
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  for (; i + (IN_FLIGHT - 1) * stride < n4; i += IN_FLIGHT * stride) {
    uint4 v[IN_FLIGHT];
#pragma unroll
    for (int u = 0; u < IN_FLIGHT; u++) v[u] = load<HINT>(&x[i + u * stride]);
#pragma unroll
    for (int u = 0; u < IN_FLIGHT; u++) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  for (; i < n4; i += stride) acc ^= x[i].x ^ x[i].y ^ x[i].z ^ x[i].w;
  if (acc == ~0u) *sink = acc;
}

// Prints a timing at mib MiB and the rate at which it moved bytes, each with
// its range over the launches (the slowest launch's rate first); returns the
// median's rate in GB/s.
static double print_rate(const char *label, int mib, double bytes, Timing t, const char *rate = "bandwidth") {
  printf("%s, %d MiB: %s\n", label, mib, timed(t).text);
  printf("%s, %d MiB, %s: %.0f GB/s (%.0f to %.0f)\n", label, mib, rate, bytes / (t.ms * 1e6),
         bytes / (t.slowest * 1e6), bytes / (t.fastest * 1e6));
  return bytes / (t.ms * 1e6);
}

// The read ceiling at n elements, in GB/s: the fastest of four read-only
// kernels, with 1 and with 8 loads in flight per thread, each without and
// with the L2 hint. Prints all four.
static double read_ceiling(const unsigned *d_x, size_t n, int mib, unsigned *d_sink) {
  double best = 0;
  auto one = [&](const char *label, auto kernel) {
    const int grid = full_grid(kernel);
    const Timing t = time_ms([] {}, [&] {
      kernel<<<grid, THREADS>>>(reinterpret_cast<const uint4 *>(d_x), n / 4, d_sink);
      CHECK(cudaGetLastError());
    });
    best = std::max(best, print_rate(label, mib, n * sizeof(unsigned), t));
  };
  one("read only", read_only<1>);
  one("read only, 8 in flight", read_only<8>);
  one("read only, L2::256B", read_only<1, true>);
  one("read only, 8 in flight, L2::256B", read_only<8, true>);
  printf("read ceiling, %d MiB: %.0f GB/s\n", mib, best);
  return best;
}
// One thread follows a chain through next[], from element 0, each element
// the index of the next, for `loads` loads that each wait for the one
// before; the last index goes to *end, so that the loads are kept.
__global__ void chase(const unsigned *next, unsigned loads, unsigned *end) {
  unsigned k = 0;
  for (unsigned s = 0; s < loads; s++) k = __ldcg(&next[k]);
  *end = k;
}

// The chain: element k holds k + CHAIN_STEP, modulo n. 4096 steps of
// 64 KiB + 128 bytes cross 256 MiB, each in a line of its own.
const unsigned CHAIN_LOADS = 4096;
const size_t CHAIN_STEP = (64 * 1024 + 128) / sizeof(unsigned);
struct Chain {
  size_t n;
  __host__ __device__ unsigned operator()(size_t k) const { return (unsigned)((k + CHAIN_STEP) % n); }
};
// Element k of the input: a digit of the scrambled index, the same on both sides.
struct Digit {
  __host__ __device__ unsigned operator()(size_t k) const { return scramble((unsigned)k) % DIGITS; }
};

// n digits made on the GPU, and their sum computed on the CPU.
static unsigned long long upload_digits(unsigned *d_x, size_t n) {
  launch_make_input(d_x, n, Digit());
  std::vector<unsigned long long> sums(cpu_cores(), 0);
  on_every_core(n, [&](size_t first, size_t last, unsigned c) {
    unsigned long long sum = 0;
    for (size_t k = first; k < last; k++) sum += Digit()(k);
    sums[c] = sum;
  });
  CHECK(cudaDeviceSynchronize());   // the GPU's input is made, or its error reported here
  unsigned long long sum = 0;
  for (unsigned long long s : sums) sum += s;
  return sum;
}
// One variant of the sum: its label, its launch (given the input, its length,
// the total and a grid), and its grid (0: one thread per element).
struct Variant {
  const char *label;
  void (*launch)(const unsigned *, size_t, unsigned long long *, int);
  int grid, regs;   // regs: registers per thread (0: not printed)
};

// A variant of the fast reduction, with a grid that the GPU holds at once.
template <typename V, int IN_FLIGHT, WarpAdd HOW, bool HINT = false>
static Variant fast(const char *label) {
  return {label,
          [](const unsigned *x, size_t n, unsigned long long *out, int grid) {
            reduce_fast<V, IN_FLIGHT, HOW, HINT><<<grid, THREADS>>>(x, n, out);
            CHECK(cudaGetLastError());
          },
          full_grid(reduce_fast<V, IN_FLIGHT, HOW, HINT>), registers(reduce_fast<V, IN_FLIGHT, HOW, HINT>)};
}

// The chapter's steps, in order, then the experiments that test them. The
// book's final reduction is FINAL.
static std::vector<Variant> steps() {
  return {{"baseline",
           [](const unsigned *x, size_t n, unsigned long long *out, int) { launch_baseline(x, n, out); }, 0},
          {"grid-stride loop and tree",
           [](const unsigned *x, size_t n, unsigned long long *out, int grid) {
             reduce_stride<<<grid, THREADS>>>(x, n, out);
             CHECK(cudaGetLastError());
           },
           full_grid(reduce_stride), registers(reduce_stride)},
          fast<unsigned, 1, WarpAdd::shuffle>("warp shuffles"),
          fast<uint4, 1, WarpAdd::shuffle>("vector loads"),
          fast<uint4, 2, WarpAdd::shuffle>("vector loads, 2 in flight"),
          fast<uint4, 4, WarpAdd::shuffle>("vector loads, 4 in flight"),
          fast<uint4, 8, WarpAdd::shuffle>("vector loads, 8 in flight"),
          fast<uint4, 4, WarpAdd::redux>("warp sum by __reduce_add_sync"),
          fast<uint4, 4, WarpAdd::groups>("warp sum by cooperative_groups::reduce"),
          {"one element per thread, warp shuffles",
           [](const unsigned *x, size_t n, unsigned long long *out, int) {
             reduce_one_each<<<(unsigned)((n + THREADS - 1) / THREADS), THREADS>>>(x, n, out);
             CHECK(cudaGetLastError());
           }, 0},
          fast<unsigned, 4, WarpAdd::shuffle>("4-byte loads, 4 in flight"),
          fast<uint4, 4, WarpAdd::shuffle, true>("vector loads, 4 in flight, L2::256B"),
          {"one launch, the last block adds",
           [](const unsigned *x, size_t n, unsigned long long *out, int grid) {
             reduce_one_launch<uint4, 4><<<grid, THREADS>>>(x, n, out);
             CHECK(cudaGetLastError());
           },
           full_grid(reduce_one_launch<uint4, 4>), registers(reduce_one_launch<uint4, 4>)}};
}
const int FINAL = 5;        // "vector loads, 4 in flight": the book's final reduction
const int ONE_VECTOR = 3;   // "vector loads": one 16-byte load in flight
const int ONE_LAUNCH = 12;  // "one launch, the last block adds"
// Times launch (after reset) at n elements, checks its total (of type Total,
// 64 or 32 bits), and prints its time and bandwidth; returns the bandwidth in
// GB/s, or -1 when the total is wrong.
template <typename Total, typename Reset, typename Launch>
static double measure(const char *label, int mib, size_t n, unsigned long long expected, Total *d_out, Reset reset,
                      Launch launch) {
  const double rate = print_rate(label, mib, n * sizeof(unsigned), time_ms(reset, launch));
  Total total = 0;
  CHECK(cudaMemcpy(&total, d_out, sizeof total, cudaMemcpyDeviceToHost));
  if (total == expected) return rate;
  fprintf(stderr, "%s, %d MiB: GPU sum %llu, CPU sum %llu\n", label, mib, (unsigned long long)total, expected);
  return -1;
}

int main(int argc, char **argv) {
  // --profile baseline|final|cub [MIB]: one launch of that sum at MIB (one of
  // SIZES_MIB; 1024 when left out), checked, for Nsight Compute.
  const char *profile = argc >= 3 && argc <= 4 && !strcmp(argv[1], "--profile") ? argv[2] : nullptr;
  const int profile_mib = argc == 4 ? atoi(argv[3]) : SIZES_MIB[SIZES - 1];
  if (argc != 1 && !(profile && (!strcmp(profile, "baseline") || !strcmp(profile, "final") ||
                                 !strcmp(profile, "cub")) &&
                     std::count(SIZES_MIB, SIZES_MIB + SIZES, profile_mib) == 1)) {
    fprintf(stderr, "usage: %s [--profile baseline|final|cub [16|64|256|1024]]\n", argv[0]);
    return 2;
  }
  const size_t most = (size_t)SIZES_MIB[SIZES - 1] << 20;
  unsigned *d_x, *d_copy, *d_sink;
  unsigned long long *d_out;
  CHECK(cudaMalloc(&d_x, most));
  CHECK(cudaMalloc(&d_copy, most));
  CHECK(cudaMalloc(&d_sink, sizeof(unsigned)));
  CHECK(cudaMalloc(&d_out, sizeof(unsigned long long)));
  const std::vector<Variant> variants = steps();
  auto reset = [&] { CHECK(cudaMemsetAsync(d_out, 0, sizeof *d_out)); };

  if (profile) {
    const size_t n = ((size_t)profile_mib << 20) / sizeof(unsigned);
    const unsigned long long expected = upload_digits(d_x, n);
    const Variant &v = variants[strcmp(profile, "final") ? 0 : FINAL];
    CubSum cub;
    cub.prepare(d_x, n, d_out);
    reset();
    if (strcmp(profile, "cub")) v.launch(d_x, n, d_out, v.grid);
    else cub.launch(d_x, n, d_out);
    unsigned long long total = 0;
    CHECK(cudaMemcpy(&total, d_out, sizeof total, cudaMemcpyDeviceToHost));
    printf("%s: GPU sum %llu, CPU sum %llu\n", profile, total, expected);
    puts(total == expected ? "PASS" : "FAIL");
    return total == expected ? 0 : 1;
  }

  bool ok = true;
  unsigned arch = 0;
  built_for<<<1, 1>>>(d_sink);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(&arch, d_sink, sizeof arch, cudaMemcpyDeviceToHost));
  printf("kernels built for compute capability: %.1f\n", arch / 10.0);
  for (const Variant &v : variants) {
    if (v.grid == 0) continue;
    printf("%s, blocks in the grid: %d\n", v.label, v.grid);
    printf("%s, registers per thread: %d\n", v.label, v.regs);
    // A block's sum stays 32-bit: at the largest size, its digits (9 at most) must fit.
    const double block_max = 9.0 * ((double)most / sizeof(unsigned) / v.grid + 2.0 * 4 * THREADS);
    if (block_max >= 4294967296.0) fprintf(stderr, "%s: a block's sum could pass 2^32\n", v.label), ok = false;
  }
  // Every variant on an input that starts 4 bytes past a 16-byte boundary and
  // whose length leaves 3 elements before the first boundary and 2 after the
  // last whole 16 bytes, so that heads and tails run, and long enough that the
  // loops with 8 loads in flight run too (checked, not timed).
  {
    const size_t n = (1u << 24) + 5;
    const unsigned long long all = upload_digits(d_x, n + 1);
    unsigned first = 0;
    CHECK(cudaMemcpy(&first, d_x, sizeof first, cudaMemcpyDeviceToHost));
    int right = 0;
    for (const Variant &v : variants) {
      reset();
      v.launch(d_x + 1, n, d_out, v.grid);
      unsigned long long total = 0;
      CHECK(cudaMemcpy(&total, d_out, sizeof total, cudaMemcpyDeviceToHost));
      if (total == all - first) right++;
      else fprintf(stderr, "%s, %zu elements from x + 1: GPU sum %llu, CPU sum %llu\n", v.label, n, total, all - first);
    }
    printf("misaligned input, elements: %zu\n", n);
    printf("variants: %zu\nvariants right on a misaligned, odd-length input: %d\n", variants.size(), right);
    ok = ok && right == (int)variants.size();
  }
  // The latency of one load from memory: CHAIN_LOADS loads one after another,
  // after reading 256 MiB of other data (the last 256 MiB of x) so that no
  // cache holds the chain; the chain's end is checked.
  const size_t flush_n = ((size_t)256 << 20) / sizeof(unsigned);
  const int flush_grid = full_grid(read_only<8>);
  auto flush = [&] {
    read_only<8><<<flush_grid, THREADS>>>(reinterpret_cast<const uint4 *>(d_x + most / sizeof(unsigned) - flush_n),
                                                         flush_n / 4, d_sink);
    CHECK(cudaGetLastError());
  };
  const size_t chain_n = most / sizeof(unsigned);
  launch_make_input(d_copy, chain_n, Chain{chain_n});
  const Timing chain = time_ms(flush, [&] {
    chase<<<1, 1>>>(d_copy, CHAIN_LOADS, d_sink);
    CHECK(cudaGetLastError());
  });
  unsigned end = 0;
  CHECK(cudaMemcpy(&end, d_sink, sizeof end, cudaMemcpyDeviceToHost));
  if (end != (unsigned)(CHAIN_LOADS * CHAIN_STEP % chain_n)) fprintf(stderr, "chase: ended at %u\n", end), ok = false;
  const double latency_ns = chain.ms * 1e6 / CHAIN_LOADS;
  printf("latency of a load from memory, one at a time: %.0f ns\n", latency_ns);
  // What a launch of the read ceiling's grid costs with nothing to read.
  const Timing empty = time_ms([] {}, [&] {
    read_only<8><<<flush_grid, THREADS>>>(reinterpret_cast<const uint4 *>(d_x), 0, d_sink);
    CHECK(cudaGetLastError());
  });
  printf("read only, 8 in flight, nothing to read: %s\n", timed(empty).text);
  double over_cub[SIZES] = {}, of_ceiling[SIZES] = {}, ceiling = 0;
  std::vector<double> rates(variants.size());   // each variant's bandwidth at the last size
  for (int s = 0; s < SIZES; s++) {
    const int mib = SIZES_MIB[s];
    const size_t n = ((size_t)mib << 20) / sizeof(unsigned);
    const unsigned long long expected = upload_digits(d_x, n);

    // The ceiling, and a copy for comparison (it moves each byte twice).
    ceiling = read_ceiling(d_x, n, mib, d_sink);
    const Timing copy = time_ms([] {}, [&] {
      CHECK(cudaMemcpyAsync(d_copy, d_x, n * sizeof(unsigned), cudaMemcpyDeviceToDevice));
    });
    print_rate("copy", mib, 2.0 * n * sizeof(unsigned), copy, "bandwidth, read and written");

    CubSum cub_sum;
    cub_sum.prepare(d_x, n, d_out);
    const double cub = measure("CUB", mib, n, expected, d_out, reset, [&] { cub_sum.launch(d_x, n, d_out); });
    ok = ok && cub > 0;
    printf("CUB, %d MiB, of the read ceiling: %.2f\n", mib, cub / ceiling);
    CubSum32 cub32;
    cub32.prepare(d_x, n, d_sink);
    const double cub32_rate = measure("CUB, 32-bit total", mib, n, expected, d_sink, [] {}, [&] { cub32.launch(d_x, n, d_sink); });
    ok = ok && cub32_rate > 0;
    printf("CUB, 32-bit total, %d MiB, speedup over CUB: %.2f\n", mib, cub32_rate / cub);
    for (size_t k = 0; k < variants.size(); k++) {
      const Variant &v = variants[k];
      const double rate = measure(v.label, mib, n, expected, d_out, reset, [&] { v.launch(d_x, n, d_out, v.grid); });
      ok = ok && rate > 0;
      rates[k] = rate;
      printf("%s, %d MiB, of the read ceiling: %.2f\n", v.label, mib, rate / ceiling);
      printf("%s, %d MiB, speedup over CUB: %.2f\n", v.label, mib, rate / cub);   // same bytes, so CUB's time / its own
      if ((int)k == FINAL) over_cub[s] = rate / cub, of_ceiling[s] = rate / ceiling;
      if ((int)k == FINAL) printf("%s, %d MiB, speedup over CUB with a 32-bit total: %.2f\n", v.label, mib, rate / cub32_rate);
    }
    // The final reduction once more, with the zeroing of its total inside the events.
    const Variant &f = variants[FINAL];
    const std::string zeroed = std::string(f.label) + ", zeroing timed";
    const double rate = measure(zeroed.c_str(), mib, n, expected, d_out, [] {}, [&] {
      reset();
      f.launch(d_x, n, d_out, f.grid);
    });
    ok = ok && rate > 0;
    printf("%s, %d MiB, speedup over CUB: %.2f\n", zeroed.c_str(), mib, rate / cub);
    // At the sizes that the L2 may hold, in part or whole, CUB, the final
    // reduction and the one-launch sum once more, with the L2 flushed before each
    // launch (256 MiB of other data read, outside the events).
    if (mib <= 64) {
      auto flushed = [&] { reset(); flush(); };
      const double cub_f = measure("CUB, L2 flushed", mib, n, expected, d_out, flushed, [&] { cub_sum.launch(d_x, n, d_out); });
      ok = ok && cub_f > 0;
      for (int k : {FINAL, ONE_LAUNCH}) {
        const Variant &v = variants[k];
        const std::string label = std::string(v.label) + ", L2 flushed";
        const double rate = measure(label.c_str(), mib, n, expected, d_out, flushed, [&] { v.launch(d_x, n, d_out, v.grid); });
        ok = ok && rate > 0;
        printf("%s, %d MiB, speedup over CUB: %.2f\n", label.c_str(), mib, rate / cub_f);
      }
    }
  }
  // Little's law: what must be under way per multiprocessor to read at the
  // ceiling of the largest size, against what one 16-byte load per thread of
  // "vector loads" keeps under way, and the latency that this and its rate imply.
  {
    int device = 0, sms = 0;
    CHECK(cudaGetDevice(&device));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const double under_way = (double)variants[ONE_VECTOR].grid * THREADS * sizeof(uint4);   // bytes, in the whole GPU
    printf("Little's law, KiB under way per multiprocessor at the read ceiling, %d MiB: %.0f\n", SIZES_MIB[SIZES - 1],
           ceiling * latency_ns / sms / 1024);   // GB/s times ns is bytes
    printf("vector loads, KiB of loads under way per multiprocessor, one per thread: %.0f\n", under_way / sms / 1024);
    printf("vector loads, %d MiB, latency that its loads under way imply: %.0f ns\n", SIZES_MIB[SIZES - 1],
           under_way / rates[ONE_VECTOR]);   // bytes over GB/s is ns
  }
  for (int s = 0; s + 1 < SIZES; s++) printf("speedup over CUB at %d MiB: %.2f\n", SIZES_MIB[s], over_cub[s]);
  printf("speedup over CUB at 1 GiB: %.2f\n", over_cub[SIZES - 1]);
  printf("fraction of read ceiling at 1 GiB: %.2f\n", of_ceiling[SIZES - 1]);
  CHECK(cudaFree(d_x));
  CHECK(cudaFree(d_copy));
  CHECK(cudaFree(d_sink));
  CHECK(cudaFree(d_out));
  puts(ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
