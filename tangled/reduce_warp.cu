// reduce_warp.cu: sum 16M digits with shuffles in each warp, one atomicAdd per warp
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
const unsigned DIGITS = 10;       // the elements are the digits 0 to 9

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

// GPU time of whatever launch() enqueues, in milliseconds.
template <typename Launch>
static float time_ms(Launch launch) {
  cudaEvent_t begin, end;
  CHECK(cudaEventCreate(&begin));
  CHECK(cudaEventCreate(&end));
  CHECK(cudaEventRecord(begin));
  launch();
  CHECK(cudaEventRecord(end));
  CHECK(cudaEventSynchronize(end));   // wait until the GPU has passed the second event
  float ms = 0.0f;
  CHECK(cudaEventElapsedTime(&ms, begin, end));
  CHECK(cudaEventDestroy(begin));
  CHECK(cudaEventDestroy(end));
  return ms;
}

const int WARP = 32;
const unsigned ALL_LANES = 0xffffffffu;   // every lane takes part in each shuffle

__global__ void reduce_warp(const unsigned *x, unsigned long long *total, int n) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = idx < n ? x[idx] : 0;
  for (int offset = WARP / 2; offset > 0; offset /= 2)
    v += __shfl_down_sync(ALL_LANES, v, offset);   // v of the lane offset places up
  if (threadIdx.x % WARP == 0) atomicAdd(total, (unsigned long long)v);   // lane 0 of each warp
}

static void launch_warp(const unsigned *d_x, unsigned long long *d_total) {
  reduce_warp<<<BLOCKS, THREADS>>>(d_x, d_total, N);
  CHECK(cudaGetLastError());
}

// Make the N digits, copy them to the GPU, and return their sum computed on the CPU.
static unsigned long long upload_digits(unsigned **d_x) {
  std::vector<unsigned> x(N);
  unsigned long long sum = 0;
  for (int k = 0; k < N; k++) {
    x[k] = scramble(k) % DIGITS;
    sum += x[k];
  }
  CHECK(cudaMalloc(d_x, N * sizeof(unsigned)));
  CHECK(cudaMemcpy(*d_x, x.data(), N * sizeof(unsigned), cudaMemcpyHostToDevice));
  return sum;
}

// Time one launch of a reduction (after a warm-up), check its sum, and
// return the exit status.
static int run_reduction(const char *label,
                         void (*launch)(const unsigned *, unsigned long long *)) {
  unsigned *d_x;
  const unsigned long long expected = upload_digits(&d_x);
  unsigned long long *d_total;
  CHECK(cudaMalloc(&d_total, sizeof(unsigned long long)));

  CHECK(cudaMemset(d_total, 0, sizeof(unsigned long long)));
  launch(d_x, d_total);                                       // warm-up
  CHECK(cudaMemset(d_total, 0, sizeof(unsigned long long)));
  const float ms = time_ms([&] { launch(d_x, d_total); });
  unsigned long long total = 0;
  CHECK(cudaMemcpy(&total, d_total, sizeof(total), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_x));
  CHECK(cudaFree(d_total));

  printf("%s: %.3f ms\n", label, ms);
  printf("GPU sum %llu, CPU sum %llu\n", total, expected);
  const bool ok = total == expected;
  puts(ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}

int main() { return run_reduction("one atomic per warp", launch_warp); }
