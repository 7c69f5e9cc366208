// float_order.cu: floats of mixed sizes summed with atomics, then in two fixed-order passes
// runs: 3   (what it prints varies from run to run; three runs show how much)
#include <algorithm>
#include <cassert>
#include <cmath>
#include <set>
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

const int N = 1 << 20;
const int THREADS = 256;
const int BLOCKS = N / THREADS;
const int LAUNCHES = 21;

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

__global__ void float_atomic_sum(const float *x, float *total, int n) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < n) atomicAdd(total, x[idx]);   // rounded to float at every one of the n additions
}

// Pass 1: each block sums its THREADS values as a tree and stores the sum in
// its own slot. Pass 2: one block adds the BLOCKS slots, each thread a fixed
// set of them in a fixed order, then the tree. No step depends on timing.
__global__ void float_block_partials(const float *x, float *partials, int n) {
  __shared__ float partial[THREADS];
  const int idx = blockIdx.x * THREADS + threadIdx.x;
  const float sum = block_sum(partial, idx < n ? x[idx] : 0.0f);
  if (threadIdx.x == 0) partials[blockIdx.x] = sum;
}

__global__ void float_add_partials(const float *partials, float *total) {
  __shared__ float partial[THREADS];
  float s = 0.0f;
  for (int b = threadIdx.x; b < BLOCKS; b += THREADS) s += partials[b];
  const float sum = block_sum(partial, s);
  if (threadIdx.x == 0) *total = sum;
}

// Launch a sum LAUNCHES times, print how many different results it gave and
// the range, and check each against a bound that holds in any order: with n
// additions, each rounded to within u = 2^-24 of its result, the sum is off by
// at most nu / (1 - nu) times the sum of |x| (Higham's bound for any order of
// summation). That is 1/15 of the sum here: a sanity check, no more.
static std::set<float> sum_many(const char *label, void (*launch)(const float *, float *),
                                const float *d_x, float *d_total, double exact, bool &ok) {
  std::set<float> results;
  for (int run = 0; run < LAUNCHES; run++) {
    CHECK(cudaMemset(d_total, 0, sizeof(float)));
    launch(d_x, d_total);
    float got = 0.0f;
    CHECK(cudaMemcpy(&got, d_total, sizeof(float), cudaMemcpyDeviceToHost));
    const double nu = N * std::ldexp(1.0, -24);
    if (fabs(got - exact) > nu / (1 - nu) * exact) {   // exact is the sum of |x|: all x > 0
      fprintf(stderr, "%s: %.1f is further from %.1f than rounding allows\n", label, got, exact);
      ok = false;
    }
    results.insert(got);
  }
  printf("%s, different results in %d launches: %zu\n", label, LAUNCHES, results.size());
  printf("%s, smallest: %.1f\n", label, *results.begin());
  printf("%s, largest: %.1f\n", label, *results.rbegin());
  return results;
}

// The two passes replayed on the CPU: the same float additions in the same
// order, so the GPU's result must match it bit for bit.
static float tree_on_cpu(float *p) {
  for (int half = THREADS / 2; half > 0; half /= 2)
    for (int t = 0; t < half; t++) p[t] += p[t + half];
  return p[0];
}

static float two_passes_on_cpu(const std::vector<float> &x) {
  std::vector<float> partials(BLOCKS), p(THREADS);
  for (int b = 0; b < BLOCKS; b++) {
    std::copy(x.begin() + b * THREADS, x.begin() + (b + 1) * THREADS, p.begin());
    partials[b] = tree_on_cpu(p.data());
  }
  for (int t = 0; t < THREADS; t++) {
    float s = 0.0f;
    for (int b = t; b < BLOCKS; b += THREADS) s += partials[b];
    p[t] = s;
  }
  return tree_on_cpu(p.data());
}

static float *d_partials;

static void launch_atomic(const float *d_x, float *d_total) {
  float_atomic_sum<<<BLOCKS, THREADS>>>(d_x, d_total, N);
  CHECK(cudaGetLastError());
}

static void launch_two_passes(const float *d_x, float *d_total) {
  float_block_partials<<<BLOCKS, THREADS>>>(d_x, d_partials, N);
  CHECK(cudaGetLastError());
  float_add_partials<<<1, THREADS>>>(d_partials, d_total);
  CHECK(cudaGetLastError());
}

int main() {
  // Positive values from 2^-16 to 2^17: sizes 33 binary orders apart.
  std::vector<float> x(N);
  double exact = 0.0;
  for (int k = 0; k < N; k++) {
    const unsigned h = scramble(k);
    x[k] = std::ldexp(1.0f + (h & 0xffff) / 65536.0f, (int)((h >> 16) % 33) - 16);
    exact += x[k];
  }
  float *d_x, *d_total;
  CHECK(cudaMalloc(&d_x, N * sizeof(float)));
  CHECK(cudaMalloc(&d_total, sizeof(float)));
  CHECK(cudaMalloc(&d_partials, BLOCKS * sizeof(float)));
  CHECK(cudaMemcpy(d_x, x.data(), N * sizeof(float), cudaMemcpyHostToDevice));

  printf("double sum on the CPU: %.1f\n", exact);
  bool ok = true;
  sum_many("one atomic per element", launch_atomic, d_x, d_total, exact, ok);
  const std::set<float> fixed = sum_many("two fixed-order passes", launch_two_passes, d_x,
                                         d_total, exact, ok);
  const float replay = two_passes_on_cpu(x);
  printf("two fixed-order passes, replayed on the CPU: %.1f\n", replay);
  if (fixed.size() != 1 || *fixed.begin() != replay) {
    fprintf(stderr, "the two fixed-order passes gave %zu different results, not only the replay's\n",
            fixed.size());
    ok = false;
  }
  CHECK(cudaFree(d_x));
  CHECK(cudaFree(d_total));
  CHECK(cudaFree(d_partials));
  puts(ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
