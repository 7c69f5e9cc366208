// gpuinfo.cu -- prints the provenance lines ("key value") of CUDA device 0 for make run's records: it owns
// the device's keys, which run.sh, values and the book take as they come (a new one needs nothing else);
// run.sh adds driver and sm_clock_mhz (from nvidia-smi), nvcc and date.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

static void check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        std::fprintf(stderr, "gpuinfo: %s failed: %s (%s)\n", what, cudaGetErrorString(e), cudaGetErrorName(e));
        std::exit(1);
    }
}

int main()
{
    cudaDeviceProp p;   // without a device 0 this fails, and check says why (cudaErrorNoDevice, ...)
    check(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties");
    int runtime = 0;
    check(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion");

    std::printf("gpu %s\n", p.name);
    std::printf("compute_capability %d.%d\n", p.major, p.minor);
    std::printf("sm_count %d\n", p.multiProcessorCount);
    std::printf("cuda_runtime %d.%d\n", runtime / 1000, runtime % 1000 / 10);
    std::printf("l2_cache %d MiB\nmemory %.0f GiB\n", p.l2CacheSize >> 20, p.totalGlobalMem / 1073741824.0);
    // The theoretical bandwidth: two transfers per memory clock (double data rate) over the whole bus.
    // CUDA 13's cudaDeviceProp has no memory clock; the attribute still reports it.
    int mem_khz = 0, bus_bits = p.memoryBusWidth;
    check(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, 0), "cudaDeviceGetAttribute(cudaDevAttrMemoryClockRate)");
    if (mem_khz > 0 && bus_bits > 0)
        std::printf("memory_clock_mhz %d\nmemory_bus_bits %d\npeak_bandwidth %.0f GB/s\n", (mem_khz + 500) / 1000,
                    bus_bits, 2.0 * mem_khz * 1e3 * bus_bits / 8 / 1e9);
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
        std::fprintf(stderr, "gpuinfo: cannot write to stdout\n");
        return 1;
    }
    return 0;
}
