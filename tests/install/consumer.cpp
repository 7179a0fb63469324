// Runs a Kokkos kernel that calls a ttgnn device function, and a ttgnn host function.
#include <ttgnn/ttgnn.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstdio>

int main(int argc, char *argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  const std::int64_t n = 8 * 4 * 4;
  std::int64_t errors = 0;
  Kokkos::parallel_reduce(
      "consumer::digits", Kokkos::RangePolicy<>(0, n),
      KOKKOS_LAMBDA(std::int64_t id, std::int64_t & err) {
        const std::int64_t radix[3] = {8, 4, 4};
        std::int64_t d[3];
        ttgnn::mixed_radix_digits(id, 3, radix, d);
        if (d[0] != id / 16 || d[1] != (id / 4) % 4 || d[2] != id % 4 ||
            ttgnn::mixed_radix_value(3, radix, d) != id)
          ++err;
      },
      errors);
  const auto info = ttgnn::runtime_info();
  std::printf("consumer: ttgnn %s (header %s), Kokkos %s, %lld digit errors\n",
              info.ttgnn_version.c_str(), TTGNN_VERSION_STRING, info.kokkos_version.c_str(),
              static_cast<long long>(errors));
  return errors == 0 && info.ttgnn_version == TTGNN_VERSION_STRING ? 0 : 1;
}
