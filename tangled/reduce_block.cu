// reduce_block.cu: sum 16M digits with a shared-memory tree per block, one atomicAdd per block
#include <cstring>
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

// Sum partial[0 .. THREADS) of this block, in place, as a tree: at each step
// the lower half of the active threads adds in the upper half. Every thread
// of the block must call it, after storing its own partial[threadIdx.x].
// BARRIER = false leaves out the barrier between steps: a deliberate bug.
template <typename T, bool BARRIER = true>
__device__ T block_sum(T *partial) {
  const int t = threadIdx.x;
  __syncthreads();                       // all elements stored before any is read
  for (int half = THREADS / 2; half > 0; half /= 2) {
    if (t < half) partial[t] += partial[t + half];
    if constexpr (BARRIER) __syncthreads();   // this step done before the next reads it
  }
  return partial[0];
}

template <bool BARRIER>
__global__ void reduce_block(const unsigned *x, unsigned long long *total, int n) {
  __shared__ unsigned partial[THREADS];
  const int idx = blockIdx.x * THREADS + threadIdx.x;
  partial[threadIdx.x] = idx < n ? x[idx] : 0;
  const unsigned sum = block_sum<unsigned, BARRIER>(partial);
  if (threadIdx.x == 0) atomicAdd(total, (unsigned long long)sum);   // one atomic per block
}

template <bool BARRIER>
static void launch_block(const unsigned *d_x, unsigned long long *d_total) {
  reduce_block<BARRIER><<<BLOCKS, THREADS>>>(d_x, d_total, N);
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

// The missing-barrier demonstration: one launch, both sums, no verdict.
static int run_without_barrier() {
  unsigned *d_x;
  const unsigned long long expected = upload_digits(&d_x);
  unsigned long long *d_total;
  CHECK(cudaMalloc(&d_total, sizeof(unsigned long long)));
  CHECK(cudaMemset(d_total, 0, sizeof(unsigned long long)));
  launch_block<false>(d_x, d_total);
  unsigned long long total = 0;
  CHECK(cudaMemcpy(&total, d_total, sizeof(total), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_x));
  CHECK(cudaFree(d_total));

  printf("GPU sum %llu, CPU sum %llu\n", total, expected);
  printf("difference: %lld\n", (long long)(total - expected));
  puts("NOT CHECKED: without the barrier the tree is a race");
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--no-barrier") == 0) return run_without_barrier();
  if (argc != 1) {
    fprintf(stderr, "usage: %s [--no-barrier]\n", argv[0]);
    return 2;
  }
  return run_reduction("one atomic per block", launch_block<true>);
}
