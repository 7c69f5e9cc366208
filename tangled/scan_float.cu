// scan_float.cu: a float scan of mixed magnitudes: what the look-back's timing and the tile size do to its digits
// runs: 1
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
#include <set>
#include <thread>
#include <vector>
#include <cuda/atomic>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

const int THREADS = 256;         // threads per block, for every kernel of the chapter
const int WARP = 32;
const int WARPS = THREADS / WARP;
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
// The 16-byte vector of four T that the scans load and store.
template <typename T> struct Four;
template <> struct Four<unsigned> { using type = uint4; };
template <> struct Four<float> { using type = float4; };

// A T as the 32 bits that a tile's status word carries, and back.
__device__ unsigned to_bits(unsigned v) { return v; }
__device__ unsigned to_bits(float v) { return __float_as_uint(v); }
template <typename T> __device__ T from_bits(unsigned b);
template <> __device__ unsigned from_bits<unsigned>(unsigned b) { return b; }
template <> __device__ float from_bits<float>(unsigned b) { return __uint_as_float(b); }
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
// One tile: ROWS * THREADS * 4 elements from start, in two layouts.
//   COALESCED (DIRECT false): row r holds THREADS 16-byte vectors, thread i
//     vector i, so that each load and store of a warp covers 512 contiguous
//     bytes; element order is row, then thread, then the vector's four.
//   DIRECT: thread i holds the ROWS vectors i * ROWS to i * ROWS + ROWS - 1,
//     4 * ROWS contiguous elements, so that a warp's load covers one 16-byte
//     piece of every 16 * ROWS bytes.
// A group is what one warp scan covers: a row when coalesced, all of a
// thread's elements when direct.
template <typename T, int ROWS, bool DIRECT>
struct TileScan {
  using V = typename Four<T>::type;
  static constexpr int ELEMENTS = tile_elements<ROWS>, GROUPS = DIRECT ? 1 : ROWS;
  static constexpr int COUNT = GROUPS * WARPS;              // the warps' group totals
  static constexpr int PER_LANE = (COUNT + WARP - 1) / WARP; // of which each lane of warp 0 scans these

  // The index, in 16-byte vectors from the tile's start, of thread i's vector r.
  __device__ static int vector(int r) { return DIRECT ? threadIdx.x * ROWS + r : r * THREADS + threadIdx.x; }

  // Loads the tile (x must be 16-byte aligned); elements past n read as 0.
  // READ_ONLY: through the read-only path, which is for data that no thread
  // of the kernel writes; a kernel that writes x reads it plainly.
  template <bool READ_ONLY = true>
  __device__ static void load_tile(const T *x, size_t n, size_t start, V (&v)[ROWS]) {
    if (start + ELEMENTS <= n) {
      const V *xv = reinterpret_cast<const V *>(x + start);
#pragma unroll
      for (int r = 0; r < ROWS; r++) v[r] = READ_ONLY ? load<false>(xv + vector(r)) : xv[vector(r)];
    } else {
#pragma unroll
      for (int r = 0; r < ROWS; r++) {
        const size_t k = start + 4 * (size_t)vector(r);
        v[r].x = k < n ? x[k] : T(0);
        v[r].y = k + 1 < n ? x[k + 1] : T(0);
        v[r].z = k + 2 < n ? x[k + 2] : T(0);
        v[r].w = k + 3 < n ? x[k + 3] : T(0);
      }
    }
  }

  // Stores the tile; nothing past n.
  __device__ static void store_tile(T *y, size_t n, size_t start, const V (&v)[ROWS]) {
    if (start + ELEMENTS <= n) {
#pragma unroll
      for (int r = 0; r < ROWS; r++) reinterpret_cast<V *>(y + start)[vector(r)] = v[r];
    } else {
#pragma unroll
      for (int r = 0; r < ROWS; r++) {
        const size_t k = start + 4 * (size_t)vector(r);
        if (k < n) y[k] = v[r].x;
        if (k + 1 < n) y[k + 1] = v[r].y;
        if (k + 2 < n) y[k + 2] = v[r].z;
        if (k + 3 < n) y[k + 3] = v[r].w;
      }
    }
  }

  // Step 1, in each thread and then each warp: the inclusive scan of the
  // thread's own elements in place, within[g] the sum of the lanes before
  // it in its warp's group g, and each warp's group totals in
  // totals[g * WARPS + warp]. The caller then waits at a barrier.
  __device__ static void scan_warps(V (&v)[ROWS], T (&within)[GROUPS], T *totals) {
    T sum[GROUPS];
    T carry = T(0);
#pragma unroll
    for (int r = 0; r < ROWS; r++) {
      if (!DIRECT) carry = T(0);
      v[r].x += carry;
      v[r].y += v[r].x;
      v[r].z += v[r].y;
      v[r].w += v[r].z;
      carry = v[r].w;
      if (!DIRECT) sum[r] = carry;
    }
    if (DIRECT) sum[0] = carry;
    T inclusive[GROUPS];
#pragma unroll
    for (int g = 0; g < GROUPS; g++) inclusive[g] = sum[g];
    warp_inclusive(inclusive);
#pragma unroll
    for (int g = 0; g < GROUPS; g++) {
      within[g] = inclusive[g] - sum[g];
      if (threadIdx.x % WARP == WARP - 1) totals[g * WARPS + threadIdx.x / WARP] = inclusive[g];
    }
  }

  // Step 2, in warp 0 after the barrier: the group totals scanned,
  // exclusive, in order, into offsets (which may be totals itself); returns
  // the tile's total, in every lane.
  __device__ static T scan_totals(const T *totals, T *offsets) {
    const int lane = threadIdx.x % WARP;
    T mine[PER_LANE], lane_sum = T(0);
#pragma unroll
    for (int k = 0; k < PER_LANE; k++) {
      const int i = lane * PER_LANE + k;
      mine[k] = i < COUNT ? totals[i] : T(0);
      lane_sum += mine[k];
    }
    T inclusive[1] = {lane_sum};
    warp_inclusive(inclusive);
    T before = inclusive[0] - lane_sum;
#pragma unroll
    for (int k = 0; k < PER_LANE; k++) {
      const int i = lane * PER_LANE + k;
      if (i < COUNT) offsets[i] = before;
      before += mine[k];
    }
    return __shfl_sync(LANES, inclusive[0], WARP - 1);
  }

  // Step 3, in each thread after the barrier that follows step 2: the
  // offsets added, given the tile's prefix (the sum of every earlier tile).
  __device__ static void add_offsets(V (&v)[ROWS], const T (&within)[GROUPS], const T *offsets, T prefix) {
#pragma unroll
    for (int r = 0; r < ROWS; r++) {
      const int g = DIRECT ? 0 : r;
      const T offset = prefix + offsets[g * WARPS + threadIdx.x / WARP] + within[g];
      v[r].x += offset;
      v[r].y += offset;
      v[r].z += offset;
      v[r].w += offset;
    }
  }

  // A whole tile: loaded, scanned, given the prefix that prefix_of returns
  // (called by every lane of warp 0 with the tile's total; it returns the sum
  // of the tiles before, the same in every lane), and stored.
  template <typename PrefixOf>
  __device__ static void run(const T *x, T *y, size_t n, size_t start, PrefixOf prefix_of) {
    __shared__ T totals[PER_LANE * WARP];
    __shared__ T prefix;
    V v[ROWS];
    T within[GROUPS];
    load_tile(x, n, start, v);
    scan_warps(v, within, totals);
    __syncthreads();
    if (threadIdx.x < WARP) {
      const T p = prefix_of(scan_totals(totals, totals));
      if (threadIdx.x == 0) prefix = p;
    }
    __syncthreads();
    add_offsets(v, within, totals, prefix);
    store_tile(y, n, start, v);
  }
};
// A tile's status: what it has published, the launch it belongs to and the
// value, in one 64-bit word, so that one load always reads a flag and a value
// that were stored together. The high half is the launch's epoch times 4 plus
// the flag, the low half the value's bits. A word of an earlier launch (or
// the zeros that the words start as) reads as NOT_YET: no launch clears the
// words, each just runs with an epoch of its own.
enum : unsigned { NOT_YET = 0, AGGREGATE = 1, PREFIX = 2 };
const unsigned MAX_EPOCH = 1u << 30;

__device__ unsigned long long status_word(unsigned epoch, unsigned flag, unsigned bits) {
  return (unsigned long long)(epoch << 2 | flag) << 32 | bits;
}
__device__ unsigned flag_of(unsigned long long word, unsigned epoch) {
  const unsigned high = (unsigned)(word >> 32);
  return high >> 2 == epoch ? high & 3 : NOT_YET;
}

// The word is all that is shared, so relaxed atomics suffice: a store that
// another block sees whole or not at all, and a load that reads the word as
// the L2 holds it now, not a copy that this SM kept. A flag and a value in two
// words would need a release store of the flag after the value, and an
// acquire load of the flag before the value.
__device__ void publish(unsigned long long *status, unsigned epoch, unsigned flag, unsigned bits) {
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(*status).store(status_word(epoch, flag, bits),
                                                                               cuda::memory_order_relaxed);
}
__device__ unsigned long long observe(unsigned long long *status) {
  return cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(*status).load(cuda::memory_order_relaxed);
}
// Chained: lane 0 waits until the status word at status[at], tile t - 1's,
// holds its inclusive prefix, which is this tile's exclusive one. One tile after another, in a chain.
template <typename T>
__device__ T wait_for_predecessor(unsigned long long *status, size_t at, unsigned epoch) {
  unsigned long long w = 0;
  if (threadIdx.x % WARP == 0)
    do w = observe(&status[at]);
    while (flag_of(w, epoch) != PREFIX);
  return from_bits<T>(__shfl_sync(LANES, (unsigned)w, 0));
}

// Decoupled look-back (Merrill and Garland): lane l reads the status of
// tile t - 1 - l, a window of 32 tiles. Once every tile of the window up to
// the nearest inclusive prefix has published something, the lanes up to
// that prefix add their values, and that ends it; with no prefix in the
// window, once all have published, the 32 aggregates are added and the
// window moves 32 tiles back. Before tile 0 is a prefix of 0. The lanes add
// in a fixed order, but where a prefix is found depends on timing. A warp
// that must read again first sleeps SLEEP nanoseconds (0: not at all).
// Tile j's word is status[j * SPREAD]: SPREAD 4 or more puts every tile's
// word in a 32-byte sector of its own; the scratch has room for MOST_SPREAD.
const int MOST_SPREAD = 16;
template <typename T, int SLEEP, int SPREAD>
__device__ T look_back(unsigned long long *status, unsigned t, unsigned epoch) {
  static_assert(SPREAD >= 1 && SPREAD <= MOST_SPREAD, "the status words are MOST_SPREAD apart at most");
  const int lane = threadIdx.x % WARP;
  T before = T(0);
  for (long long j = (long long)t - 1 - lane;; j -= WARP) {
    unsigned long long w;
    unsigned flag, prefixes;
    for (;;) {
      w = j >= 0 ? observe(&status[j * SPREAD]) : 0;
      flag = j >= 0 ? flag_of(w, epoch) : PREFIX;
      prefixes = __ballot_sync(LANES, flag == PREFIX);
      const unsigned needed = prefixes ? (prefixes ^ (prefixes - 1)) : LANES;   // the lanes up to the nearest prefix
      if (!(__ballot_sync(LANES, flag == NOT_YET) & needed)) break;
      if (SLEEP) __nanosleep(SLEEP);
    }
    const int nearest = prefixes ? __ffs(prefixes) - 1 : WARP - 1;
    before += warp_total(lane <= nearest ? from_bits<T>((unsigned)w) : T(0));
    if (prefixes) return before;
  }
}
// How a tile learns the sum of the tiles before it.
enum class Chain { none, predecessor, look_back };

// A single-pass scan, one tile per block. Each block takes a ticket, the
// number of its tile, so that tiles start in order: a block waits only on
// tiles that a running block holds. (TICKET false: the tile is blockIdx.x,
// which the hardware starts in order in practice but not by promise.)
//   Chain::none: no tile learns its prefix: not a scan, the cost of
//     everything but the communication;
//   Chain::predecessor: each tile waits for its predecessor's prefix;
//   Chain::look_back: decoupled look-back (SLEEP and SPREAD: look_back's).
// status holds one word per tile, epoch is this launch's (1 to MAX_EPOCH - 1),
// ticket starts at 0 and is left at 0. STAMP: thread 0 stores, per tile,
// the %globaltimer before its ticket, before its wait, after it and after
// its own stores, in stamps[4 * t] to stamps[4 * t + 3].
template <typename T, int ROWS, bool DIRECT, Chain CHAIN, int SLEEP = 0, int SPREAD = 1, bool TICKET = true,
          bool STAMP = false>
__global__ void __launch_bounds__(THREADS)
    scan_single_pass(const T *__restrict__ x, T *__restrict__ y, size_t n, unsigned *ticket,
                     unsigned long long *status, unsigned epoch, unsigned long long *stamps) {
  __shared__ unsigned tile;
  unsigned long long begun = 0;
  if (STAMP) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(begun));
  if (threadIdx.x == 0) tile = TICKET ? atomicInc(ticket, gridDim.x - 1) : blockIdx.x;   // the last wraps it to 0
  __syncthreads();
  const unsigned t = tile;
  TileScan<T, ROWS, DIRECT>::run(x, y, n, (size_t)t * tile_elements<ROWS>, [&](T aggregate) {
    if (CHAIN == Chain::none) return T(0);
    if (CHAIN == Chain::look_back && t > 0 && threadIdx.x == 0) publish(&status[t * SPREAD], epoch, AGGREGATE, to_bits(aggregate));
    unsigned long long waiting = 0, waited = 0;
    if (STAMP) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(waiting));
    const T before = t == 0 ? T(0)
                     : CHAIN == Chain::predecessor ? wait_for_predecessor<T>(status, t * SPREAD - SPREAD, epoch)
                                                   : look_back<T, SLEEP, SPREAD>(status, t, epoch);
    if (STAMP) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(waited));
    if (threadIdx.x == 0) {
      publish(&status[t * SPREAD], epoch, PREFIX, to_bits(before + aggregate));
      if (STAMP) stamps[4 * (size_t)t] = begun, stamps[4 * (size_t)t + 1] = waiting, stamps[4 * (size_t)t + 2] = waited;
    }
    return before;
  });
  if (STAMP && threadIdx.x == 0) {
    unsigned long long done;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(done));
    stamps[4 * (size_t)t + 3] = done;
  }
}
// Pass 1 of the three: each tile scanned on its own, stored, and its total
// stored in sums[tile].
template <typename T, int ROWS>
__global__ void __launch_bounds__(THREADS) scan_each_tile(const T *__restrict__ x, T *__restrict__ y, size_t n, T *sums) {
  TileScan<T, ROWS, false>::run(x, y, n, (size_t)blockIdx.x * tile_elements<ROWS>, [&](T aggregate) {
    if (threadIdx.x == 0) sums[blockIdx.x] = aggregate;
    return T(0);
  });
}

// Pass 1 of reduce-then-scan: each tile's total only, into sums[tile].
template <typename T, int ROWS>
__global__ void __launch_bounds__(THREADS) sum_each_tile(const T *__restrict__ x, size_t n, T *sums) {
  using Scan = TileScan<T, ROWS, false>;
  typename Scan::V v[ROWS];
  Scan::load_tile(x, n, (size_t)blockIdx.x * tile_elements<ROWS>, v);
  T mine = T(0);
#pragma unroll
  for (int r = 0; r < ROWS; r++) mine += (v[r].x + v[r].y) + (v[r].z + v[r].w);
  mine = block_sum_by_warps<WarpAdd::shuffle, T>(mine);   // chapter 2's block sum, in thread 0
  if (threadIdx.x == 0) sums[blockIdx.x] = mine;
}

// The middle pass of both: one block of SUMS_THREADS threads turns the
// tiles' totals into their exclusive prefixes, in place, each thread 16
// consecutive totals per round, with a carry from round to round.
const int SUMS_THREADS = 1024, SUMS_EACH = 16;
template <typename T>
__global__ void __launch_bounds__(SUMS_THREADS) scan_sums(T *sums, unsigned tiles) {
  __shared__ T warp_sums[SUMS_THREADS / WARP];   // 32: warp 0 scans them
  __shared__ T round_total;
  const int lane = threadIdx.x % WARP, warp = threadIdx.x / WARP;
  T carry = T(0);
  for (size_t base = 0; base < tiles; base += SUMS_THREADS * SUMS_EACH) {
    const size_t first = base + (size_t)threadIdx.x * SUMS_EACH;
    T v[SUMS_EACH], mine = T(0);
#pragma unroll
    for (int k = 0; k < SUMS_EACH; k++) {
      v[k] = first + k < tiles ? sums[first + k] : T(0);
      mine += v[k];
    }
    T inclusive[1] = {mine};
    warp_inclusive(inclusive);
    if (lane == WARP - 1) warp_sums[warp] = inclusive[0];
    __syncthreads();
    if (warp == 0) {
      T w[1] = {warp_sums[lane]};
      const T own = w[0];
      warp_inclusive(w);
      warp_sums[lane] = w[0] - own;
      if (lane == WARP - 1) round_total = w[0];
    }
    __syncthreads();
    T before = carry + warp_sums[warp] + (inclusive[0] - mine);
#pragma unroll
    for (int k = 0; k < SUMS_EACH; k++) {
      if (first + k < tiles) sums[first + k] = before;
      before += v[k];
    }
    carry += round_total;
    __syncthreads();   // before the next round overwrites warp_sums and round_total
  }
}

// Pass 3 of the three: each tile's prefix added to its elements, in place.
template <typename T, int ROWS>
__global__ void __launch_bounds__(THREADS) add_prefixes(T *y, size_t n, const T *prefixes) {
  using Scan = TileScan<T, ROWS, false>;
  typename Scan::V v[ROWS];
  const size_t start = (size_t)blockIdx.x * tile_elements<ROWS>;
  Scan::template load_tile<false>(y, n, start, v);   // y is written here: plain loads
  const T p = prefixes[blockIdx.x];
#pragma unroll
  for (int r = 0; r < ROWS; r++) v[r].x += p, v[r].y += p, v[r].z += p, v[r].w += p;
  Scan::store_tile(y, n, start, v);
}

// Pass 3 of reduce-then-scan: each tile scanned again, from its prefix.
template <typename T, int ROWS>
__global__ void __launch_bounds__(THREADS) scan_from_prefixes(const T *__restrict__ x, T *__restrict__ y, size_t n,
                                                             const T *prefixes) {
  TileScan<T, ROWS, false>::run(x, y, n, (size_t)blockIdx.x * tile_elements<ROWS>, [&](T) { return prefixes[blockIdx.x]; });
}
// What the scans share between launches: the ticket counter, room for one
// status word per tile MOST_SPREAD words apart, a launch counter for the
// epochs, the tiles' sums of the passes, and the stamps.
const size_t MOST_TILES = ((size_t)1 << 30) / sizeof(unsigned) / tile_elements<1>;
struct Scratch {
  unsigned *ticket = nullptr;
  unsigned long long *status = nullptr, *stamps = nullptr;
  void *sums = nullptr;
  unsigned epoch = 0;
  Scratch() {
    CHECK(cudaMalloc(&ticket, sizeof *ticket));
    CHECK(cudaMalloc(&status, MOST_SPREAD * MOST_TILES * sizeof *status));
    CHECK(cudaMalloc(&stamps, 4 * MOST_TILES * sizeof *stamps));
    CHECK(cudaMalloc(&sums, MOST_TILES * sizeof(unsigned long long)));
    CHECK(cudaMemset(ticket, 0, sizeof *ticket));
    CHECK(cudaMemset(status, 0, MOST_SPREAD * MOST_TILES * sizeof *status));
  }
  ~Scratch() {
    CHECK(cudaFree(ticket));
    CHECK(cudaFree(status));
    CHECK(cudaFree(stamps));
    CHECK(cudaFree(sums));
  }
  unsigned next_epoch() {
    assert(epoch + 1 < MAX_EPOCH);
    return ++epoch;
  }
};

// One way to scan n elements of x into y: its label, its launch, its tile
// (0: not ours), its registers per thread, whether it is exclusive, whether
// it is a scan at all (the experiments without a look-back are not, and are
// timed, not checked), and the largest size it is timed at (0: every size).
template <typename T>
struct Scan {
  const char *label;
  void (*launch)(const T *, T *, size_t, Scratch &);
  int tile = 0, regs = 0;
  bool exclusive = false, scans = true;
  int largest_mib = 0;
};

// A variant that is slow on purpose, timed only up to mib MiB: enough to
// show how slow, without spending the book's time budget on it.
template <typename T> static Scan<T> up_to(int mib, Scan<T> s) {
  s.largest_mib = mib;
  return s;
}

template <int ROWS> static unsigned tiles_of(size_t n) {
  return (unsigned)((n + tile_elements<ROWS> - 1) / tile_elements<ROWS>);
}

template <typename T, int ROWS, bool DIRECT, Chain CHAIN, int SLEEP = 0, int SPREAD = 1, bool TICKET = true,
          bool STAMP = false>
static Scan<T> single_pass(const char *label) {
  return {label,
          [](const T *x, T *y, size_t n, Scratch &s) {
            scan_single_pass<T, ROWS, DIRECT, CHAIN, SLEEP, SPREAD, TICKET, STAMP>
                <<<tiles_of<ROWS>(n), THREADS>>>(x, y, n, s.ticket, s.status, s.next_epoch(), s.stamps);
            CHECK(cudaGetLastError());
          },
          tile_elements<ROWS>, registers(scan_single_pass<T, ROWS, DIRECT, CHAIN, SLEEP, SPREAD, TICKET, STAMP>), false,
          CHAIN != Chain::none};
}

template <typename T, int ROWS>
static Scan<T> three_passes(const char *label) {
  return {label,
          [](const T *x, T *y, size_t n, Scratch &s) {
            const unsigned tiles = tiles_of<ROWS>(n);
            T *sums = static_cast<T *>(s.sums);
            scan_each_tile<T, ROWS><<<tiles, THREADS>>>(x, y, n, sums);
            CHECK(cudaGetLastError());
            scan_sums<T><<<1, SUMS_THREADS>>>(sums, tiles);
            CHECK(cudaGetLastError());
            add_prefixes<T, ROWS><<<tiles, THREADS>>>(y, n, sums);
            CHECK(cudaGetLastError());
          },
          tile_elements<ROWS>, registers(scan_each_tile<T, ROWS>)};
}

template <typename T, int ROWS>
static Scan<T> reduce_then_scan(const char *label) {
  return {label,
          [](const T *x, T *y, size_t n, Scratch &s) {
            const unsigned tiles = tiles_of<ROWS>(n);
            T *sums = static_cast<T *>(s.sums);
            sum_each_tile<T, ROWS><<<tiles, THREADS>>>(x, n, sums);
            CHECK(cudaGetLastError());
            scan_sums<T><<<1, SUMS_THREADS>>>(sums, tiles);
            CHECK(cudaGetLastError());
            scan_from_prefixes<T, ROWS><<<tiles, THREADS>>>(x, y, n, sums);
            CHECK(cudaGetLastError());
          },
          tile_elements<ROWS>, registers(scan_from_prefixes<T, ROWS>)};
}

// Element k: a number from -1000 to 1000 times a power of two from 2^-20 to
// 2^20, so that small numbers are added to large running sums.
struct Mixed {
  __host__ __device__ float operator()(size_t k) const {
    const unsigned h = scramble((unsigned)k);
    return (float)((int)(h % 2001) - 1000) * ldexpf(1.0f, (int)(scramble(h) % 41) - 20);
  }
};

int main() {
  const size_t n = (size_t)1 << 24;   // 64 MiB of floats
  const int RUNS = 10;
  float *d_x, *d_y;
  CHECK(cudaMalloc(&d_x, n * sizeof *d_x));
  CHECK(cudaMalloc(&d_y, n * sizeof *d_y));
  launch_make_input(d_x, n, Mixed());
  // The CPU's scan in double, and the running sum of the magnitudes, the scale of a sum's rounding.
  std::vector<double> exact(n), scale(n);
  double s = 0, m = 0;
  for (size_t k = 0; k < n; k++) exact[k] = s += Mixed()(k), scale[k] = m += std::fabs(Mixed()(k));
  Scratch scratch;
  std::vector<float> got(n), first_4096(n);
  bool ok = true;
  auto run = [&](const Scan<float> &scan, std::vector<float> *keep) {
    std::set<std::vector<float>> distinct;   // compared value by value: no NaN can occur
    double worst = 0;
    for (int r = 0; r < RUNS; r++) {
      CHECK(cudaMemset(d_y, 0, n * sizeof *d_y));
      scan.launch(d_x, d_y, n, scratch);
      CHECK(cudaMemcpy(got.data(), d_y, n * sizeof *d_y, cudaMemcpyDeviceToHost));
      std::vector<double> worst_of(cpu_cores(), 0);
      on_every_core(n, [&](size_t first, size_t last, unsigned c) {
        for (size_t k = first; k < last; k++) worst_of[c] = std::max(worst_of[c], std::fabs(got[k] - exact[k]) / scale[k]);
      });
      worst = std::max(worst, *std::max_element(worst_of.begin(), worst_of.end()));
      distinct.insert(got);
      if (keep && r == 0) *keep = got;
    }
    printf("%s, distinct results in %d runs: %zu\n", scan.label, RUNS, distinct.size());
    printf("%s, largest error over the sum of magnitudes: %.1e\n", scan.label, worst);
    printf("%s, last element: %.9g (the CPU's, in double: %.9g)\n", scan.label, got[n - 1], exact[n - 1]);
    ok = ok && worst < 1e-6;   // about 17 times float's rounding unit
  };
  run(single_pass<float, 4, false, Chain::look_back>("look-back, 4096-element tiles"), nullptr);
  run(single_pass<float, 4, false, Chain::predecessor>("chained, 4096-element tiles"), nullptr);
  run(reduce_then_scan<float, 4>("reduce, then scan, 4096-element tiles"), &first_4096);
  run(reduce_then_scan<float, 8>("reduce, then scan, 8192-element tiles"), nullptr);
  size_t differ = 0;
  for (size_t k = 0; k < n; k++) differ += got[k] != first_4096[k];
  printf("reduce, then scan, elements that differ with tiles twice as large: %zu\n", differ);
  printf("elements: %zu\n", n);
  CHECK(cudaFree(d_x));
  CHECK(cudaFree(d_y));
  puts(ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
