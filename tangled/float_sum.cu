// float_sum.cu: a million 0.1f added into one float with atomicAdd, against the CPU
// runs: 3   (what it prints varies from run to run; three runs show how much)
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

__global__ void float_atomic_sum(const float *x, float *total, int n) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < n) atomicAdd(total, x[idx]);   // rounded to float at every one of the n additions
}

static void launch_float_atomic(const float *d_x, float *d_total) {
  float_atomic_sum<<<BLOCKS, THREADS>>>(d_x, d_total, N);
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
  // Every addend is VALUE, so the order of the atomics cannot matter: the k-th
  // addition always turns the same total into the same next one.
  float replay = 0.0f;
  for (int k = 0; k < N; k++) replay += VALUE;
  return run_float_sum("float atomics", launch_float_atomic, replay);
}
