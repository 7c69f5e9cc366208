// cas_max.cu: a float atomicMax built from atomicCAS, checked against the CPU
#include <algorithm>
#include <cmath>
#include <vector>
#include <cuda/atomic>
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
const unsigned STEPS = 2000001;   // inputs are -1000, -999.999, ..., 1000: STEPS values
const float STEP = 0.001f, LOWEST = -1000.0f;

// A fixed, well-mixed function of the index: "random" data that is the same
// in every run (the finalizer of MurmurHash3).
static unsigned scramble(unsigned k) {
  k ^= k >> 16;
  k *= 0x85ebca6bu;
  k ^= k >> 13;
  k *= 0xc2b2ae35u;
  k ^= k >> 16;
  return k;
}

// atomicMax has no float version, but atomicCAS can build any atomic
// read-modify-write: read the current value, compute the new one, and swap it
// in only if the location still holds what we read; if another thread got
// there first, look at its value and try again.
__device__ void atomic_max(float *address, float value) {
  unsigned *bits = reinterpret_cast<unsigned *>(address);
  // The first guess is a plain read racing with other threads' swaps: an atomic
  // load says so, and the CAS below corrects a stale guess anyway.
  unsigned seen = cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*bits).load(
      cuda::memory_order_relaxed);
  while (__uint_as_float(seen) < value) {
    const unsigned before = atomicCAS(bits, seen, __float_as_uint(value));
    if (before == seen) return;   // the location held what we saw: our value is in
    seen = before;                // someone changed it: compare with the new value
  }
}

__global__ void max_kernel(const float *x, float *result, int n) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < n) atomic_max(result, x[idx]);
}

int main() {
  std::vector<float> x(N);
  float expected = -INFINITY;
  for (int k = 0; k < N; k++) {
    x[k] = (scramble(k) % STEPS) * STEP + LOWEST;
    expected = std::max(expected, x[k]);
  }

  float *d_x, *d_max;
  CHECK(cudaMalloc(&d_x, N * sizeof(float)));
  CHECK(cudaMalloc(&d_max, sizeof(float)));
  CHECK(cudaMemcpy(d_x, x.data(), N * sizeof(float), cudaMemcpyHostToDevice));
  const float start = -INFINITY;                           // below every input
  CHECK(cudaMemcpy(d_max, &start, sizeof(float), cudaMemcpyHostToDevice));
  max_kernel<<<N / THREADS, THREADS>>>(d_x, d_max, N);
  CHECK(cudaGetLastError());
  float got = 0.0f;
  CHECK(cudaMemcpy(&got, d_max, sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_x));
  CHECK(cudaFree(d_max));

  printf("GPU max: %.3f\n", got);
  printf("CPU max: %.3f\n", expected);
  const bool ok = got == expected;   // a maximum involves no rounding: it must match exactly
  puts(ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
