// hist_shared.cu: per-block shared-memory histograms, merged with one global atomic per bin
#include <algorithm>
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

const int N = 1 << 24;     // values to count
const int BINS = 256;      // one bin per byte value
const int THREADS = 256;

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

// Each block counts into its own histogram in shared memory and merges it
// into the global one at the end: global atomics drop from one per value to
// at most BINS per block.
__global__ void histogram_shared(const unsigned char *data, unsigned *bins, int n) {
  __shared__ unsigned local[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
  __syncthreads();                                   // all bins zeroed before counting

  // Grid-stride loop: a grid of any size covers all n values.
  const int stride = gridDim.x * blockDim.x;
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += stride)
    atomicAdd(&local[data[k]], 1u);                  // contention stays inside the block
  __syncthreads();                                   // all counting done before the merge

  for (int b = threadIdx.x; b < BINS; b += blockDim.x)
    if (local[b] != 0) atomicAdd(&bins[b], local[b]);
}

const int BLOCKS_PER_SM = 4;

// A few blocks per multiprocessor, whatever the GPU: enough to keep all of
// them busy, few enough that each block counts many values.
static int grid_blocks() {
  int device = 0, sms = 0;
  CHECK(cudaGetDevice(&device));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return BLOCKS_PER_SM * sms;
}

static void launch_histogram(const unsigned char *d_data, unsigned *d_bins) {
  static const int blocks = grid_blocks();
  histogram_shared<<<blocks, THREADS>>>(d_data, d_bins, N);
  CHECK(cudaGetLastError());
}

// Count data on the GPU (a warm-up launch, then a timed one), compare every
// bin with the CPU, and return the time of the timed launch.
static float histogram_case(const std::vector<unsigned char> &data,
                            unsigned char *d_data, unsigned *d_bins, bool &ok) {
  CHECK(cudaMemcpy(d_data, data.data(), N, cudaMemcpyHostToDevice));
  std::vector<unsigned> expected(BINS, 0);
  for (int k = 0; k < N; k++) expected[data[k]]++;

  const size_t bin_bytes = BINS * sizeof(unsigned);
  CHECK(cudaMemset(d_bins, 0, bin_bytes));
  launch_histogram(d_data, d_bins);                       // warm-up
  CHECK(cudaMemset(d_bins, 0, bin_bytes));
  const float ms = time_ms([&] { launch_histogram(d_data, d_bins); });

  std::vector<unsigned> got(BINS);
  CHECK(cudaMemcpy(got.data(), d_bins, bin_bytes, cudaMemcpyDeviceToHost));
  for (int b = 0; b < BINS; b++)
    if (got[b] != expected[b]) {
      fprintf(stderr, "bin %d: GPU %u, CPU %u\n", b, got[b], expected[b]);
      ok = false;
    }
  return ms;
}

int main() {
  std::vector<unsigned char> data(N);
  for (int k = 0; k < N; k++) data[k] = scramble(k) >> 24;   // even over all bins

  unsigned char *d_data;
  unsigned *d_bins;
  CHECK(cudaMalloc(&d_data, N));
  CHECK(cudaMalloc(&d_bins, BINS * sizeof(unsigned)));

  bool ok = true;
  const float spread_ms = histogram_case(data, d_data, d_bins, ok);
  printf("spread over %d bins: %.4f ms\n", BINS, spread_ms);
  std::fill(data.begin(), data.end(), 0);                    // now everything lands in bin 0
  const float single_ms = histogram_case(data, d_data, d_bins, ok);
  printf("all in one bin: %.4f ms\n", single_ms);

  CHECK(cudaFree(d_data));
  CHECK(cudaFree(d_bins));
  puts(ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
