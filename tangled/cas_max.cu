// cas_max.cu: a float atomicMax built from atomicCAS, two other ways, timed and checked against the CPU
// runs: 1   (each time is the median of its launches, printed with the fastest and the slowest)
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

const int N = 1 << 20;            // the scrambled input
const int ASCENDING = N / 64;     // the ascending input: enough to show its contention, which grows with it
const int THREADS = 256;
const unsigned STEPS = 2000001;   // inputs are -1000, -999.999, ..., 1000: STEPS values
const float STEP = 0.001f, LOWEST = -1000.0f;

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

// atomicMax has no float version, but atomicCAS can build any atomic
// read-modify-write: read the current value, compute the new one, and swap it
// in only if the location still holds what we read; if another thread got
// there first, look at its value and try again. With EARLY_EXIT, a thread
// whose value is not above the one it saw is done at once. EARLY_EXIT = false
// is the experiment: every thread must then get a swap of its own through.
template <bool EARLY_EXIT = true>
__device__ void atomic_max(float *address, float value) {
  unsigned *bits = reinterpret_cast<unsigned *>(address);
  // The first guess is a plain read racing with other threads' swaps: an atomic
  // load says so, and the CAS below corrects a stale guess anyway.
  unsigned seen = cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*bits).load(
      cuda::memory_order_relaxed);
  while (!EARLY_EXIT || __uint_as_float(seen) < value) {
    const unsigned larger = __float_as_uint(fmaxf(__uint_as_float(seen), value));
    const unsigned before = atomicCAS(bits, seen, larger);
    if (before == seen) return;   // the location held what we saw: the larger value is in
    seen = before;                // someone changed it: compare with the new value
  }
}

// The same maximum from libcu++: atomic_ref<float> has fetch_max.
__device__ void atomic_max_ref(float *address, float value) {
  cuda::atomic_ref<float, cuda::thread_scope_device>(*address).fetch_max(
      value, cuda::memory_order_relaxed);
}

// The integer trick. Non-negative floats are ordered like their bits read as
// signed integers; negative floats are ordered backwards, like their bits read
// as unsigned integers. So one integer atomic on the bits does it, chosen by
// the sign of the value (signbit, so that -0.0f counts as negative).
__device__ void atomic_max_bits(float *address, float value) {
  if (!signbit(value)) atomicMax(reinterpret_cast<int *>(address), __float_as_int(value));
  else atomicMin(reinterpret_cast<unsigned *>(address), __float_as_uint(value));
}

template <void (*MAX)(float *, float)>
__global__ void max_kernel(const float *x, float *result, int n) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < n) MAX(result, x[idx]);
}

template <void (*MAX)(float *, float)>
static void launch_max(const float *d_x, float *d_max, int n) {
  max_kernel<MAX><<<(n + THREADS - 1) / THREADS, THREADS>>>(d_x, d_max, n);
  CHECK(cudaGetLastError());
}

struct Method {
  const char *name;
  void (*launch)(const float *, float *, int);
};
const Method METHODS[] = {{"CAS loop", launch_max<atomic_max<true>>},
                          {"CAS loop without the early exit", launch_max<atomic_max<false>>},
                          {"atomic_ref fetch_max", launch_max<atomic_max_ref>},
                          {"integer atomicMax and atomicMin", launch_max<atomic_max_bits>}};

// Find the maximum of x with every method, timed, and compare each with the CPU.
static bool max_case(const char *input, const std::vector<float> &x, float *d_x, float *d_max,
                     const float *d_start) {
  const float expected = *std::max_element(x.begin(), x.end());
  const int n = (int)x.size();
  CHECK(cudaMemcpy(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  printf("%s input, values: %d\n", input, n);
  printf("%s input, CPU max: %.3f\n", input, expected);
  bool ok = true;
  for (const Method &m : METHODS) {
    const Timing t = time_ms(
        [&] {
          CHECK(cudaMemcpyAsync(d_max, d_start, sizeof(float), cudaMemcpyDeviceToDevice));
        },
        [&] { m.launch(d_x, d_max, n); });
    float got = 0.0f;
    CHECK(cudaMemcpy(&got, d_max, sizeof(float), cudaMemcpyDeviceToHost));
    printf("%s, %s input: %s\n", m.name, input, timed(t).text);
    if (got != expected) {   // a maximum involves no rounding: it must match exactly
      fprintf(stderr, "%s, %s input: GPU max %.3f, CPU max %.3f\n", m.name, input, got, expected);
      ok = false;
    }
  }
  return ok;
}

int main() {
  std::vector<float> x(N);
  for (int k = 0; k < N; k++) x[k] = (scramble(k) % STEPS) * STEP + LOWEST;
  float *d_x, *d_max, *d_start;
  CHECK(cudaMalloc(&d_x, N * sizeof(float)));
  CHECK(cudaMalloc(&d_max, sizeof(float)));
  CHECK(cudaMalloc(&d_start, sizeof(float)));
  const float start = -INFINITY;                           // below every input
  CHECK(cudaMemcpy(d_start, &start, sizeof(float), cudaMemcpyHostToDevice));
  bool ok = max_case("scrambled", x, d_x, d_max, d_start);
  x.resize(ASCENDING);
  for (int k = 0; k < ASCENDING; k++) x[k] = k * STEP + LOWEST;   // each value above all before it
  ok = max_case("ascending", x, d_x, d_max, d_start) && ok;
  CHECK(cudaFree(d_x));
  CHECK(cudaFree(d_max));
  CHECK(cudaFree(d_start));
  puts(ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
