// race.cu: a million threads add 1 to one counter, with += and with atomicAdd
// runs: 3   (what it prints varies from run to run; three runs show how much)
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

const int BLOCKS = 4096;
const int THREADS = 256;

// Load, add, store: three steps, and other threads run between them.
__global__ void add_plain(int *counter) { *counter += 1; }

// The same three steps, done by the memory system as one indivisible update.
__global__ void add_atomic(int *counter) { atomicAdd(counter, 1); }

// Zero the counter, let every thread of the grid add one, return the count.
static int count_with(void (*kernel)(int *), int *d_counter) {
  CHECK(cudaMemset(d_counter, 0, sizeof(int)));
  kernel<<<BLOCKS, THREADS>>>(d_counter);
  CHECK(cudaGetLastError());
  int count = 0;
  CHECK(cudaMemcpy(&count, d_counter, sizeof(int), cudaMemcpyDeviceToHost));
  return count;
}

int main() {
  const int threads = BLOCKS * THREADS;
  int *d_counter;
  CHECK(cudaMalloc(&d_counter, sizeof(int)));
  const int plain = count_with(add_plain, d_counter);
  const int atomic = count_with(add_atomic, d_counter);
  CHECK(cudaFree(d_counter));

  printf("threads:   %d\n", threads);
  printf("with +=:   %d\n", plain);   // expected to be wrong: reported, not checked
  printf("atomicAdd: %d\n", atomic);
  const bool ok = atomic == threads;
  puts(ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
