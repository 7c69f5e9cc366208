// hist.cu: 16M bytes into 256 bins with global atomics, spread out, then all in one bin
// runs: 1   (each time is the median of its launches, printed with the fastest and the slowest)
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
// in every run (the finalizer of MurmurHash3), on the CPU or on the GPU.
__host__ __device__ static unsigned scramble(unsigned k) {
  k ^= k >> 16;
  k *= 0x85ebca6bu;
  k ^= k >> 13;
  k *= 0xc2b2ae35u;
  k ^= k >> 16;
  return k;
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

// One thread per value, one global atomic per value.
__global__ void histogram_global(const unsigned char *data, unsigned *bins, int n) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < n) atomicAdd(&bins[data[idx]], 1u);
}


// One way to count: a name for the output ("" for the program's own
// histogram), its launch, how many histograms it leaves in d_bins (1 when it
// adds all counts into one, one per block when it leaves out the merge), and
// whether time_ms holds the GPU before each launch.
struct Counter {
  const char *name;
  void (*launch)(const unsigned char *, unsigned *);
  int histograms;
  bool hold = true;
};

static std::vector<Counter> make_counters();   // each program defines its own

// Count data with one counter, timed as time_ms does, then add up the
// histograms it left and compare every bin with the CPU's count. d_bins holds
// `most` histograms, and all of them are cleared before each launch, whichever
// counter runs, so that every counter starts from the same state.
static Timing histogram_case(const std::vector<unsigned char> &data, const Counter &c,
                             unsigned char *d_data, unsigned *d_bins, int most, bool &ok) {
  CHECK(cudaMemcpy(d_data, data.data(), N, cudaMemcpyHostToDevice));
  std::vector<unsigned> expected(BINS, 0);
  for (int k = 0; k < N; k++) expected[data[k]]++;

  const size_t bin_bytes = (size_t)most * BINS * sizeof(unsigned);
  const Timing t = time_ms([&] { CHECK(cudaMemset(d_bins, 0, bin_bytes)); },
                           [&] { c.launch(d_data, d_bins); }, c.hold);

  std::vector<unsigned> got((size_t)c.histograms * BINS);
  CHECK(cudaMemcpy(got.data(), d_bins, got.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  for (int b = 0; b < BINS; b++) {
    unsigned count = 0;
    for (int h = 0; h < c.histograms; h++) count += got[(size_t)h * BINS + b];
    if (count != expected[b]) {
      fprintf(stderr, "%s: bin %d: GPU %u, CPU %u\n", c.name, b, count, expected[b]);
      ok = false;
    }
  }
  return t;
}

int main() {
  const std::vector<Counter> counters = make_counters();
  int most = 1;
  for (const Counter &c : counters) most = std::max(most, c.histograms);

  std::vector<unsigned char> data(N);
  for (int k = 0; k < N; k++) data[k] = scramble(k) >> 24;   // nearly even over all bins
  unsigned char *d_data;
  unsigned *d_bins;
  CHECK(cudaMalloc(&d_data, N));
  CHECK(cudaMalloc(&d_bins, (size_t)most * BINS * sizeof(unsigned)));

  bool ok = true;
  for (const Counter &c : counters)
    printf("spread over %d bins%s: %s\n", BINS, c.name,
           timed(histogram_case(data, c, d_data, d_bins, most, ok)).text);
  std::fill(data.begin(), data.end(), 0);                    // now everything lands in bin 0
  for (const Counter &c : counters)
    printf("all in one bin%s: %s\n", c.name,
           timed(histogram_case(data, c, d_data, d_bins, most, ok)).text);

  CHECK(cudaFree(d_data));
  CHECK(cudaFree(d_bins));
  puts(ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}

static void launch_global(const unsigned char *d_data, unsigned *d_bins) {
  histogram_global<<<N / THREADS, THREADS>>>(d_data, d_bins, N);
  CHECK(cudaGetLastError());
}

static std::vector<Counter> make_counters() { return {{"", launch_global, 1}}; }
