// scan_block.cu: a block's scan three ways (Hillis and Steele, Blelloch, warp shuffles), on segments of 256
// elements
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
#include <thread>
#include <vector>

const int THREADS = 256;         // threads per block, for every kernel of the chapter
const int WARP = 32;
const int WARPS = THREADS / WARP;
const unsigned DIGITS = 10;      // the elements are the digits 0 to 9, as in chapter 1
// The input sizes, in MiB of 4-byte elements: one that an L2 of more than
// 16 MiB holds, chapter 1's, and two at least twice today's L2s.
const int SIZES_MIB[] = {16, 64, 256, 1024};
const int SIZES = sizeof SIZES_MIB / sizeof *SIZES_MIB;
// A tile is ROWS rows of THREADS 16-byte vectors: ROWS * THREADS * 4 elements.
template <int ROWS> constexpr int tile_elements = ROWS * THREADS * 4;
const unsigned LANES = 0xffffffffu;   // every lane of a warp takes part in its shuffles and votes
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
// The inclusive scan of one value per lane: after the step of distance d,
// lane l holds the sum of lanes l - 2d + 1 to l (Hillis and Steele's order,
// five steps for 32 lanes). G independent scans are interleaved, so that
// their shuffles overlap.
template <typename T, int G>
__device__ void warp_inclusive(T (&v)[G]) {
  const int lane = threadIdx.x % WARP;
#pragma unroll
  for (int d = 1; d < WARP; d *= 2) {
#pragma unroll
    for (int g = 0; g < G; g++) {
      const T u = __shfl_up_sync(LANES, v[g], d);
      if (lane >= d) v[g] += u;
    }
  }
}

// The sum of one value per lane, in every lane, added in the same order in
// every lane and on every run.
template <typename T>
__device__ T warp_total(T v) {
  for (int d = WARP / 2; d > 0; d /= 2) v += __shfl_xor_sync(LANES, v, d);
  return v;
}
// Each block of THREADS threads scans its own SEGMENT elements of x into y,
// one element per thread, in one of three ways.
const int SEGMENT = THREADS;
enum class BlockScan { hillis_steele, blelloch, blelloch_padded, shuffles };

// Blelloch's index i, or with one slot of padding after every 32 (PAD), so
// that the tree's strided indices fall in different banks of shared memory.
template <bool PAD> __device__ int slot(int i) { return PAD ? i + i / WARP : i; }

template <BlockScan HOW>
__global__ void __launch_bounds__(SEGMENT) scan_segments(const unsigned *__restrict__ x, unsigned *__restrict__ y) {
  const size_t k = blockIdx.x * (size_t)SEGMENT + threadIdx.x;
  const int i = threadIdx.x;
  const unsigned mine = x[k];
  if constexpr (HOW == BlockScan::hillis_steele) {
    // Step d adds the element d places back: log2(SEGMENT) steps, each
    // adding in every thread that has such an element. Two buffers, so that
    // no thread reads what another writes in the same step.
    __shared__ unsigned buf[2][SEGMENT];
    int in = 0;
    buf[in][i] = mine;
    __syncthreads();
    for (int d = 1; d < SEGMENT; d *= 2) {
      buf[1 - in][i] = i >= d ? buf[in][i] + buf[in][i - d] : buf[in][i];
      in = 1 - in;
      __syncthreads();
    }
    y[k] = buf[in][i];
  } else if constexpr (HOW == BlockScan::blelloch || HOW == BlockScan::blelloch_padded) {
    // Work-efficient: the up-sweep builds a tree of sums in place, the
    // down-sweep sends each node's prefix down to its children; the result
    // is exclusive, and each thread adds its own element.
    constexpr bool PAD = HOW == BlockScan::blelloch_padded;
    __shared__ unsigned a[SEGMENT + SEGMENT / WARP];
    a[slot<PAD>(i)] = mine;
    __syncthreads();
    for (int d = 1; d < SEGMENT; d *= 2) {   // up-sweep: SEGMENT - 1 additions
      const int right = (i + 1) * 2 * d - 1;
      if (right < SEGMENT) a[slot<PAD>(right)] += a[slot<PAD>(right - d)];
      __syncthreads();
    }
    if (i == 0) a[slot<PAD>(SEGMENT - 1)] = 0;
    __syncthreads();
    for (int d = SEGMENT / 2; d >= 1; d /= 2) {   // down-sweep: SEGMENT - 1 additions
      const int right = (i + 1) * 2 * d - 1;
      if (right < SEGMENT) {
        const unsigned left = a[slot<PAD>(right - d)];
        a[slot<PAD>(right - d)] = a[slot<PAD>(right)];
        a[slot<PAD>(right)] += left;
      }
      __syncthreads();
    }
    y[k] = a[slot<PAD>(i)] + mine;
  } else {
    // Each warp scans its 32 with shuffles, warp 0 scans the warps' totals.
    __shared__ unsigned totals[WARPS];
    unsigned v[1] = {mine};
    warp_inclusive(v);
    if (i % WARP == WARP - 1) totals[i / WARP] = v[0];
    __syncthreads();
    if (i < WARP) {
      unsigned t[1] = {i < WARPS ? totals[i] : 0u};
      const unsigned own = t[0];
      warp_inclusive(t);
      if (i < WARPS) totals[i] = t[0] - own;
    }
    __syncthreads();
    y[k] = v[0] + totals[i / WARP];
  }
}

int main() {
  const size_t most = ((size_t)SIZES_MIB[SIZES - 1] << 20) / sizeof(unsigned);
  unsigned *d_x, *d_y;
  CHECK(cudaMalloc(&d_x, most * sizeof *d_x));
  CHECK(cudaMalloc(&d_y, most * sizeof *d_y));
  std::vector<unsigned> got(most);
  bool ok = true;
  // The additions that each way makes per segment, counted as its loops make them.
  long hs = 0, bl = SEGMENT, warp = 0;   // Blelloch: each thread adds its own element at the end
  for (int d = 1; d < SEGMENT; d *= 2) hs += SEGMENT - d;
  for (int d = 1; d < SEGMENT; d *= 2) bl += 2 * (SEGMENT / (2 * d));   // up-sweep and down-sweep
  for (int d = 1; d < WARP; d *= 2) warp += WARP - d;                   // one warp's scan
  printf("Hillis and Steele, additions per segment of %d: %ld\n", SEGMENT, hs);
  printf("Blelloch, additions per segment of %d: %ld\n", SEGMENT, bl);
  printf("warp shuffles, additions per segment of %d: %ld\n", SEGMENT, warp * (WARPS + 1) + SEGMENT);
  for (int mib : SIZES_MIB) {
    const size_t n = ((size_t)mib << 20) / sizeof(unsigned);
    const unsigned long long total = upload_digits(d_x, n);
    read_ceiling(d_x, n, mib, d_y);
    auto one = [&](const char *label, auto kernel) {
      CHECK(cudaMemset(d_y, 0, n * sizeof *d_y));
      const Timing t = time_ms([] {}, [&] {
        kernel<<<(unsigned)(n / SEGMENT), SEGMENT>>>(d_x, d_y);
        CHECK(cudaGetLastError());
      });
      print_rate(label, mib, 2.0 * n * sizeof(unsigned), t, "bandwidth, read and written");
      CHECK(cudaMemcpy(got.data(), d_y, n * sizeof *d_y, cudaMemcpyDeviceToHost));
      // Every segment's scan, element by element, on every core, and the
      // segments' ends add up to the CPU's sum.
      std::vector<size_t> wrongs(cpu_cores(), 0);
      std::vector<unsigned long long> ends(cpu_cores(), 0);
      on_every_core(n / SEGMENT, [&](size_t first, size_t last, unsigned c) {
        for (size_t s = first * SEGMENT; s < last * SEGMENT; s += SEGMENT) {
          unsigned run = 0;
          for (size_t k = s; k < s + SEGMENT; k++) wrongs[c] += got[k] != (run += Digit()(k));
          ends[c] += got[s + SEGMENT - 1];
        }
      });
      size_t wrong = 0;
      unsigned long long end_sum = 0;
      for (unsigned c = 0; c < cpu_cores(); c++) wrong += wrongs[c], end_sum += ends[c];
      printf("%s, %d MiB, elements wrong: %zu\n", label, mib, wrong);
      ok = ok && wrong == 0 && end_sum == total;
    };
    one("Hillis and Steele", scan_segments<BlockScan::hillis_steele>);
    one("Blelloch", scan_segments<BlockScan::blelloch>);
    one("Blelloch, padded", scan_segments<BlockScan::blelloch_padded>);
    one("warp shuffles", scan_segments<BlockScan::shuffles>);
  }
  CHECK(cudaFree(d_x));
  CHECK(cudaFree(d_y));
  puts(ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
