// hist_memory.cu: histograms of 1 GiB of words and of bytes, in three shapes, step by step, against CUB
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
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>
#include <cub/cub.cuh>
#include <thrust/iterator/transform_iterator.h>

const int THREADS = 256;         // threads per block, for every kernel of the chapter
const int WARP = 32;
const int WARPS = THREADS / WARP;
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
const int BINS = 256;            // one bin per value of a byte, or per value % 256 of a word
const int SIZE_MIB = 1024;       // every input is 1 GiB
const int SMALL_MIB = 16;        // and its first 16 MiB, which an L2 larger than that keeps
enum class Shape { spread, one_bin, skewed };
const char *const SHAPE_NAMES[] = {"spread", "one bin", "skewed"};

// The skewed input's bins: bin b turns up with a probability proportional to
// 1 / (b + 1), a Zipf distribution. 16 bits of the scrambled index pick one of
// 65,536 table entries, of which bin b owns its share.
static std::vector<unsigned char> zipf_table() {
  double total = 0, below = 0;
  for (int b = 0; b < BINS; b++) total += 1.0 / (b + 1);
  std::vector<unsigned char> table(1 << 16);
  size_t e = 0;
  for (int b = 0; b < BINS; b++) {
    below += 1.0 / (b + 1) / total;
    const size_t end = b == BINS - 1 ? table.size() : (size_t)std::llround(below * table.size());
    for (; e < end; e++) table[e] = (unsigned char)b;
  }
  return table;
}

// The table in the memory of the CPU, or of the GPU.
static const unsigned char *zipf(bool on_gpu) {
  static const std::vector<unsigned char> table = zipf_table();
  static unsigned char *d_table = nullptr;
  if (on_gpu && !d_table) {
    CHECK(cudaMalloc(&d_table, table.size()));
    CHECK(cudaMemcpy(d_table, table.data(), table.size(), cudaMemcpyHostToDevice));
  }
  return on_gpu ? d_table : table.data();
}

// Sample k of an input of the given shape, on the side whose zipf table it
// holds. A word keeps all 32 bits of its value and is binned by value % 256; a
// byte is its own bin.
template <typename T>
struct Sample {
  Shape shape;
  const unsigned char *zipf;
  __host__ __device__ T operator()(size_t k) const {
    const unsigned h = scramble((unsigned)k);
    switch (shape) {
    case Shape::spread: return (T)h;
    case Shape::one_bin: return 0;   // as in the lesson: every value 0, all in bin 0
    default: return (T)((h & ~0xffu) | zipf[h >> 16]);
    }
  }
};

// n samples of that shape made on the GPU, and their histogram counted on the CPU.
template <typename T>
static std::vector<unsigned> upload_samples(T *d_x, size_t n, Shape shape) {
  launch_make_input(d_x, n, Sample<T>{shape, zipf(true)});
  std::vector<std::vector<unsigned>> part(cpu_cores(), std::vector<unsigned>(BINS, 0));
  const Sample<T> sample{shape, zipf(false)};
  on_every_core(n, [&](size_t first, size_t last, unsigned c) {
    for (size_t k = first; k < last; k++) part[c][sample(k) % BINS]++;
  });
  CHECK(cudaDeviceSynchronize());   // the GPU's input is made, or its error reported here
  std::vector<unsigned> bins(BINS, 0);
  for (const std::vector<unsigned> &p : part)
    for (int b = 0; b < BINS; b++) bins[b] += p[b];
  return bins;
}
// Chapter 1's shared-memory histogram, with the sample's type as a parameter
// and a 64-bit index: one histogram per block, one sample per load, merged
// into the global histogram with one atomic per bin that is not empty.
template <typename T>
__global__ void hist_block(const T *__restrict__ x, size_t n, unsigned *bins) {
  static_assert(std::is_unsigned<T>::value, "a signed sample's value % BINS may be negative");
  __shared__ unsigned local[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
  __syncthreads();
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n; k += stride)
    atomicAdd(&local[x[k] % BINS], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x)
    if (local[b] != 0) atomicAdd(&bins[b], local[b]);
}
// Where the lanes of a warp count, in shared memory:
//   warp:   one histogram of 32-bit counters per warp (1 KiB);
//   lane:   one per lane, 32-bit counters, lane l's counter of bin b in word
//           b * 32 + l of its warp's part, so in bank l (32 KiB per warp);
//   lane16: one per lane, 16-bit counters, two to a word: bins b and b + 128
//           share word (b % 128) * 32 + l (16 KiB per warp);
//   column: one per block, laid out as lane's: lane l of every warp counts in
//           column l, bank l, with atomics (32 KiB per block);
//   block:  one histogram of 32-bit counters per block, chapter 1's (1 KiB).
enum class Layout { warp, lane, lane16, column, block };

// The words of shared memory that a block of `warps` warps counts in.
template <Layout L>
__host__ __device__ constexpr int shared_words(int warps) {
  return L == Layout::warp ? warps * BINS : L == Layout::lane ? warps * BINS * WARP
       : L == Layout::lane16 ? warps * BINS / 2 * WARP : L == Layout::column ? BINS * WARP : BINS;
}

// Where this thread counts: its warp's histogram (warp), its lane's first
// counter in its warp's part (lane, lane16) or in the block's (column), or
// the block's histogram (block).
template <Layout L>
__device__ unsigned *my_counters(unsigned *shared) {
  const int lane = threadIdx.x % WARP, warp = threadIdx.x / WARP;
  return L == Layout::block ? shared : L == Layout::column ? shared + lane
       : shared + shared_words<L>(warp) + (L == Layout::warp ? 0 : lane);
}

// Adds c to bin b. mine points at a histogram (warp, block) or at the lane's
// first counter (lane, lane16, column).
template <Layout L>
__device__ void add(unsigned *mine, unsigned b, unsigned c) {
  if constexpr (L == Layout::warp || L == Layout::block) atomicAdd(&mine[b], c);
  else if constexpr (L != Layout::lane16) atomicAdd(&mine[b * WARP], c);
  else if constexpr (L == Layout::lane16) atomicAdd(&mine[b % (BINS / 2) * WARP], c << (b / (BINS / 2) * 16));
}

// The block's count of bin b: the sum of that bin's counters over every
// sub-histogram. Neighbouring threads take neighbouring bins; in the lane
// layouts they start at different lanes, so that a warp's 32 reads fall in 32
// different banks.
template <Layout L>
__device__ unsigned bin_total(const unsigned *shared, unsigned b, int warps) {
  unsigned s = 0;
  constexpr bool one = L == Layout::column || L == Layout::block;   // one sub-histogram per block
  for (int w = 0; w < (one ? 1 : warps); w++) {
    const unsigned *part = one ? shared : shared + shared_words<L>(w);
    if constexpr (L == Layout::warp || L == Layout::block) {
      s += part[b];
    } else {
      for (int c = 0; c < WARP; c++) {
        const int lane = (c + threadIdx.x) % WARP;
        if constexpr (L != Layout::lane16) s += part[b * WARP + lane];
        else s += part[b % (BINS / 2) * WARP + lane] >> (b / (BINS / 2) * 16) & 0xffffu;
      }
    }
  }
  return s;
}

// Adds the block's sub-histograms into the global histogram, one atomic per
// bin that is not empty. Every thread of the block calls it.
template <Layout L>
__device__ void merge(const unsigned *shared, unsigned *bins) {
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
    const unsigned s = bin_total<L>(shared, b, blockDim.x / WARP);
    if (s != 0) atomicAdd(&bins[b], s);
  }
}

// Zeroes the block's sub-histograms. Every thread of the block calls it.
template <Layout L>
__device__ void clear(unsigned *shared) {
  for (int k = threadIdx.x; k < shared_words<L>(blockDim.x / WARP); k += blockDim.x) shared[k] = 0;
  __syncthreads();
}
// One histogram per warp, one sample per load. MATCH: the lanes that hold
// the same bin find each other with __match_any_sync, and the first of them
// adds their number with one atomic. The loop runs the same number of times
// in every lane of a warp, so that the match sees the whole warp.
template <typename T, bool MATCH>
__global__ void hist_warp(const T *__restrict__ x, size_t n, unsigned *bins) {
  static_assert(std::is_unsigned<T>::value, "a signed sample's value % BINS may be negative");
  assert(blockDim.x == THREADS && blockDim.y == 1 && blockDim.z == 1);   // WARPS histograms
  __shared__ unsigned shared[WARPS * BINS];
  clear<Layout::warp>(shared);
  const int lane = threadIdx.x % WARP;
  unsigned *mine = my_counters<Layout::warp>(shared);
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t first = blockIdx.x * (size_t)blockDim.x + threadIdx.x - lane; first < n; first += stride) {
    const size_t k = first + lane;
    if constexpr (MATCH) {
      const unsigned active = __ballot_sync(0xffffffffu, k < n);
      if (k < n) {
        const unsigned b = x[k] % BINS;
        const unsigned peers = __match_any_sync(active, b);
        if (lane == __ffs(peers) - 1) atomicAdd(&mine[b], (unsigned)__popc(peers));
      }
    } else if (k < n) {
      atomicAdd(&mine[x[k] % BINS], 1u);
    }
  }
  merge<Layout::warp>(shared, bins);
}
// The 16 bytes of one load, counted: four words binned by value % 256, or
// sixteen bytes. EQUAL: a load whose samples all fall in one bin is counted
// with one update of 4 (words) or 16 (bytes).
template <typename T, Layout L, bool EQUAL>
__device__ void count_load(unsigned *mine, uint4 v) {
  if constexpr (EQUAL) {
    const bool one_bin = sizeof(T) == 4 ? ((v.x ^ v.y) | (v.x ^ v.z) | (v.x ^ v.w)) % BINS == 0
                                        : v.x == v.y && v.x == v.z && v.x == v.w && v.x == __byte_perm(v.x, 0, 0);
    if (one_bin) {
      add<L>(mine, v.x % BINS, 16 / sizeof(T));
      return;
    }
  }
  const unsigned w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int k = 0; k < 4; k++) {
    if constexpr (sizeof(T) == 4) {
      add<L>(mine, w[k] % BINS, 1);
    } else {
#pragma unroll
      for (int j = 0; j < 4; j++) add<L>(mine, w[k] >> (8 * j) & 0xffu, 1);
    }
  }
}

// 16-byte loads, IN_FLIGHT of them issued per iteration before any is
// counted, into sub-histograms of layout L, in dynamic shared memory of
// shared_words<L>(blockDim.x / 32) words. Any start and length: the samples
// before x's first 16-byte boundary (a 16-byte load needs one) and after the
// last whole 16 bytes are counted one per thread. The bins are 32-bit, as
// CUB's unsigned counters are: no bin may get 2^32 samples or more.
template <typename T, Layout L, int IN_FLIGHT, bool EQUAL>
__global__ void hist_fast(const T *__restrict__ x, size_t n, unsigned *bins) {
  static_assert(std::is_unsigned<T>::value, "a signed sample's value % BINS may be negative");
  assert(blockDim.x % WARP == 0 && blockDim.y == 1 && blockDim.z == 1);   // whole warps, in one row
  extern __shared__ unsigned shared[];
  clear<L>(shared);
  unsigned *mine = my_counters<L>(shared);
  constexpr size_t PER = 16 / sizeof(T);
  const size_t skip = (16 - reinterpret_cast<size_t>(x) % 16) % 16 / sizeof(T);
  const size_t head = skip < n ? skip : n;
  const uint4 *xv = reinterpret_cast<const uint4 *>(x + head);
  const size_t nv = (n - head) / PER, stride = (size_t)gridDim.x * blockDim.x;
  const size_t me = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  size_t i = me;
  for (; i + (IN_FLIGHT - 1) * stride < nv; i += IN_FLIGHT * stride) {
    uint4 v[IN_FLIGHT];
#pragma unroll
    for (int u = 0; u < IN_FLIGHT; u++) v[u] = xv[i + u * stride];
#pragma unroll
    for (int u = 0; u < IN_FLIGHT; u++) count_load<T, L, EQUAL>(mine, v[u]);
  }
  for (; i < nv; i += stride) count_load<T, L, EQUAL>(mine, xv[i]);
  if (me < head) add<L>(mine, x[me] % BINS, 1);
  if (me < n - head - nv * PER) add<L>(mine, x[head + nv * PER + me] % BINS, 1);
  merge<L>(shared, bins);
}
// Bytes are their own bins: CUB's HistogramEven with 257 levels, 0 to 256.
// Words are binned by value % 256, which is the first byte of each 4-byte word
// (the GPU is little-endian): CUB's MultiHistogramEven reads the words as
// pixels of four one-byte channels and counts the first channel only.
struct CubHistogram {
  void *temp = nullptr;
  size_t bytes = 0;
  template <typename T>
  cudaError_t call(const T *x, size_t n, unsigned *bins) {
    if constexpr (sizeof(T) == 1) {
      return cub::DeviceHistogram::HistogramEven(temp, bytes, x, bins, BINS + 1, 0, BINS, (long long)n);
    } else {
      return cub::DeviceHistogram::MultiHistogramEven<4, 1>(temp, bytes, reinterpret_cast<const unsigned char *>(x),
                                                              cuda::std::array<unsigned *, 1>{bins}, cuda::std::array<int, 1>{BINS + 1},
                                                              cuda::std::array<int, 1>{0}, cuda::std::array<int, 1>{BINS}, (long long)n);
    }
  }
  template <typename T>
  void prepare(const T *x, size_t n, unsigned *bins) {
    CHECK(call(x, n, bins));
    CHECK(cudaMalloc(&temp, bytes));
  }
  ~CubHistogram() { if (temp) CHECK(cudaFree(temp)); }
};

// CUB's HistogramEven on words, through an iterator that hands it each word's
// low byte as an unsigned char, in one channel: CUB picks its tuning by the
// samples' type and the number of channels, so this call runs its tuning for
// one-byte samples of one channel where it has one, and its generic policy
// elsewhere.
struct LowByte {
  __host__ __device__ unsigned char operator()(unsigned v) const { return (unsigned char)(v % BINS); }
};
struct CubLowBytes {
  void *temp = nullptr;
  size_t bytes = 0;
  cudaError_t call(const unsigned *x, size_t n, unsigned *bins) {
    return cub::DeviceHistogram::HistogramEven(temp, bytes, thrust::make_transform_iterator(x, LowByte{}), bins,
                                               BINS + 1, 0, BINS, (long long)n);
  }
  void prepare(const unsigned *x, size_t n, unsigned *bins) {
    CHECK(call(x, n, bins));
    CHECK(cudaMalloc(&temp, bytes));
  }
  ~CubLowBytes() { if (temp) cudaFree(temp); }
};
// One way to count samples of type T: its label, its launch (input, length,
// bins), its grid and block, and its kernel's registers per thread.
template <typename T>
struct Counter {
  std::string label;
  std::function<void(const T *, size_t, unsigned *)> launch;
  int grid, threads, regs;
};

// A launch of kernel k with a grid of blocks of threads each, and shared_bytes
// of shared memory allocated at launch (more than 48 KiB must be asked for).
template <typename T, typename Kernel>
static Counter<T> counter(const char *label, Kernel k, int threads, size_t shared_bytes, double grid_scale = 1) {
  if (shared_bytes > 48 * 1024) CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared_bytes));
  const int grid = std::max(1, (int)(full_grid(k, threads, shared_bytes) * grid_scale));
  return {label,
          [=](const T *x, size_t n, unsigned *bins) {
            k<<<grid, threads, shared_bytes>>>(x, n, bins);
            CHECK(cudaGetLastError());
          },
          grid, threads, registers(k)};
}

// hist_fast with layout L, in blocks of `warps` warps.
template <typename T, Layout L, int IN_FLIGHT, bool EQUAL>
static Counter<T> fast(const char *label, int warps, double grid_scale = 1) {
  Counter<T> c = counter<T>(label, hist_fast<T, L, IN_FLIGHT, EQUAL>, warps * WARP,
                            shared_words<L>(warps) * sizeof(unsigned), grid_scale);
  if (L == Layout::lane16) {
    // A 16-bit counter holds one lane's samples of one bin: an input so large
    // that a lane could count 65,536 of them is counted in several launches of
    // at most `most` samples each, into the same bins.
    const size_t most = (size_t)(65535 - 2 * 16) * c.grid * c.threads;
    c.launch = [launch = c.launch, most](const T *x, size_t n, unsigned *bins) {
      for (size_t first = 0; first < n; first += most) launch(x + first, std::min(most, n - first), bins);
    };
  }
  return c;
}

// How many warps, at most `most`, fit in one block when each needs
// per_warp bytes of shared memory: the GPU's limit for one block decides.
static int warps_that_fit(size_t per_warp, int most) {
  int device = 0, limit = 0;
  CHECK(cudaGetDevice(&device));
  CHECK(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return std::max(1, std::min(most, (int)(limit / per_warp)));
}

// The chapter's steps, in order, then the last section's sweep and an
// experiment on the baseline. A lane histogram takes 32 KiB per warp (16
// KiB with 16-bit counters): as many warps as fit in one block, at most 7.
const int COLUMN_WARPS = 16;   // the final histogram's warps per block
template <typename T>
static std::vector<Counter<T>> steps() {
  const int lane_warps = warps_that_fit(shared_words<Layout::lane>(1) * sizeof(unsigned), 7);
  const int lane16_warps = warps_that_fit(shared_words<Layout::lane16>(1) * sizeof(unsigned), 7);
  return {counter<T>("block histogram", hist_block<T>, THREADS, 0),
          counter<T>("warp histograms", hist_warp<T, false>, THREADS, 0),
          counter<T>("warp histograms, __match_any_sync", hist_warp<T, true>, THREADS, 0),
          fast<T, Layout::warp, 1, false>("warp histograms, vector loads", WARPS),
          fast<T, Layout::warp, 4, false>("warp histograms, vector loads, 4 in flight", WARPS),
          fast<T, Layout::warp, 4, true>("warp histograms, equal loads counted once", WARPS),
          fast<T, Layout::lane, 8, false>("lane histograms", lane_warps),
          fast<T, Layout::lane16, 8, false>("lane histograms of 16-bit counters", lane16_warps),
          fast<T, Layout::column, 4, false>("lane columns", COLUMN_WARPS),
          fast<T, Layout::column, 4, true>("lane columns, equal loads counted once", COLUMN_WARPS),
          fast<T, Layout::column, 2, true>("final, 2 in flight", COLUMN_WARPS),
          fast<T, Layout::column, 8, true>("final, 8 in flight", COLUMN_WARPS),
          fast<T, Layout::column, 4, true>("final, blocks of 8 warps", 8),
          fast<T, Layout::column, 4, true>("final, blocks of 32 warps", 32),
          fast<T, Layout::column, 4, true>("final, a quarter of the grid", COLUMN_WARPS, 0.25),
          fast<T, Layout::column, 4, true>("final, half the grid", COLUMN_WARPS, 0.5),
          fast<T, Layout::column, 4, true>("final, twice the grid", COLUMN_WARPS, 2),
          fast<T, Layout::block, 1, false>("block histogram, vector loads", WARPS)};
}
// The per-warp histogram with 16-byte loads, the same counting equal loads
// once, and the final histogram: the steps that --profile runs.
const size_t WIDE = 4, WIDE_EQUAL = 5, FINAL = 9;
static bool profiling = false;   // --profile: launch each histogram once, untimed

// Whether the GPU's bins equal the CPU's count; says which do not.
static bool bins_right(const std::string &label, const std::vector<unsigned> &expected, const unsigned *d_bins) {
  std::vector<unsigned> bins(BINS);
  CHECK(cudaMemcpy(bins.data(), d_bins, BINS * sizeof(unsigned), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int b = 0; b < BINS; b++)
    if (bins[b] != expected[b] && wrong++ < 3)
      fprintf(stderr, "%s: bin %d holds %u, the CPU counted %u\n", label.c_str(), b, bins[b], expected[b]);
  return wrong == 0;
}

// Times launch (after clearing the bins), checks the last timed launch's bins,
// and prints the time and bandwidth for its bytes (a whole number of MiB);
// returns the bandwidth in GB/s, or -1 when a bin is wrong. When profiling,
// launches it once, untimed.
template <typename Launch>
static double measure_histogram(const std::string &label, size_t bytes, const std::vector<unsigned> &expected,
                                unsigned *d_bins, Launch launch) {
  auto reset = [&] { CHECK(cudaMemsetAsync(d_bins, 0, BINS * sizeof(unsigned))); };
  double rate = 1;
  if (profiling) reset(), launch();
  else rate = print_rate(label.c_str(), (int)(bytes >> 20), (double)bytes, time_ms(reset, launch));
  return bins_right(label, expected, d_bins) ? rate : -1;
}

// The same for one of CUB's calls on n samples, its temporary storage
// allocated first, untimed.
template <typename Cub, typename T>
static double measure_cub(Cub &cub, const std::string &label, const T *x, size_t n, const std::vector<unsigned> &expected,
                          unsigned *d_bins) {
  cub.prepare(x, n, d_bins);
  return measure_histogram(label, n * sizeof(T), expected, d_bins, [&] { CHECK(cub.call(x, n, d_bins)); });
}

// Counts every input of samples of type T (named `type`): for each shape,
// CUB, then every step, each checked; over_cub gets the final step's speed
// over CUB's for each shape. Returns whether every count was right. shapes:
// the shapes to count, in that order.
template <typename T>
static bool count_all(const char *type, T *d_x, unsigned *d_bins, unsigned *d_sink, double ceiling, double over_cub[3],
                      double over_tuned[3], const std::vector<int> &shapes = {0, 1, 2}) {
  const size_t n = ((size_t)SIZE_MIB << 20) / sizeof(T), bytes = n * sizeof(T);
  const std::vector<Counter<T>> counters = steps<T>();
  for (const Counter<T> &c : counters) {
    printf("%s, %s, blocks in the grid: %d\n", c.label.c_str(), type, c.grid);
    printf("%s, %s, threads per block: %d\n", c.label.c_str(), type, c.threads);
    printf("%s, %s, registers per thread: %d\n", c.label.c_str(), type, c.regs);
  }
  bool ok = true;
  for (int s : shapes) {
    const std::string where = std::string(type) + ", " + SHAPE_NAMES[s];
    const std::vector<unsigned> expected = upload_samples(d_x, n, (Shape)s);
    // The CPU's count of samples [first, first + count) of this input: counted
    // afresh when they are few, else the whole input's count less the samples
    // outside them.
    const Sample<T> sample{(Shape)s, zipf(false)};
    auto part_expected = [&](size_t first, size_t count) {
      std::vector<unsigned> e(BINS, 0);
      if (count < n / 2) {
        for (size_t k = first; k < first + count; k++) e[sample(k) % BINS]++;
      } else {
        e = expected;
        for (size_t k = 0; k < first; k++) e[sample(k) % BINS]--;
        for (size_t k = first + count; k < n; k++) e[sample(k) % BINS]--;
      }
      return e;
    };
    // The parts that every step counts once more, untimed: one that ends 7
    // samples early (no whole 16 bytes at its end), one that also starts at
    // sample 1 (no 16-byte boundary at its start), and 1000 samples from sample
    // 1 (fewer than one load per thread).
    const std::pair<size_t, size_t> parts[] = {{0, n - 7}, {1, n - 8}, {1, 1000}};
    std::vector<std::vector<unsigned>> part_bins;
    for (const auto &[first, count] : parts) part_bins.push_back(part_expected(first, count));
    CubHistogram cub_hist;
    const double cub = measure_cub(cub_hist, "CUB, " + where, d_x, n, expected, d_bins);
    ok = ok && cub > 0;
    if (!profiling) printf("CUB, %s, %d MiB, of the read ceiling: %.2f\n", where.c_str(), SIZE_MIB, cub / ceiling);
    double tuned = 0;   // CUB with its byte tuning, for words (not under the profiler)
    if constexpr (sizeof(T) == 4) {
      if (!profiling) {
        CubLowBytes cub_b;
        tuned = measure_cub(cub_b, "CUB with its byte tuning, " + where, d_x, n, expected, d_bins);
        ok = ok && tuned > 0;
      }
    }
    for (size_t k = 0; k < counters.size(); k++) {
      if (profiling && k != 0 && k != WIDE && k != WIDE_EQUAL && k != FINAL) continue;   // the profiler's four
      const Counter<T> &c = counters[k];
      const std::string label = c.label + ", " + where;
      const double rate = measure_histogram(label, bytes, expected, d_bins, [&] { c.launch(d_x, n, d_bins); });
      ok = ok && rate > 0;
      if (profiling) continue;
      for (size_t p = 0; p < part_bins.size(); p++) {
        const auto &[first, count] = parts[p];
        CHECK(cudaMemset(d_bins, 0, BINS * sizeof(unsigned)));
        c.launch(d_x + first, count, d_bins);
        ok = bins_right(label + ", " + std::to_string(count) + " samples from sample " + std::to_string(first), part_bins[p],
                        d_bins) && ok;
      }
      printf("%s, %d MiB, of the read ceiling: %.2f\n", label.c_str(), SIZE_MIB, rate / ceiling);
      printf("%s, %d MiB, speedup over CUB: %.2f\n", label.c_str(), SIZE_MIB, rate / cub);
      if (k == FINAL) over_cub[s] = rate / cub, over_tuned[s] = tuned > 0 ? rate / tuned : 0;
      if (k == FINAL && s == 0) {
        // The final histogram's launch (grid, blocks, shared memory) and loads, with
        // the counting left out: chapter 2's read_only, 4 loads in flight.
        const size_t shared_bytes = shared_words<Layout::column>(COLUMN_WARPS) * sizeof(unsigned);
        const Timing t = time_ms([] {}, [&] {
          read_only<4><<<c.grid, c.threads, shared_bytes>>>(reinterpret_cast<const uint4 *>(d_x), bytes / 16, d_sink);
          CHECK(cudaGetLastError());
        });
        const double loads = print_rate(("final launch, loads only, " + where).c_str(), SIZE_MIB, (double)bytes, t);
        printf("%s, %d MiB, of its loads alone: %.2f\n", label.c_str(), SIZE_MIB, rate / loads);
      }
    }
    if (!profiling) {
      // The input's first SMALL_MIB: CUB (and, for words, CUB with its byte
      // tuning) and the final histogram, which is timed once more with the zeroing
      // of its bins, as CUB's call zeroes its own.
      const size_t small = ((size_t)SMALL_MIB << 20) / sizeof(T), small_bytes = small * sizeof(T);
      const std::vector<unsigned> small_expected = part_expected(0, small);
      CubHistogram cub_small;
      const double cub_s = measure_cub(cub_small, "CUB, " + where, d_x, small, small_expected, d_bins);
      const Counter<T> &f = counters[FINAL];
      const double final_s = measure_histogram(f.label + ", " + where, small_bytes, small_expected, d_bins,
                                               [&] { f.launch(d_x, small, d_bins); });
      const double zeroed_s = measure_histogram(f.label + ", zeroing timed, " + where, small_bytes, small_expected, d_bins, [&] {
        CHECK(cudaMemsetAsync(d_bins, 0, BINS * sizeof(unsigned)));
        f.launch(d_x, small, d_bins);
      });
      ok = ok && cub_s > 0 && final_s > 0 && zeroed_s > 0;
      printf("%s, %s, %d MiB, speedup over CUB: %.2f\n", f.label.c_str(), where.c_str(), SMALL_MIB, final_s / cub_s);
      printf("%s, zeroing timed, %s, %d MiB, speedup over CUB: %.2f\n", f.label.c_str(), where.c_str(), SMALL_MIB, zeroed_s / cub_s);
      if constexpr (sizeof(T) == 4) {
        CubLowBytes tuned_small;
        const double tuned_s = measure_cub(tuned_small, "CUB with its byte tuning, " + where, d_x, small, small_expected, d_bins);
        ok = ok && tuned_s > 0;
        printf("%s, zeroing timed, %s, %d MiB, speedup over CUB with its byte tuning: %.2f\n", f.label.c_str(), where.c_str(),
               SMALL_MIB, zeroed_s / tuned_s);
      }
    }
  }
  return ok;
}

int main(int argc, char **argv) {
  // --profile bytes|32-bit SHAPE...: the profiled histograms of those inputs once each, in that
  // order, for Nsight Compute (one process, so that the profiler starts once).
  std::vector<int> shapes;
  for (int a = 3; a < argc; a++)
    for (int s = 0; s < 3; s++)
      if (!strcmp(argv[a], SHAPE_NAMES[s])) shapes.push_back(s);
  const bool is_bytes = argc >= 4 && !strcmp(argv[2], "bytes");
  if (argc > 1 && (argc < 4 || strcmp(argv[1], "--profile") || (int)shapes.size() != argc - 3 ||
                   !(is_bytes || !strcmp(argv[2], "32-bit")))) {
    fprintf(stderr, "usage: %s [--profile bytes|32-bit 'spread'|'one bin'|'skewed'...]\n", argv[0]);
    return 2;
  }
  const size_t bytes = (size_t)SIZE_MIB << 20;
  void *d_x;
  unsigned *d_bins, *d_sink;
  CHECK(cudaMalloc(&d_x, bytes));
  CHECK(cudaMalloc(&d_bins, BINS * sizeof(unsigned)));
  CHECK(cudaMalloc(&d_sink, sizeof(unsigned)));
  CHECK(cudaMemset(d_x, 0, bytes));
  if (argc > 1) {
    profiling = true;
    double unused[3], unused_tuned[3];
    const bool ok = is_bytes ? count_all("bytes", static_cast<unsigned char *>(d_x), d_bins, d_sink, 1, unused, unused_tuned, shapes)
                             : count_all("32-bit", static_cast<unsigned *>(d_x), d_bins, d_sink, 1, unused, unused_tuned, shapes);
    puts(ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
  }
  int device = 0, l2 = 0;   // the L2's size decides whether SMALL_MIB stays in it
  CHECK(cudaGetDevice(&device));
  CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  printf("L2 cache in MiB: %.0f\n", l2 / 1048576.0);
  const double ceiling = read_ceiling(static_cast<const unsigned *>(d_x), bytes / 4, SIZE_MIB, d_sink);
  double words[3] = {}, bytes_over[3] = {}, words_tuned[3] = {}, bytes_tuned[3] = {};
  bool ok = count_all("32-bit", static_cast<unsigned *>(d_x), d_bins, d_sink, ceiling, words, words_tuned);
  ok = count_all("bytes", static_cast<unsigned char *>(d_x), d_bins, d_sink, ceiling, bytes_over, bytes_tuned) && ok;
  for (int s = 0; s < 3; s++) printf("speedup over CUB at 1 GiB, 32-bit, %s: %.2f\n", SHAPE_NAMES[s], words[s]);
  for (int s = 0; s < 3; s++)
    printf("speedup over CUB with its byte tuning at 1 GiB, 32-bit, %s: %.2f\n", SHAPE_NAMES[s], words_tuned[s]);
  for (int s = 0; s < 3; s++) printf("speedup over CUB at 1 GiB, bytes, %s: %.2f\n", SHAPE_NAMES[s], bytes_over[s]);
  CHECK(cudaFree(d_x));
  CHECK(cudaFree(d_bins));
  CHECK(cudaFree(d_sink));
  puts(ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
