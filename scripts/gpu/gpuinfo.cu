// gpuinfo.cu -- prints the provenance lines ("key value") of CUDA device 0 for make run's records: it owns
// the keys, which run.sh, values and the book take as they come (a new one needs nothing else).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

static void check(cudaError_t e, const char *what)
{
	if (e != cudaSuccess) {
		std::fprintf(stderr, "gpuinfo: %s failed: %s (%s)\n", what, cudaGetErrorString(e), cudaGetErrorName(e));
		std::exit(1);
	}
}

// The kernel module's version, from a line such as
// "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Thu ...": the first word made of
// digits and dots. nvidia-smi's answer, merged in by run.sh, wins where it exists.
static void driver_version(char *out, size_t len)
{
	std::snprintf(out, len, "unknown");
	FILE *f = std::fopen("/proc/driver/nvidia/version", "r");
	if (!f)
		return;
	char line[512];
	while (std::fgets(line, sizeof line, f)) {
		if (std::strncmp(line, "NVRM version:", 13) != 0)
			continue;
		for (char *w = std::strtok(line + 13, " \t\n"); w; w = std::strtok(nullptr, " \t\n")) {
			size_t n = std::strspn(w, "0123456789.");
			if (n == std::strlen(w) && std::strchr(w, '.') && w[0] != '.') {
				std::snprintf(out, len, "%s", w);
				break;
			}
		}
		break;
	}
	std::fclose(f);
}

int main()
{
	int count = 0;
	check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
	if (count < 1) {
		std::fprintf(stderr, "gpuinfo: no CUDA device\n");
		return 1;
	}
	cudaDeviceProp p;
	check(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties");
	int runtime = 0;
	check(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion");
	char driver[64];
	driver_version(driver, sizeof driver);

	std::printf("gpu %s\n", p.name);
	std::printf("compute_capability %d.%d\n", p.major, p.minor);
	std::printf("sm_count %d\n", p.multiProcessorCount);
	// The peak SM clock, as nvidia-smi's clocks.max.sm (which run.sh merges in, and which wins):
	// the current clock, read before anything runs, would be the idle one.
	int khz = 0;
	check(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0), "cudaDeviceGetAttribute(cudaDevAttrClockRate)");
	if (khz > 0)
		std::printf("sm_clock_mhz %d\n", (khz + 500) / 1000);
	else
		std::printf("sm_clock_mhz unknown\n");
	std::printf("driver %s\n", driver);
	std::printf("cuda_runtime %d.%d\n", runtime / 1000, runtime % 1000 / 10);
	std::printf("l2_cache %d MiB\nmemory %.0f GiB\n", p.l2CacheSize >> 20, p.totalGlobalMem / 1073741824.0);
	// The theoretical bandwidth: two transfers per memory clock (double data rate) over the whole bus.
	// CUDA 13's cudaDeviceProp has no memory clock; the attribute still reports it.
	int mem_khz = 0, bus_bits = 0;
	check(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, 0), "cudaDeviceGetAttribute(cudaDevAttrMemoryClockRate)");
	check(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0), "cudaDeviceGetAttribute(cudaDevAttrGlobalMemoryBusWidth)");
	if (mem_khz > 0 && bus_bits > 0)
		std::printf("memory_clock_mhz %d\nmemory_bus_bits %d\npeak_bandwidth %.0f GB/s\n", (mem_khz + 500) / 1000,
		            bus_bits, 2.0 * mem_khz * 1e3 * bus_bits / 8 / 1e9);
	if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
		std::fprintf(stderr, "gpuinfo: cannot write to stdout\n");
		return 1;
	}
	return 0;
}
