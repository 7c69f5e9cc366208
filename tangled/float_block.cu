// float_block.cu: the same float sum, reduced per block first, then one atomicAdd per block
// runs: 3   (what it prints varies from run to run; three runs show how much)
#include <cassert>
#include <cmath>
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

const int N = 1 << 20;          // a million values (and a bit)
const int THREADS = 256;
const int BLOCKS = N / THREADS;
const int LAUNCHES = 3;
const float VALUE = 0.1f;

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

__global__ void float_block_sum(const float *x, float *total, int n) {
  __shared__ float partial[THREADS];
  const int idx = blockIdx.x * THREADS + threadIdx.x;
  const float sum = block_sum(partial, idx < n ? x[idx] : 0.0f);
  if (threadIdx.x == 0) atomicAdd(total, sum);   // BLOCKS additions instead of N
}

static void launch_float_block(const float *d_x, float *d_total) {
  float_block_sum<<<BLOCKS, THREADS>>>(d_x, d_total, N);
  CHECK(cudaGetLastError());
}

// Run the sum LAUNCHES times and compare each result with replay, the CPU
// doing the same float additions (it must match exactly), and report the
// error against a double-precision sum, which is as good as exact here.
static int run_float_sum(const char *label, void (*launch)(const float *, float *),
                         float replay) {
  std::vector<float> x(N, VALUE);
  double exact = 0.0;
  for (float v : x) exact += v;

  float *d_x, *d_total;
  CHECK(cudaMalloc(&d_x, N * sizeof(float)));
  CHECK(cudaMalloc(&d_total, sizeof(float)));
  CHECK(cudaMemcpy(d_x, x.data(), N * sizeof(float), cudaMemcpyHostToDevice));

  printf("double sum on the CPU: %.4f\n", exact);
  printf("%s, replayed on the CPU: %.4f\n", label, replay);
  bool ok = true;
  double worst = 0.0;   // the largest relative error of any launch
  for (int run = 1; run <= LAUNCHES; run++) {
    CHECK(cudaMemset(d_total, 0, sizeof(float)));
    launch(d_x, d_total);
    float got = 0.0f;
    CHECK(cudaMemcpy(&got, d_total, sizeof(float), cudaMemcpyDeviceToHost));
    printf("launch %d: %.4f\n", run, got);
    if (got != replay) ok = false;
    worst = fmax(worst, fabs(got - exact) / exact);
  }
  printf("relative error: %.3g %%\n", 100.0 * worst);
  CHECK(cudaFree(d_x));
  CHECK(cudaFree(d_total));
  puts(ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}

int main() {
  // The same additions on the CPU. With equal inputs, each tree step adds a
  // value to an equal value (an exact doubling); then the BLOCKS equal block
  // sums are added one by one, in any order.
  float block = VALUE;
  for (int half = THREADS / 2; half > 0; half /= 2) block += block;
  float replay = 0.0f;
  for (int b = 0; b < BLOCKS; b++) replay += block;
  return run_float_sum("block sums then atomics", launch_float_block, replay);
}
